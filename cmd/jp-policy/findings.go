package main

import (
	"io"
	"os"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/lint"
	"github.com/jp-policy/jp-policy/internal/lint/report"
)

// findingOptions are the report options of every command that prints
// findings (lint, compile, explain, check, config, diff): one path style,
// relative to the working directory like ruff and golangci-lint, with
// `../` for files of the workspace above it, ~/ under the home directory,
// absolute elsewhere. root is the workspace root ("" when unknown); files
// holds the config bytes for source excerpts (nil for none).
func findingOptions(g *Globals, w io.Writer, root string, files map[string][]byte) report.Options {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	if cwd == "" {
		cwd = root
	}
	return report.Options{Base: cwd, Root: root, Home: home, Files: files, Color: g.colorize(w), Version: version}
}

// printFindings writes findings to stderr in lint's text form, so a
// finding reads the same whichever command reported it.
func printFindings(g *Globals, ds []diag.Diagnostic, root string, files map[string][]byte) {
	if len(ds) == 0 {
		return
	}
	_ = report.Text(g.Stderr, lint.WithHelp(ds), findingOptions(g, g.Stderr, root, files))
}
