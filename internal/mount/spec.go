package mount

import (
	"fmt"
	"strings"
)

// Mode is a mount's access mode.
type Mode string

const (
	ReadOnly  Mode = "ro"
	ReadWrite Mode = "rw"
	// ReadExec is read plus execute: a toolchain outside the workspace
	// (~/.cargo, ~/.pyenv) whose programs the tool runs. RFD D43 names
	// only ro and rw; rx is jp-policy's addition (README, "jp-policy and
	// JP"), written as a rule JP reads as it reads any other.
	ReadExec Mode = "rx"
	// ReadWriteExec is read, write and execute: a cache whose programs
	// the tool runs (Go's GOCACHE, from which a repeated `go run` runs the
	// binary it linked before). Like rw it needs a TOOL: prefix.
	ReadWriteExec Mode = "rwx"
)

// Writes reports whether the mode grants write.
func (m Mode) Writes() bool { return m == ReadWrite || m == ReadWriteExec }

// Executes reports whether the mode grants execute.
func (m Mode) Executes() bool { return m == ReadExec || m == ReadWriteExec }

// ErrorKind is the stable, machine-readable class of a mount error; it is
// what `--dry-run --json` prints in error.kind.
type ErrorKind string

const (
	KindMissingEquals         ErrorKind = "missing_equals"
	KindInvalidTool           ErrorKind = "invalid_tool"
	KindEmpty                 ErrorKind = "empty"
	KindWriteRequiresTool     ErrorKind = "write_requires_tool"
	KindOutsideWorkspace      ErrorKind = "outside_workspace"
	KindManagedStorage        ErrorKind = "managed_storage"
	KindConfigLayer           ErrorKind = "config_layer"
	KindInvalidMode           ErrorKind = "invalid_mode"
	KindInTheWay              ErrorKind = "in_the_way"
	KindRetarget              ErrorKind = "retarget"
	KindUnknownTool           ErrorKind = "unknown_tool"
	KindNotLocalTool          ErrorKind = "not_local_tool"
	KindNoTools               ErrorKind = "no_tools"
	KindTargetMissing         ErrorKind = "target_missing"
	KindTargetInsideWorkspace ErrorKind = "target_inside_workspace"
	KindInvalidName           ErrorKind = "invalid_name"
	KindNotConfirmed          ErrorKind = "not_confirmed"
	KindConfig                ErrorKind = "config"
	KindIO                    ErrorKind = "io"
)

// Error is a mount failure of a known kind.
type Error struct {
	Kind    ErrorKind
	Message string
	Err     error // underlying cause, when there is one
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

func errorf(kind ErrorKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Spec is a parsed `[TOOL:]NAME=PATH[:MODE]`, with NAME and PATH exactly
// as typed (NAME not yet resolved, `~` in PATH not yet expanded).
type Spec struct {
	Tool string // "" when the mount applies to every enabled local tool
	Name string
	Path string
	Mode Mode
}

// Parse reads a mount spec with RFD D43's rules: split on the first '=';
// on the left an optional `TOOL:` prefix naming an identifier; on the
// right a trailing `:ro`, `:rx`, `:rw` or `:rwx` is the mode (default ro), so a Windows
// path such as `C:\code\x` keeps its drive letter. `:rw` and `:rwx` need `TOOL:`:
// the user opts into write access twice, once per tool.
func Parse(s string) (Spec, error) {
	left, right, ok := strings.Cut(s, "=")
	if !ok {
		return Spec{}, errorf(KindMissingEquals, "invalid mount %q: expected [TOOL:]NAME=PATH[:MODE]", s)
	}
	var sp Spec
	sp.Name = left
	if tool, name, hasTool := strings.Cut(left, ":"); hasTool {
		if !IsToolName(tool) {
			return Spec{}, errorf(KindInvalidTool, "invalid mount %q: %q is not a tool name (want [a-z_][a-z0-9_]*)", s, tool)
		}
		sp.Tool, sp.Name = tool, name
	}
	sp.Path, sp.Mode = right, ReadOnly
	if p, ok := strings.CutSuffix(right, ":rwx"); ok {
		sp.Path, sp.Mode = p, ReadWriteExec
	} else if p, ok := strings.CutSuffix(right, ":rw"); ok {
		sp.Path, sp.Mode = p, ReadWrite
	} else if p, ok := strings.CutSuffix(right, ":rx"); ok {
		sp.Path, sp.Mode = p, ReadExec
	} else if p, ok := strings.CutSuffix(right, ":ro"); ok {
		sp.Path = p
	} else if i := strings.LastIndexByte(right, ':'); i > 0 && looksLikeMode(right[i+1:]) {
		// `:wx`, `:RW`, `:w`: a mode typo, not part of the path (which
		// would then be reported as a missing target).
		return Spec{}, errorf(KindInvalidMode, "invalid mount %q: unknown mode %q (want :ro, :rx or :rw); if the colon is part of the path, end it with the mode, e.g. %s:ro", s, right[i:], right)
	}
	if sp.Name == "" || sp.Path == "" {
		return Spec{}, errorf(KindEmpty, "invalid mount %q: NAME and PATH must both be non-empty", s)
	}
	if sp.Mode.Writes() && sp.Tool == "" {
		return Spec{}, errorf(KindWriteRequiresTool, "invalid mount %q: ':%s' requires a TOOL: prefix (e.g. fs_modify_file:%s=%s:%s)", s, sp.Mode, sp.Name, sp.Path, sp.Mode)
	}
	return sp, nil
}

// looksLikeMode reports whether s, what follows the last ':' of a mount's
// right side, reads as a mode: one to three letters. A Windows drive
// (`C:\code`) or a path element (`/a:b/c`) has more after the colon.
func looksLikeMode(s string) bool {
	if len(s) == 0 || len(s) > 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// IsToolName reports whether s is a tool identifier, [a-z_][a-z0-9_]*.
func IsToolName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
