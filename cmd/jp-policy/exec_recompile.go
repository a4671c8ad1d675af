package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/compiler"
	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/launcher"
)

// execRecompiler gives the launcher the compiler for the stale path: it
// builds what `jp-policy compile` run here would build, never prompting
// (an unapproved mount is dropped, which only narrows).
type execRecompiler struct{ stderr io.Writer }

func (r *execRecompiler) Rebuild(root, artifactPath string) (launcher.Rebuilt, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	opts := compiler.Options{
		Config:    config.Options{Workspace: root, Cwd: wd},
		OutDir:    filepath.Dir(artifactPath),
		Generator: "jp-policy " + version,
	}
	res, err := compiler.Rebuild(opts)
	if err != nil {
		return nil, err
	}
	return &rebuilt{opts: opts, res: res}, nil
}

func (r *execRecompiler) Notice(msg string) { fmt.Fprintln(r.stderr, msg) }

type rebuilt struct {
	opts compiler.Options
	res  *compiler.Result
}

func (b *rebuilt) Artifact() *artifact.Policy { return b.res.Artifact }

func (b *rebuilt) Commit(reviewed *artifact.Policy) error {
	_, err := compiler.Commit(b.opts, b.res, reviewed)
	return err
}
