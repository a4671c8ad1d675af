package main

import (
	"io"

	"github.com/jp-policy/jp-policy/internal/termstyle"
)

// Output conventions shared by every command (internal/termstyle decides;
// docs/output.md documents): --color, --format json, --quiet.

// colorize reports whether w gets ANSI colour under --color and the
// environment.
func (g *Globals) colorize(w io.Writer) bool {
	return termstyle.Colorize(termstyle.ColorMode(g.Color), w, nil)
}

// writeJSON prints a --format json result.
func (g *Globals) writeJSON(v any) error {
	if err := termstyle.WriteJSON(g.Stdout, v); err != nil {
		return fail(exitIntern, err)
	}
	return nil
}
