//go:build !unix

package jpdirs

// openNonblock: opening a named pipe does not wait for a writer here.
const openNonblock = 0
