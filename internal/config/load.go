package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/schema"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// Options says where to load from.
type Options struct {
	Workspace string              // "" = discover from Cwd
	Cwd       string              // "" = os.Getwd
	Getenv    func(string) string // nil = os.Getenv
	Cfg       []string            // --cfg files, applied left to right
	// Environ lists the variables scanned for JP_CFG_*; nil means the
	// names of os.Environ, with values read through Getenv.
	Environ func() []string
	// Conversation names a stored conversation (jp-c<id>) whose config is
	// merged as JP merges it when the conversation is continued: after the
	// env layer, before --cfg (conversation.go).
	Conversation string
}

// Load reads every layer in JP's order, merges them and validates each
// layer and the result. The error is for fatal problems only: a diag.List
// for a file that cannot be read or parsed, an extends cycle or an
// unsupported extension, or *jpdirs.NoWorkspaceError. Schema violations and
// warnings are in Loaded.Diagnostics. On a fatal error the returned
// Loaded holds what was read up to that point.
func Load(opts Options) (*Loaded, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	cwd := opts.Cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		cwd = wd
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	root, err := workspaceRoot(opts.Workspace, cwd)
	if err != nil {
		return nil, err
	}
	l := &Loaded{Root: root, Cwd: cwd, Files: map[string][]byte{}, Env: map[string]string{}, Tools: map[string]*Tool{}}
	ld := &loader{l: l, m: newMerger(l), inherit: true}
	if err := ld.layers(opts, getenv); err != nil {
		ld.flush()
		return l, err
	}
	ld.flush()
	l.Diagnostics = append(l.Diagnostics, checkMerged(l)...)
	return l, nil
}

// layers reads every layer in order.
func (ld *loader) layers(opts Options, getenv func(string) string) error {
	root, cwd := ld.l.Root, ld.l.Cwd

	ld.globalDir, ld.globalErr = globalConfigDir(opts.Environ, getenv, cwd)
	if dir, err := ld.globalDir, ld.globalErr; err == nil {
		if err := ld.discovered(LayerGlobal, filepath.Join(dir, "config.toml"), ld.inherit); err != nil {
			return err
		}
	}
	if err := ld.discovered(LayerWorkspace, filepath.Join(root, ".jp", "config.toml"), ld.inherit); err != nil {
		return err
	}
	// JP merges every .jp.toml from the working directory up to the
	// workspace found from the working directory, or up to the file system
	// root when the working directory is in no workspace (with --workspace
	// elsewhere), into one layer (load_partial_at_path_recursive with
	// Workspace::find_root(cwd)), and looks at inherit only between layers
	// (load_partials_with_inheritance): an inherit = false inside the chain
	// skips none of the deeper files, and a deeper inherit = true turns the
	// next layer back on.
	chain := ld.inherit
	for _, dir := range jpdirs.DirsDown(dotJPTop(cwd), cwd) {
		if err := ld.discovered(LayerDotJP, filepath.Join(dir, ".jp.toml"), chain); err != nil {
			return err
		}
	}
	if dir, err := jpdirs.UserWorkspaceDir(root, getenv); err == nil {
		ld.userDir = dir
		if err := ld.userWorkspaceLayer(dir); err != nil {
			return err
		}
	} else {
		var idErr *jpdirs.InvalidIDError
		var noHome *jpdirs.NoHomeError
		switch {
		case errors.As(err, &idErr):
			ld.emit(diag.Diagnostic{Pos: diag.Position{File: idErr.Path}, Severity: diag.Warning,
				Message: idErr.Reason + ", so JP does not use it: it starts with a new id and an empty user-workspace directory, and rewrites .jp/.id; no user-workspace config is read",
				Help:    "JP's workspace id is the last line of .jp/.id, exactly 5 characters from 0-9 and a-z, with no blank line after it; JP rewrites the file with a new id when it next runs"})
		case errors.Is(err, fs.ErrNotExist), errors.As(err, &noHome):
			// No .jp/.id (JP has not run here yet) or no home: no layer.
		default:
			return fatal(diag.Position{File: filepath.Join(root, ".jp", ".id")}, "", "cannot locate the user-workspace config: %v", err)
		}
	}
	if err := ld.envLayer(opts.Environ, getenv); err != nil {
		return err
	}
	if opts.Conversation != "" {
		if err := ld.conversationLayer(opts.Conversation); err != nil {
			return err
		}
	}
	for _, c := range opts.Cfg {
		if err := ld.cfgArg(c, cwd, getenv); err != nil {
			return err
		}
	}
	return nil
}

