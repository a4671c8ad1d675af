package execplan

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

// Why a file input records its identity: exec checks every staleness
// input on every run, and a config layer grows with the number of tools,
// so hashing it made each exec of a large workspace slower than one of a
// small one. compile records, beside a file input's hash, the file's
// identity when it hashed it (StatID: device, inode, size, and
// modification and change times in nanoseconds); exec hashes the file
// again only when its identity differs, and a hash that differs is stale
// as before. That is exact:
//
//   - Every write, truncation or metadata change of a file (touch -d,
//     which sets mtime, included) sets its change time to the kernel's
//     clock; no system call sets it (only setting the system clock does,
//     which a sandboxed tool cannot), so restoring size and mtime after
//     an edit still leaves another identity.
//   - A file replaced (renamed over, or deleted and created again) has
//     another inode, or a reused one whose change time is its creation.
//   - A change within the same clock tick as the last one before the hash
//     could leave the change time equal. So compile records an identity
//     only when the file's change time is older than the timestamps'
//     granularity when it has read the file (settled): any change after
//     the read lands in a later tick. A file changed more recently is
//     recorded without one and hashed on every exec until the next
//     compile.
//   - The identity belongs to the bytes hashed: it is taken on the open
//     file before and after reading it, and recorded only when the two
//     agree. It lives in the pin, outside the workspace.

// HashFileID is HashFile that also returns the file's identity when it is
// settled at now ("" otherwise, where the system has no identity, and
// when now is nil).
func HashFileID(path string, now func() time.Time) (sum, id string, err error) {
	f, before, err := jpdirs.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", nil
	}
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", "", err
	}
	sum = hex.EncodeToString(h.Sum(nil))
	if now == nil {
		return sum, "", nil
	}
	after, err := f.Stat()
	if err != nil {
		return sum, "", nil
	}
	idBefore, ctime, ok := fileID(before)
	if idAfter, _, _ := fileID(after); !ok || idAfter != idBefore || !settled(ctime, now()) {
		return sum, "", nil
	}
	return sum, idBefore, nil
}

// StatID is the identity of the file at path now (os.Stat, as open
// follows links), "" when it has none.
func StatID(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	id, _, _ := fileID(fi)
	return id
}

// settled reports whether a change time is far enough in the past that
// a later change cannot share its timestamp: more than the kernel's clock
// tick (a few milliseconds) and a filesystem's granularity. Timestamps
// with no fraction of a second come from a filesystem that keeps whole
// seconds (or two: FAT), which gets three.
func settled(ctime, now time.Time) bool {
	margin := 100 * time.Millisecond
	if ctime.Nanosecond() == 0 {
		margin = 3 * time.Second
	}
	return now.Sub(ctime) >= margin
}
