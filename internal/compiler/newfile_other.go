//go:build !linux

package compiler

import "os"

// writeNewFile creates path (which must not exist) holding data.
func writeNewFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fileOwner is empty where reuseFile does not link (see the Linux file).
type fileOwner struct{}

func ownerOf(*os.File) fileOwner { return fileOwner{} }

// reuseFile never reuses a previous file here: every file is written.
func reuseFile(prev, path string, data []byte, own fileOwner) bool { return false }