func workspaceRoot(ws, cwd string) (string, error) {
	if ws == "" {
		return jpdirs.FindRoot(cwd)
	}
	if !filepath.IsAbs(ws) {
		ws = filepath.Join(cwd, ws)
	}
	ws = filepath.Clean(ws)
	fi, err := os.Stat(ws)
	if err != nil {
		return "", fmt.Errorf("workspace: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory", ws)
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	return ws, nil
}

// globalConfigDir is JP's user_global_config_dir. JP reads
// JP_GLOBAL_CONFIG_DIR with env::var, so a variable set to "" is not
// unset: the empty path is cleaned to ".", and JP reads config.toml in its
// working directory as the global config (and searches --cfg NAME under
// ./config). Otherwise it is jpdirs.GlobalConfigDir.
func globalConfigDir(environ func() []string, getenv func(string) string, cwd string) (string, error) {
	const name = "JP_GLOBAL_CONFIG_DIR"
	set := false
	if environ == nil {
		_, set = os.LookupEnv(name)
	} else {
		for _, kv := range environ() {
			if n, _, _ := strings.Cut(kv, "="); n == name {
				set = true
			}
		}
	}
	if set && getenv(name) == "" {
		return cwd, nil
	}
	return jpdirs.GlobalConfigDir(getenv)
}

// dotJPTop is the shallowest directory whose .jp.toml JP reads: the
// workspace found from the working directory, else the file system root.
func dotJPTop(cwd string) string {
	if root, err := jpdirs.FindRoot(cwd); err == nil {
		return root
	}
	return filepath.VolumeName(cwd) + string(filepath.Separator)
}

// maxExtendsDepth bounds extends chains at JP's MAX_EXTENDS_DEPTH
// (u8::MAX, jp_config util.rs): a chain JP loads loads here too, and a
// generated chain of distinct files cannot recurse without end.
const maxExtendsDepth = 255

// maxFileSize bounds a config file: JP's own workspace config is a few
// hundred KiB, and a stray multi-gigabyte file must not exhaust memory.
const maxFileSize = 32 << 20

type loader struct {
	l       *Loaded
	m       *merger
	inherit bool
	// loadPaths is config_load_paths appended across the file and env
	// layers, for --cfg NAME; userDir is the user-workspace directory,
	// one of the roots NAME is searched under.
	loadPaths []string
	userDir   string
	// globalDir is JP's user-global config directory (globalConfigDir).
	globalDir string
	globalErr error
	// pending holds the findings in layer order until flush.
	pending diag.List
	// realDirs caches resolved directories for realPath.
	realDirs map[string]string
}

func (ld *loader) emit(ds ...diag.Diagnostic) {
	ld.pending = append(ld.pending, ds...)
}

// emitValidation validates a layer. It runs inline: validation is cheap
// (BenchmarkValidate), and a goroutine per layer costs more than it
// saves: its stack grows, each new page is memory touched for the first
// time, and on small machines the other core is rarely idle
// (docs/lint.md).
func (ld *loader) emitValidation(root *tomlpos.Node) {
	ld.pending = append(ld.pending, schema.Validate(root)...)
}

// flush appends the pending findings.
func (ld *loader) flush() {
	ld.l.Diagnostics = append(ld.l.Diagnostics, ld.pending...)
	ld.pending = nil
}

// discovered loads a layer found by convention: like JP, when path
// (a .toml file) is absent the same name with another extension is
// tried. Absent files become staleness candidates; a file is skipped when
// inherit, the inherit in force where its layer starts, is false.
func (ld *loader) discovered(kind LayerKind, path string, inherit bool) error {
	base := strings.TrimSuffix(path, filepath.Ext(path))
	names := make([]string, len(jpdirs.Extensions))
	for i, ext := range jpdirs.Extensions {
		names[i] = base + ext
	}
	return ld.discoveredAt(kind, names, names, inherit)
}

// discoveredAt is discovered with the paths to read given apart from the
// names JP looks for (the user-workspace layer can read a sibling silo's
// file under the chosen silo's name).
func (ld *loader) discoveredAt(kind LayerKind, names, paths []string, inherit bool) error {
	for _, p := range paths {
		fi, err := os.Stat(p)
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			// A config file we cannot even look at may hold narrowing
			// rules: fail closed rather than treat it as absent.
			return fatal(diag.Position{File: p}, "", "cannot read config file: %v", err)
		case err != nil || fi.IsDir():
			continue
		}
		if !inherit {
			ld.l.Skipped = append(ld.l.Skipped, p)
			return nil
		}
		return ld.file(kind, p, "", diag.Position{File: p}, nil)
	}
	ld.l.Candidates = append(ld.l.Candidates, names...)
	return nil
}

