//go:build linux

package compiler

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncTree makes everything written below dir durable with one syncfs(2)
// on its filesystem.
func syncTree(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Syncfs(int(d.Fd()))
}
