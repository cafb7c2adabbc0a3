// Package conformance runs Kubernetes' own test/e2e/scheduling specs, unchanged, against a
// cluster named by --kubeconfig. The suite set-up follows upstream's test/e2e/e2e_test.go
// and e2e.go, cut to what a local cluster without kubelets, cloud provider or system
// DaemonSets has: flags, the wait for schedulable nodes, the cluster's IP family.
//
// Built by `make conformance` (tools/kubesched_conformance) with `go test -c`:
//
//	conformance.test --kubeconfig=... --ginkgo.focus=... --ginkgo.json-report=...
package conformance

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/logs"
	"k8s.io/component-base/version"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/test/e2e/framework"
	"k8s.io/kubernetes/test/e2e/framework/config"
	e2enode "k8s.io/kubernetes/test/e2e/framework/node"
	"k8s.io/kubernetes/test/e2e/framework/testfiles"
	e2etestingmanifests "k8s.io/kubernetes/test/e2e/testing-manifests"
	utilnet "k8s.io/utils/net"

	// define and freeze the feature and environment labels, as upstream's suite does
	_ "k8s.io/kubernetes/test/e2e/feature"

	// the specs
	_ "k8s.io/kubernetes/test/e2e/scheduling"

	// reconfigure the framework as upstream's suite does
	_ "k8s.io/kubernetes/test/e2e/framework/debug/init"
	_ "k8s.io/kubernetes/test/e2e/framework/metrics/init"
	_ "k8s.io/kubernetes/test/e2e/framework/node/init"
)

func TestMain(m *testing.M) {
	versionFlag := flag.CommandLine.Bool("version", false, "Displays version information.")
	config.CopyFlags(config.Flags, flag.CommandLine)
	framework.RegisterCommonFlags(flag.CommandLine)
	framework.RegisterClusterFlags(flag.CommandLine)
	flag.Parse()

	if *versionFlag {
		fmt.Printf("%s\n", version.Get())
		os.Exit(0)
	}
	if flag.CommandLine.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "unknown additional command line arguments: %s", flag.CommandLine.Args())
		os.Exit(1)
	}
	testfiles.AddFileSource(e2etestingmanifests.GetE2ETestingManifestsFS())
	framework.AfterReadingAllFlags(&framework.TestContext)
	os.Exit(m.Run())
}

func TestScheduling(t *testing.T) {
	logs.InitLogs()
	defer logs.FlushLogs()
	klog.EnableContextualLogging(true)
	gomega.RegisterFailHandler(framework.Fail)
	suiteConfig, reporterConfig := framework.CreateGinkgoConfig()
	ginkgo.RunSpecs(t, "Kubernetes e2e scheduling specs", suiteConfig, reporterConfig)
}

var _ = ginkgo.SynchronizedBeforeSuite(func(ctx context.Context) []byte {
	c, err := framework.LoadClientset()
	framework.ExpectNoError(err, "Error loading client")
	timeouts := framework.NewTimeoutContext()
	framework.ExpectNoError(e2enode.WaitForAllNodesSchedulable(ctx, c, timeouts.NodeSchedulable))
	if framework.TestContext.CloudConfig.NumNodes == framework.DefaultNumNodes {
		nodes, err := e2enode.GetReadySchedulableNodes(ctx, c)
		framework.ExpectNoError(err)
		framework.TestContext.CloudConfig.NumNodes = len(nodes.Items)
	}
	framework.Logf("e2e test version: %s", version.Get().GitVersion)
	if serverVersion, err := c.DiscoveryClient.ServerVersion(); err == nil {
		framework.Logf("kube-apiserver version: %s", serverVersion.GitVersion)
	}
	return nil
}, func(ctx context.Context, _ []byte) {
	c, err := framework.LoadClientset()
	framework.ExpectNoError(err, "Error loading client")
	svc, err := c.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
	framework.ExpectNoError(err, "Failed to get the kubernetes service")
	framework.TestContext.IPFamily = "ipv4"
	if utilnet.IsIPv6String(svc.Spec.ClusterIP) {
		framework.TestContext.IPFamily = "ipv6"
	}
})
