//go:build !linux && !darwin

package execcore

import "io/fs"

// identity: no stat identity here (Windows has no ctime or inode in
// fs.FileInfo), so exec always hashes its inputs.
func identity(fs.FileInfo) (statID, bool) { return statID{}, false }
