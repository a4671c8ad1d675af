package execplan

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Input is one thing the compiler read. SHA256 is empty when the input was
// looked for and absent (a .jp.toml that may be created later must still
// make the artifact stale when it appears).
type Input struct {
	Kind   string `json:"kind"` // "layer", "candidate", "symlink", "approvals", "env"
	Path   string `json:"path"`
	SHA256 string `json:"sha256,omitempty"`
	// Target is a symlink's canonical target ("" when broken).
	Target string `json:"target,omitempty"`
	// ID is a file input's identity when compile hashed it (HashFileID),
	// "" when it has none; exec hashes the file again only when its
	// identity now differs. Kept in the pin only: it is this machine's.
	ID string `json:"-"`
}

// ErrStale is returned (wrapped in *StaleError) when an input changed since
// the artifact was compiled.
var ErrStale = errors.New("the compiled policy is stale")

// StaleError names the input that changed.
type StaleError struct {
	Input Input
	Now   string // what was found instead ("absent", a new hash or target)
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("%v: %s %s changed (was %s, now %s); run `jp-policy compile`",
		ErrStale, e.Input.Kind, e.Input.Path, e.Input.describe(), e.Now)
}

func (e *StaleError) Unwrap() error { return ErrStale }

func (in Input) describe() string {
	switch {
	case in.Kind == "symlink":
		if in.Target == "" {
			return "broken"
		}
		return "-> " + in.Target
	case in.SHA256 == "":
		return "absent"
	default:
		return "sha256:" + in.SHA256[:12]
	}
}

// HashFile returns the hex SHA-256 of a file, or "" when it does not exist.
// Only a regular file is read (jpdirs.OpenRegular): a FIFO or a device
// at an input's path is an error, never a read that blocks or never ends.
// The file goes through the hash in pieces: exec hashes every config
// layer on every run, and holding a large layer whole cost more in fresh
// memory than the hashing itself.
func HashFile(path string) (string, error) {
	sum, _, err := HashFileID(path, nil)
	return sum, err
}

// EnvConfigPrefix starts JP's config variables (JP_CFG_*).
const EnvConfigPrefix = "JP_CFG_"

// IsEnvConfigInput reports whether a set JP_CFG_ variable named name can
// change a tool's access policy, and is therefore a staleness input
// whether or not it took part in the compile: the conversation.tools
// forms (JP_CFG_CONVERSATION..., in JP's "__" and native spellings),
// JP_CFG_CONFIG_LOAD_PATHS, and JP_CFG_ itself, whose empty key is the
// config root: JP assigns a JSON object in it member by member, so
// JP_CFG_=':{"conversation": {"tools": ...}}' reaches any tool. The loader records every such variable that
// is set (internal/config); exec treats one it finds set but unrecorded
// as a change (launcher.VerifyCurrent), so a narrowing given only in the
// environment at run time is never silently dropped. Deliberately wider
// than what the loader applies (a tool's style key under
// conversation.tools is recorded too): a spurious "stale" costs a
// recompile, a missed one a wider run.
func IsEnvConfigInput(name string) bool {
	rest, ok := strings.CutPrefix(name, EnvConfigPrefix)
	if !ok {
		return false
	}
	rest = strings.ToLower(rest)
	return rest == "" || strings.HasPrefix(rest, "conversation") || strings.HasPrefix(rest, "config_load_paths")
}

// HashEnv is how an "env" input records a variable's value: the compiler
// hashes what it read, the launcher what it is given, and the two must
// agree.
func HashEnv(value string) string { return SHA256Hex([]byte(value)) }

// SHA256Hex is the hex SHA-256 of data.
func SHA256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// VerifyInputs is Verify over inputs, with hash returning a file input's
// current hash ("" when absent): exec passes one that skips files whose
// stat identity shows them unchanged since they were last hashed.
func VerifyInputs(inputs []Input, hash func(Input) (string, error)) error {
	for _, in := range inputs {
		switch in.Kind {
		case "symlink":
			now, err := filepath.EvalSymlinks(in.Path)
			if err != nil {
				now = ""
			}
			if now != in.Target {
				shown := now
				if shown == "" {
					shown = "broken"
				} else {
					shown = "-> " + shown
				}
				return &StaleError{Input: in, Now: shown}
			}
		case "env":
			continue
		default:
			now, err := hash(in)
			if err != nil {
				return fmt.Errorf("checking artifact input %s: %w", in.Path, err)
			}
			if now != in.SHA256 {
				shown := "absent"
				if now != "" {
					shown = "sha256:" + now[:12]
				}
				return &StaleError{Input: in, Now: shown}
			}
		}
	}
	return nil
}
