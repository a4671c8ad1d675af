//go:build !(linux || darwin)

package execplan

import "os"

// pinFile is an *os.File where no bare-descriptor reader is written.
type pinFile = os.File

func openPinFile(path string) (*pinFile, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}
