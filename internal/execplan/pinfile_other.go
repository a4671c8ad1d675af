//go:build !(linux || darwin)

package execplan

import (
	"os"

	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

// pinFile is an *os.File where no bare-descriptor reader is written,
// opened as every other file exec reads (jpdirs.OpenRegular).
type pinFile = os.File

func openPinFile(path string) (*pinFile, int64, error) {
	f, fi, err := jpdirs.OpenRegular(path)
	if err != nil {
		return nil, 0, err
	}
	return f, fi.Size(), nil
}
