//go:build linux

package launcher

import "golang.org/x/sys/unix"

// realCwd is the current directory with every symlink resolved. On Linux
// that is what getcwd(2) returns, in one system call; os.Getwd with
// filepath.EvalSymlinks took two stats and an lstat per path element on
// every exec (TestRealCwd keeps the two equal).
func realCwd() (string, error) { return unix.Getwd() }
