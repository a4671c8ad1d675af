//go:build !linux

package launcher

// setTmp: the private temporary directory is Linux only for now (macOS
// would need the directory in the SBPL profile, Windows has no file
// rules at the OS level); elsewhere TMPDIR is not passed.
func (p *Plan) setTmp(bool) error { return nil }
