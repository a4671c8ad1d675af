// Package atomicfile owns the one way jp-policy replaces a file: write a
// temporary file in the same directory, fsync it, rename it over the
// target and fsync the directory, so a reader (JP, the launcher, another
// jp-policy) sees the old file or the new one, never a torn one, and an
// interrupted write leaves the old file in place.
package atomicfile
