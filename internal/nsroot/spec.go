package nsroot

import (
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
	Proc     bool      // /proc: a read-only procfs of the command's PID namespace

	Net    bool     // a new network namespace where only lo exists (and is up)
	Listen []string // TCP addresses (127.0.0.1:0) listened on inside, handed back; UDPPrefix+addr binds UDP

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
	e := encoder{B: make([]byte, 0, 4096+len(s.Extra))}
	e.B = append(e.B, specMagic...)
	e.Str(s.Path)
	e.Strs(s.Argv)
	e.Strs(s.Env)
	e.Str(s.Workdir)
	e.Num(uint64(len(s.Binds)))
	for _, m := range s.Binds {
		e.Str(m.Src)
		e.Str(m.Dst)
		e.Flag(m.RW)
		e.Flag(m.Optional)
	}
	e.Strs(s.Tmpfs)
	e.Num(uint64(len(s.Symlinks)))
	for _, l := range s.Symlinks {
		e.Str(l.Target)
		e.Str(l.Path)
	}
	e.Strs(s.Masks)
	e.Flag(s.Dev)
	e.Flag(s.Proc)
	e.Flag(s.Net)
	e.Strs(s.Listen)
	e.Bytes(s.Extra)
	e.Flag(s.forceRemount)
	return e.B
}

var errBadSpec = errors.New("malformed spec")

// decodeSpec is encode's inverse. It never panics: every length is
// checked against what is left, so a count cannot make it allocate more
// than the input's size.
func decodeSpec(b []byte) (*Spec, error) {
	if len(b) > maxSpec || len(b) < len(specMagic) || string(b[:len(specMagic)]) != specMagic {
		return nil, errBadSpec
	}
	d := newDecoder(string(b[len(specMagic):]))
	s := &Spec{}
	s.Path = d.Str()
	s.Argv = d.Strs()
	s.Env = d.Strs()
	s.Workdir = d.Str()
	if n := d.Count(4); n > 0 {
		s.Binds = make([]Bind, n)
		for i := range s.Binds {
			s.Binds[i] = Bind{Src: d.Str(), Dst: d.Str(), RW: d.Flag(), Optional: d.Flag()}
		}
	}
	s.Tmpfs = d.Strs()
	if n := d.Count(2); n > 0 {
		s.Symlinks = make([]Symlink, n)
		for i := range s.Symlinks {
			s.Symlinks[i] = Symlink{Target: d.Str(), Path: d.Str()}
		}
	}
	s.Masks = d.Strs()
	s.Dev = d.Flag()
	s.Proc = d.Flag()
	s.Net = d.Flag()
	s.Listen = d.Strs()
	s.Extra = d.Bytes()
	s.forceRemount = d.Flag()
	if d.Failed() {
		return nil, errBadSpec
	}
	if d.Left() != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", errBadSpec, d.Left())
	}
	return s, nil
}
