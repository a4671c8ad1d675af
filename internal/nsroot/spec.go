package nsroot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// Spec says what stage 2 builds and runs. Every path is absolute and
// clean; destinations (Bind.Dst, Masks, Symlink.Path, Tmpfs, Workdir) are
// paths inside the new root and must not go through symlinks there (stage
// 2 refuses, so a mount can never land somewhere else than named).
type Spec struct {
	Path    string   // the program, as seen inside the new root
	Argv    []string // argv[0] included
	Env     []string
	Workdir string // inside the new root; "" is "/"

	Binds    []Bind    // mounted shallowest destination first
	Tmpfs    []string  // empty writable tmpfs (mode 1777), e.g. a private /tmp
	Symlinks []Symlink // created in the root tmpfs (/bin -> usr/bin)
	Masks    []string  // hidden exactly; see doc.go
	Dev      bool      // a minimal /dev
	Proc     bool      // /proc: a read-only bind of the host's (no pid namespace)

	Net    bool     // a new network namespace where only lo exists (and is up)
	Listen []string // TCP addresses (127.0.0.1:0) listened on inside, handed back

	// Extra is opaque to nsroot: the Finalize hook reads it (the
	// launcher's Landlock rules and seccomp choice).
	Extra []byte

	// Stdio are the command's stdin, stdout and stderr; nil is the
	// parent's own. Parent side only: not sent to stage 2.
	Stdio [3]*os.File

	// Stage2 is the binary re-executed as stage 2 ("" is this one,
	// /proc/self/exe). Its main must call Stage2Main first and its
	// Finalize hook must read Extra as this process's writes it. Parent
	// side only.
	Stage2 string

	// forceRemount makes stage 2 use the remount fallback for read-only
	// binds even where mount_setattr exists (tests only).
	forceRemount bool
}

// Bind mounts the host path Src at Dst, recursively (submounts included).
type Bind struct {
	Src, Dst string
	RW       bool // otherwise read-only, submounts included
	Optional bool // a missing Src is skipped instead of failing
}

// Symlink is a symbolic link at Path pointing at Target.
type Symlink struct{ Target, Path string }

// The spec crosses from the parent to stage 2 over a pipe in this small
// binary form: both ends are the same binary, so there is no versioning
// beyond a magic, and decoding costs a few allocations rather than a
// reflective JSON pass in a process whose start-up is on every tool call.

const specMagic = "nsr1"

// maxSpec bounds what stage 2 accepts, far above any real spec (an
// environment over ARG_MAX could not be exec'd anyway).
const maxSpec = 16 << 20

func (s *Spec) encode() []byte {
	// Sized once for the usual spec (Extra is its bulk): growing by
	// appends copies it several times, each copy fresh heap pages.
	b := make([]byte, 0, 4096+len(s.Extra))
	b = append(b, specMagic...)
	str := func(v string) { b = binary.AppendUvarint(b, uint64(len(v))); b = append(b, v...) }
	strs := func(v []string) {
		b = binary.AppendUvarint(b, uint64(len(v)))
		for _, x := range v {
			str(x)
		}
	}
	flag := func(v bool) {
		if v {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	str(s.Path)
	strs(s.Argv)
	strs(s.Env)
	str(s.Workdir)
	b = binary.AppendUvarint(b, uint64(len(s.Binds)))
	for _, m := range s.Binds {
		str(m.Src)
		str(m.Dst)
		flag(m.RW)
		flag(m.Optional)
	}
	strs(s.Tmpfs)
	b = binary.AppendUvarint(b, uint64(len(s.Symlinks)))
	for _, l := range s.Symlinks {
		str(l.Target)
		str(l.Path)
	}
	strs(s.Masks)
	flag(s.Dev)
	flag(s.Proc)
	flag(s.Net)
	strs(s.Listen)
	str(string(s.Extra))
	flag(s.forceRemount)
	return b
}

var errBadSpec = errors.New("malformed spec")

// decodeSpec is encode's inverse. It never panics: every length is
// checked against what is left, so a count cannot make it allocate more
// than the input's size.
func decodeSpec(b []byte) (*Spec, error) {
	if len(b) > maxSpec || len(b) < len(specMagic) || string(b[:len(specMagic)]) != specMagic {
		return nil, errBadSpec
	}
	d := decoder{b: b[len(specMagic):]}
	s := &Spec{}
	s.Path = d.str()
	s.Argv = d.strs()
	s.Env = d.strs()
	s.Workdir = d.str()
	if n := d.count(4); n > 0 {
		s.Binds = make([]Bind, n)
		for i := range s.Binds {
			s.Binds[i] = Bind{Src: d.str(), Dst: d.str(), RW: d.flag(), Optional: d.flag()}
		}
	}
	s.Tmpfs = d.strs()
	if n := d.count(2); n > 0 {
		s.Symlinks = make([]Symlink, n)
		for i := range s.Symlinks {
			s.Symlinks[i] = Symlink{Target: d.str(), Path: d.str()}
		}
	}
	s.Masks = d.strs()
	s.Dev = d.flag()
	s.Proc = d.flag()
	s.Net = d.flag()
	s.Listen = d.strs()
	s.Extra = d.bytes()
	s.forceRemount = d.flag()
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", errBadSpec, len(d.b))
	}
	return s, nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	// A varint ending in a zero byte after others (0x80 0x00 for 0) is a
	// second spelling of a shorter one: refused, so a spec has one form.
	if n <= 0 || n > 1 && d.b[n-1] == 0 {
		d.err = errBadSpec
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a list length; each element takes at least minBytes, so a
// count larger than the rest of the input is malformed.
func (d *decoder) count(minBytes int) int {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)/minBytes) {
		d.err = errBadSpec
	}
	if d.err != nil {
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)) {
		d.err = errBadSpec
	}
	if d.err != nil {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// bytes reads a string as a slice of the input, not a copy: Extra is the
// bulk of a spec (the launcher's plan), and stage 2 keeps the input until
// it execs. Empty is nil.
func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)) {
		d.err = errBadSpec
	}
	if d.err != nil || n == 0 {
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) strs() []string {
	n := d.count(1)
	if n == 0 {
		return nil
	}
	v := make([]string, n)
	for i := range v {
		v[i] = d.str()
	}
	return v
}

func (d *decoder) flag() bool {
	if d.err != nil {
		return false
	}
	if len(d.b) == 0 || d.b[0] > 1 {
		d.err = errBadSpec
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}
