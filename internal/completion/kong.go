package completion

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/alecthomas/kong"
)

// TagKey is the struct tag that overrides the inferred Kind of a flag or
// positional argument, e.g. `completion:"dir"`.
const TagKey = "completion"

// safeName is what a command, alias or flag name must look like. The
// scripts splice names into case patterns and function tables, so
// anything else is refused rather than quoted and hoped for.
func safeName() *regexp.Regexp {
	safeNameOnce.Do(func() { safeNameOnce.re = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`) })
	return safeNameOnce.re
}

// safeNameOnce compiles safeName on first use: a package-level
// sync.OnceValue is itself work at every jp-policy start.
var safeNameOnce struct {
	sync.Once
	re *regexp.Regexp
}

// NameError reports a name the generator refuses to put in a script.
type NameError struct {
	What string // "command", "flag", "enum value", ...
	Name string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("completion: unsafe %s name %q", e.What, e.Name)
}

// TagError reports an unknown `completion:"..."` tag value.
type TagError struct {
	Field string
	Value string
}

func (e *TagError) Error() string {
	return fmt.Sprintf("completion: %s: unknown %s tag %q (want file, dir, command, tool, none or a word list the program supplies)", e.Field, TagKey, e.Value)
}

// Option configures FromKong.
type Option func(*builder)

// WithWords names a fixed list of words (rule IDs, say) that a
// `completion:"NAME"` tag asks for: values known when the script is
// generated are completed from the script itself, without running the
// program at every TAB. A name must not be one of the Kinds.
func WithWords(name string, words []string) Option {
	return func(b *builder) { b.words[name] = words }
}

// builder carries FromKong's options through the walk.
type builder struct {
	words map[string][]string
}

// FromKong extracts the completion tree from kong's model. Hidden
// commands and flags are left out, as they are from --help.
func FromKong(app *kong.Application, opts ...Option) (*Command, error) {
	if app == nil || app.Node == nil {
		return nil, fmt.Errorf("completion: no kong application")
	}
	b := &builder{words: map[string][]string{}}
	for _, o := range opts {
		o(b)
	}
	for name, words := range b.words {
		switch Kind(name) {
		case KindFile, KindDir, KindCommand, KindTool, KindNone, KindEnum:
			return nil, &TagError{Field: "WithWords", Value: name}
		}
		for _, w := range words {
			if err := checkWord(w); err != nil {
				return nil, err
			}
		}
	}
	return b.fromNode(app.Node)
}

func (b *builder) fromNode(n *kong.Node) (*Command, error) {
	c := &Command{Name: n.Name, Help: oneLine(n.Help), Passthrough: n.Passthrough}
	if n.Type != kong.ApplicationNode {
		if err := checkName("command", n.Name); err != nil {
			return nil, err
		}
	}
	for _, a := range n.Aliases {
		if err := checkName("command alias", a); err != nil {
			return nil, err
		}
		c.Aliases = append(c.Aliases, a)
	}
	flags, err := b.fromFlags(n.Flags)
	if err != nil {
		return nil, err
	}
	c.Flags = flags
	if c.Args, err = b.fromPositionals(n.Positional); err != nil {
		return nil, err
	}
	if n.Type == kong.ArgumentNode && n.Argument != nil {
		c.Branch = true
		if c.BranchArg, err = b.valueOf(n.Argument, ""); err != nil {
			return nil, err
		}
	}
	for _, child := range n.Children {
		if child == nil || child.Hidden {
			continue
		}
		cc, err := b.fromNode(child)
		if err != nil {
			return nil, err
		}
		c.Commands = append(c.Commands, cc)
	}
	// A default:"withargs" subcommand takes its parent's words when no
	// other subcommand matches, so its flags and arguments are the
	// parent's too as far as typing goes.
	if d := n.DefaultCmd; d != nil && d.Tag != nil && d.Tag.Default == "withargs" {
		for _, cc := range c.Commands {
			if cc.Name != d.Name {
				continue
			}
			c.Flags = append(c.Flags, cc.Flags...)
			if len(c.Args) == 0 {
				c.Args = cc.Args
			}
		}
	}
	return c, nil
}

func (b *builder) fromFlags(in []*kong.Flag) ([]Flag, error) {
	var out []Flag
	for _, f := range in {
		if f == nil || f.Value == nil || f.Hidden {
			continue
		}
		if err := checkName("flag", f.Name); err != nil {
			return nil, err
		}
		fl := Flag{Name: f.Name, Short: f.Short, Help: oneLine(f.Help)}
		if f.Short != 0 && !safeShort(f.Short) {
			return nil, &NameError{What: "short flag", Name: string(f.Short)}
		}
		for _, a := range f.Aliases {
			if err := checkName("flag alias", a); err != nil {
				return nil, err
			}
			fl.Aliases = append(fl.Aliases, a)
		}
		takesValue := !isBool(f.Value) && !isCounter(f.Value)
		if !takesValue && f.Tag != nil && f.Tag.Negatable != "" {
			fl.Negation = "no-" + f.Name
			if f.Tag.Negatable != "_" {
				fl.Negation = f.Tag.Negatable
			}
			if err := checkName("negated flag", fl.Negation); err != nil {
				return nil, err
			}
		}
		if takesValue {
			v, err := b.valueOf(f.Value, f.PlaceHolder)
			if err != nil {
				return nil, err
			}
			fl.Value = &v
		}
		out = append(out, fl)
	}
	return out, nil
}

func (b *builder) fromPositionals(in []*kong.Positional) ([]Arg, error) {
	var out []Arg
	for _, p := range in {
		if p == nil {
			continue
		}
		v, err := b.valueOf(p, "")
		if err != nil {
			return nil, err
		}
		a := Arg{
			Name:        p.Name,
			Help:        oneLine(p.Help),
			Value:       v,
			Passthrough: p.Passthrough || p.PassthroughMode != kong.PassThroughModeNone,
		}
		a.Variadic = a.Passthrough || (p.Target.IsValid() && (p.IsSlice() || p.IsMap()))
		out = append(out, a)
	}
	return out, nil
}

func isBool(v *kong.Value) bool {
	return v.Target.IsValid() && v.IsBool()
}

func isCounter(v *kong.Value) bool {
	return v.Tag != nil && v.IsCounter()
}

// valueOf infers how a value is completed, from the most explicit hint to
// the least; see the package doc.
func (b *builder) valueOf(v *kong.Value, placeholder string) (Value, error) {
	if v.Tag != nil {
		if hint := v.Tag.Get(TagKey); hint != "" {
			switch k := Kind(hint); k {
			case KindFile, KindDir, KindCommand, KindTool, KindNone:
				return Value{Kind: k}, nil
			}
			if words, ok := b.words[hint]; ok {
				return Value{Kind: KindEnum, Enum: words}, nil
			}
			return Value{}, &TagError{Field: v.Name, Value: hint}
		}
	}
	if v.Enum != "" {
		var words []string
		for _, w := range v.EnumSlice() {
			if w == "" {
				continue
			}
			if err := checkWord(w); err != nil {
				return Value{}, err
			}
			words = append(words, w)
		}
		if len(words) > 0 {
			return Value{Kind: KindEnum, Enum: words}, nil
		}
	}
	if v.Tag != nil {
		switch v.Tag.Type {
		case "path":
			// A path may name either; the name says which is meant.
			if kindFromName(v.Name, placeholder) == KindDir {
				return Value{Kind: KindDir}, nil
			}
			return Value{Kind: KindFile}, nil
		case "existingfile", "filecontent":
			return Value{Kind: KindFile}, nil
		case "existingdir":
			return Value{Kind: KindDir}, nil
		}
	}
	if v.Target.IsValid() && isFileType(v.Target.Type()) {
		return Value{Kind: KindFile}, nil
	}
	if v.Passthrough || v.PassthroughMode != kong.PassThroughModeNone {
		return Value{Kind: KindCommand}, nil
	}
	return Value{Kind: kindFromName(v.Name, placeholder)}, nil
}

// isFileType reports a flag type kong reads a file into. (The types are
// looked up here, not in package-level variables: those are set at every
// jp-policy start.)
func isFileType(t reflect.Type) bool {
	switch t {
	case reflect.TypeFor[kong.FileContentFlag](), reflect.TypeFor[kong.NamedFileContentFlag](), reflect.TypeFor[*os.File]():
		return true
	}
	if t.Kind() == reflect.Slice && t.Elem() != reflect.TypeFor[byte]() {
		return isFileType(t.Elem())
	}
	return false
}

// kindFromName is the last resort: a flag called --workspace or a
// positional called <path> almost certainly wants a file name.
func kindFromName(name, placeholder string) Kind {
	words := strings.FieldsFunc(strings.ToLower(name+" "+placeholder), func(r rune) bool {
		return r == '-' || r == '_' || r == ' ' || r == '.'
	})
	kind := KindNone
	for _, w := range words {
		switch w {
		case "dir", "directory", "workspace", "root", "cwd":
			return KindDir
		case "path", "paths", "file", "files", "output", "out":
			kind = KindFile
		case "tool", "tools":
			if kind == KindNone {
				kind = KindTool
			}
		}
	}
	return kind
}

func checkName(what, name string) error {
	if !safeName().MatchString(name) {
		return &NameError{What: what, Name: name}
	}
	return nil
}

func safeShort(r rune) bool {
	return r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// checkWord accepts enum values the scripts can quote: printable, no
// whitespace (the shells would split them).
func checkWord(w string) error {
	for _, r := range w {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return &NameError{What: "enum value", Name: w}
		}
	}
	return nil
}

// oneLine folds help text to one line: descriptions are single-line in
// every shell's menu.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }), " ")
}