// userWorkspaceLayer loads the user-workspace config from dir, the silo
// jpdirs.UserWorkspaceDir chose. At every start, before it reads any
// config, JP merges the workspace's other silos (directories named <id>
// or ending in -<id>) into the chosen one (jp_storage
// merge_sibling_user_dirs): each entry the chosen silo lacks is moved in
// from a sibling, then the sibling is removed. So a config file that only
// a sibling holds is the one JP reads. With one such sibling jp-policy
// reads that file; with several JP's pick depends on the order the file
// system lists them, and the load is refused.
func (ld *loader) userWorkspaceLayer(dir string) error {
	names := make([]string, len(jpdirs.Extensions))
	paths := make([]string, len(jpdirs.Extensions))
	siblings := ld.siblingSilos(dir)
	for i, ext := range jpdirs.Extensions {
		names[i] = filepath.Join(dir, "config"+ext)
		paths[i] = names[i]
		if _, err := os.Stat(names[i]); err == nil || len(siblings) == 0 {
			continue // JP moves nothing over an existing entry
		}
		var from []string
		for _, sib := range siblings {
			if _, err := os.Lstat(filepath.Join(sib, "config"+ext)); err == nil {
				from = append(from, filepath.Join(sib, "config"+ext))
			}
		}
		switch len(from) {
		case 0:
		case 1:
			paths[i] = from[0]
			ld.emit(diag.Diagnostic{Pos: diag.Position{File: from[0]}, Severity: diag.Warning,
				Message: fmt.Sprintf("JP moves %s into the user-workspace directory %s when it next starts (it merges the workspace's sibling directories into the one it uses) and reads it there; it is read here from where it is now", from[0], dir),
				Help:    "run jp once in the workspace to complete the move, or merge the two directories yourself"})
		default:
			return fatal(diag.Position{File: names[i]}, "", "user-workspace config: %s is absent and several sibling directories of this workspace hold one (%s); JP moves whichever the file system lists first, so which one it reads cannot be known", filepath.Base(names[i]), strings.Join(from, ", "))
		}
	}
	// A sibling's files are inputs too: the policy changes with them.
	for _, sib := range siblings {
		for _, ext := range jpdirs.Extensions {
			if p := filepath.Join(sib, "config"+ext); !slices.Contains(paths, p) {
				ld.l.Candidates = append(ld.l.Candidates, p)
			}
		}
	}
	return ld.discoveredAt(LayerUserWorkspace, names, paths, ld.inherit)
}

