package completion

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
)

// Shells lists the shells Write supports, in the order help shows them.
var Shells = []string{"bash", "zsh", "fish"}

// ShellError reports a shell Write has no generator for.
type ShellError struct{ Shell string }

func (e *ShellError) Error() string {
	return fmt.Sprintf("completion: unsupported shell %q (want %s)", e.Shell, strings.Join(Shells, ", "))
}

// Write renders the completion script of root for shell. The program is
// completed under root.Name. Nothing is written when an error is returned.
func Write(w io.Writer, shell string, root *Command) error {
	if root == nil {
		return fmt.Errorf("completion: no command tree")
	}
	if err := validate(root, true); err != nil {
		return err
	}
	var b bytes.Buffer
	nodes := flatten(root)
	switch shell {
	case "bash":
		writeBash(&b, root.Name, nodes)
	case "zsh":
		writeZsh(&b, root.Name, nodes)
	case "fish":
		writeFish(&b, root.Name, nodes)
	default:
		return &ShellError{Shell: shell}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func notIdent() *regexp.Regexp {
	notIdentOnce.Do(func() { notIdentOnce.re = regexp.MustCompile(`[^A-Za-z0-9_]`) })
	return notIdentOnce.re
}

var notIdentOnce struct {
	sync.Once
	re *regexp.Regexp
}

// ident turns a program name into a shell function name fragment.
func ident(prog string) string { return notIdent().ReplaceAllString(prog, "_") }

// sq quotes s for bash and zsh: single quotes; a quote inside closes the
// string, adds an escaped quote and reopens it.
func sq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// sqAll quotes each word and joins them with spaces.
func sqAll(words []string, quote func(string) string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = quote(w)
	}
	return strings.Join(q, " ")
}

// expand fills the @FN@ and @PROG@ holes of a fixed script part.
func expand(tmpl, fn, prog string) string {
	return strings.NewReplacer("@FN@", fn, "@PROG@", prog, "@LIST@", ListToolsArgs, "@WS@", WorkspaceFlag).Replace(tmpl)
}
