//go:build tools

// Package tools pins the command this module builds, so `go mod tidy` keeps
// every module it needs in go.sum.
package tools

import (
	_ "github.com/google/go-containerregistry/cmd/crane"
)
