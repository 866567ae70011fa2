package testdesk

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// BuildMcec builds cmd/mcec into dir as it ships (no cgo) and returns the binary's path: for
// tests that run mcec as a separate process (e2e, soak, provisioning, the container recipe).
func BuildMcec(dir string) (string, error) {
	bin := filepath.Join(dir, "mcec")
	build := exec.Command("go", "build", "-o", bin, "github.com/mcec/mcec/cmd/mcec")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build mcec: %v\n%s", err, out)
	}
	return bin, nil
}

// MainWithMcec is a TestMain for packages whose tests run the mcec binary: it builds it into a
// temporary directory, sets *bin, runs the tests and removes the directory.
func MainWithMcec(m interface{ Run() int }, bin *string) int {
	dir, err := os.MkdirTemp("", "mcec-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if *bin, err = BuildMcec(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
