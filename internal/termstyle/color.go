package termstyle

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

// ColorMode is the value of --color.
type ColorMode string

// The --color values; ColorModes lists them for the flag's enum.
const (
	ColorAuto   ColorMode = "auto"
	ColorAlways ColorMode = "always"
	ColorNever  ColorMode = "never"
)

// ColorModes are the values --color accepts, in the order help shows them.
var ColorModes = []ColorMode{ColorAuto, ColorAlways, ColorNever}

// ParseColorMode reads a --color value; "" is auto.
func ParseColorMode(s string) (ColorMode, error) {
	switch m := ColorMode(s); m {
	case "":
		return ColorAuto, nil
	case ColorAuto, ColorAlways, ColorNever:
		return m, nil
	}
	return "", fmt.Errorf("--color %q: want auto, always or never", s)
}

// Colorize reports whether output written to w is coloured. An explicit
// always or never wins over the environment (the user typed it for this
// run). In auto mode, first match wins:
//
//  1. NO_COLOR set to anything but "" turns colour off (no-color.org);
//  2. FORCE_COLOR set to anything but "" or "0" turns it on, for CI logs
//     that render ANSI but are not terminals (force-color.org);
//  3. TERM=dumb turns it off: the terminal cannot show it;
//  4. otherwise colour only when w is a terminal, so a pipe or a file
//     never receives escape codes.
//
// getenv is os.LookupEnv in production; tests pass a map.
func Colorize(mode ColorMode, w io.Writer, getenv func(string) (string, bool)) bool {
	switch mode {
	case ColorAlways:
		return true
	case ColorNever:
		return false
	}
	if getenv == nil {
		getenv = os.LookupEnv
	}
	if v, ok := getenv("NO_COLOR"); ok && v != "" {
		return false
	}
	if v, ok := getenv("FORCE_COLOR"); ok && v != "" && v != "0" {
		return true
	}
	if v, _ := getenv("TERM"); v == "dumb" {
		return false
	}
	return IsTerminal(w)
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