// siblingSilos lists the other user-workspace directories of this
// workspace, as jp_storage's matching_user_dirs finds them.
func (ld *loader) siblingSilos(dir string) []string {
	id, err := jpdirs.WorkspaceID(ld.l.Root)
	if err != nil {
		return nil
	}
	base := filepath.Dir(dir)
	entries, err := os.ReadDir(base)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if n == filepath.Base(dir) || !utf8.ValidString(n) || n != id && !strings.HasSuffix(n, "-"+id) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(base, n)); err == nil && fi.IsDir() {
			out = append(out, filepath.Join(base, n))
		}
	}
	return out
}

// realPath is filepath.EvalSymlinks(path), or path when that fails, for
// extends cycle detection. The files of a workspace share a few
// directories: each directory is resolved once per load, then a file that
// is not itself a symlink is that directory plus its name, one lstat
// instead of one per component of the path (JP's ~100-file config: ~800).
func (ld *loader) realPath(path string) string {
	dir, base := filepath.Split(path)
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink == 0 && base != ".." && filepath.IsAbs(path) {
		dir = filepath.Clean(dir)
		real, ok := ld.realDirs[dir]
		if !ok {
			real = ""
			if r, err := filepath.EvalSymlinks(dir); err == nil {
				real = r
			}
			if ld.realDirs == nil {
				ld.realDirs = map[string]string{}
			}
			ld.realDirs[dir] = real
		}
		if real != "" {
			return filepath.Join(real, base)
		}
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

func fatal(pos diag.Position, rule, format string, args ...any) error {
	return diag.List{{Pos: pos, Severity: diag.Error, Rule: rule, Message: fmt.Sprintf(format, args...)}}
}

// file loads one file with its extends. at is where the file was named
// (an extends entry, a --cfg flag, or the file itself), for errors.
//
// The file and everything it extends are read first, then merged: JP
// drops the whole layer when a glob match in its extends tree is not a
// file and has no config file beside it (load_config_file_at_path
// returns MissingFile, which load_partial_at_path reads as "no such
// layer"), so nothing of it may be merged before the tree is known.
func (ld *loader) file(kind LayerKind, path, extendedBy string, at diag.Position, stack []string) error {
	mark := len(ld.pending)
	var files []pendingFile
	err := ld.collect(kind, path, extendedBy, at, stack, &files)
	if dropped, ok := errors.AsType[*droppedLayerError](err); ok {
		ld.pending = ld.pending[:mark]
		ld.emit(dropped.diagnostic(path, ld.show))
		// The layer comes back when one of the names JP tried appears.
		ld.l.Candidates = append(ld.l.Candidates, dropped.tried[1:]...)
		return nil
	}
	if err != nil {
		return err
	}
	for _, f := range files {
		ld.applyFile(f)
	}
	return nil
}

// pendingFile is a file read and parsed, waiting to be merged.
type pendingFile struct {
	kind             LayerKind
	path, extendedBy string
	root             *tomlpos.Node
}

// droppedLayerError: a glob match in an extends tree that JP cannot load
// (no file by any of JP's names), so JP drops the whole layer.
type droppedLayerError struct {
	at      diag.Position
	pattern string
	match   string
	tried   []string
}

func (e *droppedLayerError) Error() string {
	return fmt.Sprintf("extends pattern %q matched %s, which is not a file", e.pattern, e.match)
}

func (e *droppedLayerError) diagnostic(layer string, show func(string) string) diag.Diagnostic {
	instead := "JP has no other name to try for it"
	if len(e.tried) > 1 {
		names := make([]string, len(e.tried)-1)
		for i, t := range e.tried[1:] {
			names[i] = show(t)
		}
		instead = "none of " + strings.Join(names, ", ") + " exists in its place"
	}
	return diag.Diagnostic{Pos: e.at, Severity: diag.Error, Rule: RuleDroppedLayer,
		Message: fmt.Sprintf("JP ignores %s and everything it extends: extends pattern %q matched %s, which is not a file, and %s", show(layer), e.pattern, show(e.match), instead),
		Help:    globFileHelp}
}

const globFileHelp = "write a pattern that matches config files only (for example \"dir/*.toml\" rather than \"dir/*\" or \"dir/.*\"), or remove what it matched"

// show is p relative to the working directory when it lies below it,
// without cleaning it ("conf.d/.." stays as JP's glob yielded it).
func (ld *loader) show(p string) string {
	if rest, ok := strings.CutPrefix(p, ld.l.Cwd+string(filepath.Separator)); ok && ld.l.Cwd != "" {
		return rest
	}
	return p
}

// collect reads path and its extends tree into files, in merge order.
func (ld *loader) collect(kind LayerKind, path, extendedBy string, at diag.Position, stack []string, files *[]pendingFile) error {
	path = filepath.Clean(path)
	canon := ld.realPath(path)
	if i := slices.Index(stack, canon); i >= 0 {
		chain := append(slices.Clone(stack[i:]), canon)
		return fatal(at, RuleCycle, "extends cycle: %s", strings.Join(chain, " -> "))
	}
	if len(stack) >= maxExtendsDepth {
		return fatal(at, RuleCycle, "extends nested deeper than %d files: %s", maxExtendsDepth, strings.Join(append(slices.Clone(stack), canon), " -> "))
	}
	// The extension picks the format exactly as JP's loader (schematic)
	// does: case-sensitively (`x.TOML` is no format to JP, so it refuses
	// the file), and `.jsonc` is JSON.
	var parse func(string, []byte) (*tomlpos.Node, error)
	isJSON := false
	switch filepath.Ext(path) {
	case ".toml":
		parse = tomlpos.ParseTOML
	case ".json", ".jsonc":
		parse, isJSON = tomlpos.ParseJSON, true
	default:
		return fatal(at, RuleExtension, "%s: unsupported config file extension %q (only .toml, .json and .jsonc are read, with the extension in lower case as JP wants it)", path, filepath.Ext(path))
	}
	// Only a regular file (jpdirs.OpenRegular): a FIFO or /dev/zero
	// planted where a layer may appear blocked or never ended, and every
	// later compile and exec with it.
	f, fi, err := jpdirs.OpenRegular(path)
	if err != nil {
		return fatal(at, "", "cannot read config file: %v", err)
	}
	defer f.Close()
	if fi.Size() > maxFileSize {
		return fatal(diag.Position{File: path}, "", "config file is larger than %d MiB; refusing to read it", maxFileSize>>20)
	}
	data, err := jpdirs.ReadAll(f, fi.Size())
	if err != nil {
		return fatal(at, "", "cannot read config file: %v", err)
	}
	ld.l.Files[path] = data
	var root *tomlpos.Node
	if isJSON && len(data) == tomlpos.SkipBOMs(data) {
		// JP's loader (schematic) reads an empty JSON layer as {} (after
		// trimming byte order marks).
		root = tomlpos.NewTable(diag.Position{File: path, Line: 1, Col: 1})
	} else {
		root, err = parse(path, data)
	}
	if err != nil {
		if se, ok := errors.AsType[*tomlpos.SyntaxError](err); ok {
			if isJSON {
				if help := jsonDialectHelp(data, se.Pos); help != "" {
					return diag.List{{Pos: se.Pos, Severity: diag.Error, Rule: RuleSyntax, Message: se.Message, Help: help}}
				}
			}
			return fatal(se.Pos, RuleSyntax, "%s", se.Message)
		}
		return fatal(diag.Position{File: path}, RuleSyntax, "%v", err)
	}
	stack = append(stack, canon)
	before, after, err := ld.extends(path, root)
	if err != nil {
		return err
	}
	if err := ld.collectAll(kind, path, before, stack, files); err != nil {
		return err
	}
	*files = append(*files, pendingFile{kind: kind, path: path, extendedBy: extendedBy, root: root})
	return ld.collectAll(kind, path, after, stack, files)
}

// collectAll collects the extends targets of path, in order.
func (ld *loader) collectAll(kind LayerKind, path string, targets []extendTarget, stack []string, files *[]pendingFile) error {
	for _, e := range targets {
		p := e.path
		if e.glob {
			f, tried, ok := resolveMatch(p)
			if !ok {
				return &droppedLayerError{at: e.at, pattern: e.pattern, match: p, tried: tried}
			}
			if f != p {
				ld.emit(diag.Diagnostic{Pos: e.at, Severity: diag.Error, Rule: RuleDroppedLayer,
					Message: fmt.Sprintf("extends pattern %q matched %s, which is not a file, so JP loads %s in its place", e.pattern, ld.show(p), ld.show(f)),
					Help:    globFileHelp})
			}
			p = f
		}
		if err := ld.collect(kind, p, path, e.at, stack, files); err != nil {
			return err
		}
	}
	return nil
}

// applyFile merges one collected file.
func (ld *loader) applyFile(f pendingFile) {
	kind, path, root := f.kind, f.path, f.root
	ld.l.Layers = append(ld.l.Layers, Layer{Kind: kind, Path: path, ExtendedBy: f.extendedBy})
	ld.emitValidation(root)
	ld.m.apply(root)
	if n := root.Get("inherit"); n != nil && n.Kind == tomlpos.Bool {
		ld.inherit = n.Bool
	}
	// JP appends config_load_paths across layers (merge = append_vec) and
	// searches with the files and env layers only: a --cfg file's own
	// config_load_paths does not steer a later --cfg NAME.
	if n := root.Get("config_load_paths"); n != nil && n.Kind == tomlpos.Array && kind != LayerCfg {
		for _, it := range n.Items {
			if it.Kind == tomlpos.String {
				ld.loadPaths = append(ld.loadPaths, it.Str)
			}
		}
	}
}

// jsonDialectHelp explains a JSON syntax error at pos that JP would not
// have: JP's loader (schematic) passes JSON layers through
// json-strip-comments before serde_json, so `//`, `/* */` and `#`
// comments and a comma before `}` or `]` are read by JP. jp-policy reads
// strict JSON: such a layer is refused (never read with a guess at what the
// stripper would have kept), and the help says why and what to do.
func jsonDialectHelp(data []byte, pos diag.Position) string {
	off, ok := tomlpos.Offset(data, pos.Line, pos.Col)
	if !ok || off >= len(data) {
		return ""
	}
	const tail = "; jp-policy reads JSON layers as strict JSON and refuses the file rather than guess: remove it, or write this layer in TOML"
	switch data[off] {
	case '/', '#':
		return "JP reads comments in JSON layers (its loader strips them)" + tail
	case '}', ']':
		i := off - 1
		for i >= 0 && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
			i--
		}
		if i >= 0 && data[i] == ',' {
			return "JP reads a trailing comma in JSON layers (its loader strips it)" + tail
		}
	}
	return ""
}

// checkMerged validates what only the merged result can show.
func checkMerged(l *Loaded) diag.List {
	var out diag.List
	for _, n := range slices.Sorted(maps.Keys(l.Tools)) {
		t := l.Tools[n]
		if !t.Source.Set {
			out = append(out, diag.Diagnostic{Pos: t.Pos, Severity: diag.Error, Rule: RuleSchema,
				Message: fmt.Sprintf("conversation.tools.%s: no layer sets the required key \"source\"", n),
				Help:    `add source = "local" (or builtin / mcp.<server>) to one layer`})
		}
	}
	return out
}
