// Package conformance runs Kubernetes' own test/e2e/scheduling specs, unchanged, against a
// cluster named by --kubeconfig. The suite set-up follows upstream's test/e2e/e2e_test.go
// and e2e.go, cut to what a local cluster without kubelets, cloud provider or system
// DaemonSets has: flags, the wait for schedulable nodes, the cluster's IP family; and
// before each spec, a wait for the namespaces of the specs before it to be deleted.
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
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	v1 "k8s.io/api/core/v1"
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

// namespaceDeletionTimeout bounds the wait for earlier specs' namespaces: the namespace
// controller of the local cluster empties one in seconds.
const namespaceDeletionTimeout = 2 * time.Minute

// Each spec starts on a cluster without the pods of the specs before it. The framework
// deletes a spec's namespace without waiting, and CheckTestingNSDeletedExcept (the
// SchedulerPreemption specs' BeforeEach) waits only for namespaces named "e2e-tests-*",
// so in a suite run back to back the next spec's pods can meet the last spec's pods on
// the nodes: two SchedulerPreemption specs in a row then see 2 of the 5
// scheduling.k8s.io/foo of node-1 still held, and their medium-priority pod preempts the
// low-priority one the spec waits for (with kube-scheduler as with kubesched).
//
// The wait is a framework extension: each framework instance (one per spec container)
// then runs it right after its own set-up, before the spec's BeforeEach. A top-level
// ginkgo.BeforeEach does not run for specs registered through the framework's wrappers.
func init() {
	framework.NewFrameworkExtensions = append(framework.NewFrameworkExtensions, func(f *framework.Framework) {
		ginkgo.BeforeEach(func(ctx context.Context) { waitForTerminatingNamespaces(ctx, f) })
	})
}

func waitForTerminatingNamespaces(ctx context.Context, f *framework.Framework) {
	namespaces, err := f.ClientSet.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		framework.Logf("listing namespaces to wait for the terminating ones: %v", err)
		return
	}
	var terminating []string
	for _, ns := range namespaces.Items {
		if ns.Status.Phase == v1.NamespaceTerminating {
			terminating = append(terminating, ns.Name)
		}
	}
	if len(terminating) == 0 {
		return
	}
	if err := framework.WaitForNamespacesDeleted(ctx, f.ClientSet, terminating, namespaceDeletionTimeout); err != nil {
		framework.Logf("namespaces still terminating after %v: %v", namespaceDeletionTimeout, terminating)
	}
}
