//go:build tools

// Package tools pins the command the wrapper module builds.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
