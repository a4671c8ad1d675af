package launcher

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

// VerifyCurrent checks that an artifact compiled for root is current:
// every file and symlink input unchanged (a file is hashed again unless
// its identity is the one compile recorded with its hash, which no change
// of the file keeps: execplan.HashFileID),
// every "env" input equal to this process's variable, and no `.jp.*`
// layer added or lost on the way from root to the working directory. A
// stale artifact is an *execplan.StaleError or a *LayerChainError (both
// match execplan.ErrStale).
func VerifyCurrent(root string, inputs []execplan.Input) error {
	if err := verifyInputs(inputs); err != nil {
		return err
	}
	return checkLayerChain(root, inputs)
}

// envInputHash is how the compiler records an "env" input: the hex
// SHA-256 of the variable's value, "" when unset.
func envInputHash(name string) string {
	v, ok := os.LookupEnv(name)
	if !ok {
		return ""
	}
	return execplan.HashEnv(v)
}

// verifyInputs runs execplan.VerifyInputs on the file and symlink inputs
// and checks "env" inputs against this process's environment.
func verifyInputs(inputs []execplan.Input) error {
	err := execplan.VerifyInputs(inputs, func(in execplan.Input) (string, error) {
		if in.ID != "" && execplan.StatID(in.Path) == in.ID {
			return in.SHA256, nil
		}
		if in.Kind == "candidate" && in.SHA256 == "" {
			// A candidate that appeared as a directory (the directory an
			// extends glob searches, config.Loaded.GlobDirs) is a change
			// like a file that appeared: stale, not a broken input.
			if fi, err := os.Lstat(in.Path); err == nil && fi.IsDir() {
				return execplan.SHA256Hex([]byte(in.Path)), nil
			}
		}
		return execplan.HashFile(in.Path)
	})
	if err != nil {
		return err
	}
	recorded := map[string]bool{}
	for _, in := range inputs {
		if in.Kind != "env" {
			continue
		}
		recorded[in.Path] = true
		if now := envInputHash(in.Path); now != in.SHA256 {
			shown := "unset"
			if now != "" {
				shown = "sha256:" + now[:12]
			}
			return &execplan.StaleError{Input: in, Now: shown}
		}
	}
	// A JP_CFG_ variable that can change access, set now but not when the
	// artifact was compiled: JP would apply it, the artifact cannot have.
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		// Set to "" counts: JP assigns an empty value too (an empty
		// access.fs list drops rules marked discard_when_merged).
		if !recorded[name] && execplan.IsEnvConfigInput(name) {
			return &execplan.StaleError{Input: execplan.Input{Kind: "env", Path: name}, Now: "sha256:" + execplan.HashEnv(value)[:12]}
		}
	}
	return nil
}

// LayerChainError is a `.jp.*` config layer that JP would load when run
// from this directory but the artifact was compiled without (a tool that
// may write src/ created src/.jp.toml), or one the artifact includes that
// JP would not load from here (compiled from a deeper directory).
type LayerChainError struct {
	Path    string
	Cwd     string
	Missing bool // true: loaded from here, absent from the artifact
}

func (e *LayerChainError) Error() string {
	if e.Missing {
		return fmt.Sprintf("%v: %s is a config layer for %s, but the artifact was compiled without it; run `jp-policy compile` from this directory (and review what it grants)", execplan.ErrStale, e.Path, e.Cwd)
	}
	return fmt.Sprintf("%v: the artifact includes %s, which JP does not load from %s; run `jp-policy compile` from this directory", execplan.ErrStale, e.Path, e.Cwd)
}

func (e *LayerChainError) Unwrap() error { return execplan.ErrStale }

// checkLayerChain compares the `.jp.*` layers JP loads from the current
// directory (one in each directory from the workspace root down to it)
// with the ones the artifact was compiled from. The inputs' own hashes
// catch edits of recorded layers; this catches a layer in a directory the
// compile never looked at. A few stat calls per directory level.
func checkLayerChain(root string, inputs []execplan.Input) error {
	cwd, err := realCwd()
	if err != nil {
		return fmt.Errorf("current directory: %w", err)
	}
	recorded := map[string]bool{}
	// absent: the candidates verifyInputs has just found missing, as the
	// artifact recorded them; no need to ask again.
	absent := map[string]bool{}
	for _, in := range inputs {
		switch {
		case in.Kind == "layer" && strings.HasPrefix(filepath.Base(in.Path), ".jp."):
			recorded[in.Path] = true
		case in.Kind == "candidate" && in.SHA256 == "":
			absent[in.Path] = true
		}
	}
	here := map[string]bool{}
	for _, dir := range jpdirs.DirsDown(root, cwd) {
		for _, p := range jpdirs.DotJPFiles(dir) {
			here[p] = true
			if absent[p] {
				continue
			}
			fi, err := os.Stat(p)
			if err != nil || fi.IsDir() {
				continue
			}
			if !recorded[p] {
				return &LayerChainError{Path: p, Cwd: cwd, Missing: true}
			}
			break // the loader takes the first name that exists
		}
	}
	for p := range recorded {
		if !here[p] {
			return &LayerChainError{Path: p, Cwd: cwd}
		}
	}
	return nil
}
