package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

// noWorkspaceError: the directory a command was pointed at (or the working
// directory and its parents) holds no `.jp/`. Without this check a
// `--workspace` typo linted nothing and said nothing, and compile created
// a `.jp/` where JP has none: a green answer about a workspace that does
// not exist.
type noWorkspaceError struct {
	Dir     string
	Parents bool // the search went up from Dir
}

func (e *noWorkspaceError) Error() string {
	where := "it has no .jp directory"
	if e.Parents {
		where = "neither it nor a parent has a .jp directory"
	}
	return fmt.Sprintf("no JP workspace at %s: %s; run in a JP workspace or pass --workspace DIR (JP creates .jp/ with `jp init`)", e.Dir, where)
}

// requireWorkspace checks that flag (a --workspace value, or "" for the
// working directory and its parents) names a JP workspace. code is the
// exit code for a miss: exitUsage, or exitRefused for exec.
func requireWorkspace(flag string, code int) error {
	if flag == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fail(code, err)
		}
		_, err = jpdirs.FindRoot(wd)
		if _, ok := errors.AsType[*jpdirs.NoWorkspaceError](err); ok {
			return fail(code, &noWorkspaceError{Dir: wd, Parents: true})
		}
		return nil // other errors are the loader's to report
	}
	if fi, err := os.Stat(filepath.Join(flag, ".jp")); err == nil && fi.IsDir() {
		return nil
	}
	return fail(code, &noWorkspaceError{Dir: flag})
}
