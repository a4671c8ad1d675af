package execcore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jp-policy/jp-policy/internal/atomicfile"
	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

// Why a verify cache: every exec must know that no input of the artifact
// changed since compile (a config layer, the approvals store, ...), and
// hashing them costs time in proportion to their size: a 10,000-tool
// workspace has a 10 MB config layer, and hashing it was most of an exec.
// So exec remembers, for each input file it has hashed and found equal to
// the recorded hash, the file's stat identity (device, inode, size, mtime
// and ctime in nanoseconds), and later skips the hash when the identity is
// unchanged. docs/exec.md ("Staleness without re-hashing") has the full
// argument; in short:
//
//   - Any write, truncation, or metadata change of the file sets its ctime
//     to the current time, and no system call lets a user set ctime (only
//     setting the clock, which needs CAP_SYS_TIME). Replacing the file
//     (rename over it, delete and recreate) gives a new inode, or a reused
//     inode number whose ctime is its creation time.
//   - The one gap is timestamp granularity: a change made in the same
//     clock tick as the change that set the recorded ctime can leave ctime
//     equal. So an identity is recorded only when its ctime is older than
//     settleTime at the moment before the file is opened: any later change
//     then lands in a later tick and moves ctime.
//   - The identity is taken with fstat before and after the bytes are
//     read from the same open file, and recorded only when both agree.
//   - The cache lives beside the pin in the user's data directory, which a
//     sandboxed tool cannot write (the same trust as the pin itself); an
//     entry is only used when its hash equals the hash the pinned exec
//     file records for that input. A damaged cache is read as empty.
//
// Platforms without a stat identity (Windows) always hash.

// settleTime is how old a file's ctime must be before its identity is
// trusted: far above the coarse kernel clock tick (at most 10 ms) and the
// 2 s timestamp granularity of the coarsest filesystems (FAT).
var settleTime = 3 * time.Second

// statID is a file's identity for the verify cache.
type statID struct {
	Dev, Ino           uint64
	Size, Mtime, Ctime int64
}

// verifyCache maps an input path to the identity it had when it hashed to
// sum.
type verifyCache struct {
	path    string
	entries map[string]cacheEntry
	dirty   bool
}

type cacheEntry struct {
	id  statID
	sum string
}

const verifyCacheMagic = "jp-policy verified 1\n"

// loadVerifyCache reads the cache at path; a missing or damaged file is an
// empty cache (it is only an optimisation: the next exec rewrites it).
func loadVerifyCache(path string) *verifyCache {
	c := &verifyCache{path: path, entries: map[string]cacheEntry{}}
	// Read into the run's reused buffer (readFile): the parse copies
	// what it keeps.
	_ = readFile(path, func(b []byte) error {
		if entries, ok := parseVerifyCache(b); ok {
			c.entries = entries
		}
		return nil
	})
	return c
}

// parseVerifyCache parses the cache file: a magic line, then one
// "dev ino size mtime ctime sha256 quoted-path" line per file.
func parseVerifyCache(b []byte) (map[string]cacheEntry, bool) {
	rest, ok := bytes.CutPrefix(b, []byte(verifyCacheMagic))
	if !ok {
		return nil, false
	}
	out := map[string]cacheEntry{}
	for len(rest) > 0 {
		// Line by line as bufio.ScanLines splits (a final line may lack
		// its newline; a CR before it is dropped), without its buffer.
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		f := strings.SplitN(string(line), " ", 7)
		if len(f) != 7 {
			return nil, false
		}
		var e cacheEntry
		var err [5]error
		e.id.Dev, err[0] = strconv.ParseUint(f[0], 10, 64)
		e.id.Ino, err[1] = strconv.ParseUint(f[1], 10, 64)
		e.id.Size, err[2] = strconv.ParseInt(f[2], 10, 64)
		e.id.Mtime, err[3] = strconv.ParseInt(f[3], 10, 64)
		e.id.Ctime, err[4] = strconv.ParseInt(f[4], 10, 64)
		p, perr := strconv.Unquote(f[6])
		if errors.Join(err[:]...) != nil || perr != nil || len(f[5]) != 64 {
			return nil, false
		}
		e.sum = f[5]
		out[p] = e
	}
	return out, true
}

// marshal renders the cache, keeping only the entries of keep.
func (c *verifyCache) marshal(keep []execplan.Input) []byte {
	var b bytes.Buffer
	b.WriteString(verifyCacheMagic)
	seen := map[string]bool{}
	for _, in := range keep {
		e, ok := c.entries[in.Path]
		if !ok || seen[in.Path] {
			continue
		}
		seen[in.Path] = true
		fmt.Fprintf(&b, "%d %d %d %d %d %s %s\n", e.id.Dev, e.id.Ino, e.id.Size, e.id.Mtime, e.id.Ctime, e.sum, strconv.Quote(in.Path))
	}
	return b.Bytes()
}

// fresh reports whether path still has the identity it had when it hashed
// to sum, so it need not be hashed again.
func (c *verifyCache) fresh(path, sum string) bool {
	if c == nil || sum == "" {
		return false
	}
	e, ok := c.entries[path]
	if !ok || e.sum != sum {
		return false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	id, ok := identity(fi)
	return ok && fi.Mode().IsRegular() && id == e.id
}

// hashFile reads and hashes path like execplan.HashFile ("" when absent)
// and, when the cache is in use, also returns the file's identity if it
// was stable across the read and settled (ok false otherwise).
func (c *verifyCache) hashFile(path string) (sum string, id statID, ok bool, err error) {
	if c == nil {
		sum, err = execplan.HashFile(path)
		return sum, id, false, err
	}
	// A change after this instant sets ctime to a later tick than one
	// settled before it.
	start := time.Now()
	// Only a regular file: a FIFO or a device planted where a layer may
	// appear would block or never end (jpdirs.OpenRegular).
	f, before, err := jpdirs.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", id, false, nil
	}
	if err != nil {
		return "", id, false, err
	}
	defer f.Close()
	b, err := readAll(f, before.Size())
	if err != nil {
		return "", id, false, err
	}
	sum = execplan.SHA256Hex(b)
	after, err := f.Stat()
	if err != nil {
		return sum, id, false, nil
	}
	id, ok1 := identity(before)
	id2, ok2 := identity(after)
	settled := start.Sub(time.Unix(0, id.Ctime)) > settleTime
	return sum, id, ok1 && ok2 && id == id2 && settled, nil
}

// put records that path, with identity id, hashed to sum.
func (c *verifyCache) put(path string, id statID, sum string) {
	if c == nil {
		return
	}
	if e, ok := c.entries[path]; ok && e.id == id && e.sum == sum {
		return
	}
	c.entries[path] = cacheEntry{id: id, sum: sum}
	c.dirty = true
}

// save writes the cache back when it learnt something; a failure only
// costs the next exec a hash, so it is not reported.
func (c *verifyCache) save(inputs []execplan.Input) {
	if c == nil || !c.dirty {
		return
	}
	_ = atomicfile.Write(c.path, c.marshal(inputs), 0o600)
}

// readAll reads f, whose size was size at fstat, to its end
// (jpdirs.ReadAll).
func readAll(f *os.File, size int64) ([]byte, error) { return jpdirs.ReadAll(f, size) }

// SetSettleTime replaces settleTime and returns a function that puts it
// back. For benchmarks and tests in other packages (0: every identity is
// trusted at once; a huge value: nothing is ever cached).
func SetSettleTime(d time.Duration) (restore func()) {
	old := settleTime
	settleTime = d
	return func() { settleTime = old }
}
