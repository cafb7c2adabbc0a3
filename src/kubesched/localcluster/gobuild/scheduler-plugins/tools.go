//go:build tools

// Package tools pins the commands this module builds, so `go mod tidy` keeps
// every module it needs in go.sum.
package tools

import (
	_ "sigs.k8s.io/scheduler-plugins/cmd/controller"
	_ "sigs.k8s.io/scheduler-plugins/cmd/scheduler"
)
