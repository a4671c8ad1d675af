//go:build unix

package jpdirs

import "syscall"

// openNonblock keeps OpenRegular's open of a FIFO from waiting for a
// writer.
const openNonblock = syscall.O_NONBLOCK
