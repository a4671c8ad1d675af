package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// --cfg arguments, read as JP's KeyValueOrPath (jp_cli lib.rs) reads them:
//
//	@PATH        always a path
//	{...}        a JSON object assigned at the config root
//	NAME         (no '=') a path, else a name searched in config_load_paths
//	KEY=VALUE    an assignment; KEY:=JSON assigns JSON, KEY+=VALUE merges
//
// Assignments are applied to the config built so far, as JP's
// apply_cfg_args does: a list is replaced, or with '+' extended.

// cfgArg applies one --cfg argument.
func (ld *loader) cfgArg(arg, cwd string, getenv func(string) string) error {
	switch {
	case strings.HasPrefix(arg, "@"):
		return ld.cfgPath(strings.TrimSpace(arg[1:]), arg, cwd, getenv)
	case strings.HasPrefix(arg, "{"):
		return ld.cfgAssign(arg, "--cfg", "", true, false, 1, arg)
	case !strings.Contains(arg, "="):
		return ld.cfgPath(strings.TrimSpace(arg), arg, cwd, getenv)
	}
	key, raw, merge, col, val, ok := splitCfgKV(arg)
	if !ok {
		return fatal(diag.Position{File: "--cfg", Line: 1, Col: 1}, RuleSchema, "--cfg %s: no key before '='", arg)
	}
	return ld.cfgAssign(arg, "--cfg "+key, key, raw, merge, col, val)
}

// splitCfgKV splits KEY[+][:]=VALUE as JP's try_from_cli does: a
// trailing ':' (JSON) and '+' (merge) are stripped from the key, each
// once, in either order. col is where the value starts in arg.
func splitCfgKV(arg string) (key string, raw, merge bool, col int, val string, ok bool) {
	key, val, found := strings.Cut(arg, "=")
	if !found {
		return "", false, false, 0, "", false
	}
	col = len(key) + 2
	for key != "" {
		switch {
		case !raw && strings.HasSuffix(key, ":"):
			raw = true
		case !merge && strings.HasSuffix(key, "+"):
			merge = true
		default:
			return key, raw, merge, col, val, true
		}
		key = key[:len(key)-1]
	}
	return "", raw, merge, col, val, false
}

// cfgAssign applies a KEY=VALUE (or root JSON) assignment as a layer.
func (ld *loader) cfgAssign(arg, file, key string, raw, merge bool, col int, val string) error {
	entries, err := assignKV(file, key, ".", raw, merge, col, val)
	if err != nil {
		return err
	}
	root := tomlpos.NewTable(diag.Position{File: file, Line: 1, Col: 1})
	used := false
	var seen []assigned
	for _, e := range entries {
		if e.tool == "" {
			// config_load_paths: JP sets it, but names given to --cfg are
			// searched in the files' and variables' (resolve_cfg_args
			// reads the base config), and it grants nothing.
			continue
		}
		if e.v == nil {
			if e.key[0] == "access" {
				ld.emit(diag.Diagnostic{Pos: diag.Position{File: file, Line: 1, Col: 1}, Severity: diag.Warning,
					Message: fmt.Sprintf("unsupported key %q in --cfg %s; ignored", strings.Join(e.key, "."), arg),
					Help:    "set access rules through --cfg as a whole file (--cfg FILE) or one rule list, as docs/config.md#--cfg shows"})
			}
			continue
		}
		var err error
		if seen, err = checkOverlap(seen, "--cfg "+arg, e, diag.Position{File: file, Line: 1, Col: 1}); err != nil {
			return err
		}
		if e.list && !e.merge {
			// Assigned onto the config so far without '+': the list is
			// replaced (KvAssignment::try_vec sets it).
			pos := e.v.Pos
			t := tomlpos.NewTable(pos)
			t.KeyPos = pos
			t.Set("strategy", &tomlpos.Node{Kind: tomlpos.String, Pos: pos, KeyPos: pos, Str: strategyReplace})
			t.Set("value", e.v)
			e = envAssign{tool: e.tool, key: e.key, v: t}
		}
		envSet(root, file, append([]string{"conversation", "tools", e.tool}, e.key...), e)
		used = true
	}
	if !used {
		return nil
	}
	ld.l.Layers = append(ld.l.Layers, Layer{Kind: LayerCfg, Path: file})
	ld.emitValidation(root)
	ld.m.assigning = true
	ld.m.apply(root)
	ld.m.assigning = false
	return nil
}

// cfgPath loads a --cfg path: the file itself when it exists relative to
// the working directory, else, like JP's resolve_cfg_args, the first
// match in config_load_paths under each of three roots, lowest first:
// <global config dir>/config, the workspace root and
// <user-workspace dir>/config. Every root's match is loaded.
func (ld *loader) cfgPath(path, arg, cwd string, getenv func(string) string) error {
	at := diag.Position{File: arg}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	if fi, err := os.Stat(p); err == nil {
		if fi.IsDir() {
			return fatal(at, "", "--cfg %s: is a directory, not a config file", arg)
		}
		return ld.file(LayerCfg, p, "", at, nil)
	}
	// Every name looked at before a match, absent now, is a candidate: a
	// file a tool creates at one (the path in the working directory, an
	// earlier load path or extension) is what JP loads next instead, and
	// the artifact must go stale (attack_config_cfg_shadow.txtar).
	ld.cfgCandidate(p)
	var roots, searched []string
	if dir, err := ld.globalDir, ld.globalErr; err == nil {
		roots = append(roots, filepath.Join(dir, "config"))
	}
	roots = append(roots, ld.l.Root)
	if ld.userDir != "" {
		roots = append(roots, filepath.Join(ld.userDir, "config"))
	}
	var matches []string
	if !filepath.IsAbs(path) && !strings.HasPrefix(path, "/") {
		for _, r := range roots {
			for _, lp := range ld.loadPaths {
				dir := filepath.Join(r, filepath.FromSlash(strings.TrimLeft(lp, "/")))
				searched = append(searched, dir)
				if m := ld.findInLoadPath(dir, path); m != "" {
					matches = append(matches, m)
					break // the first load path with a match wins within a root
				}
			}
		}
	}
	if len(matches) == 0 {
		msg := fmt.Sprintf("--cfg %s: no such file in the working directory", arg)
		if len(searched) > 0 {
			msg += " or in config_load_paths (searched " + strings.Join(searched, ", ") + ")"
		} else {
			msg += ", and no layer sets config_load_paths"
		}
		return diag.List{{Pos: at, Severity: diag.Error, Message: msg,
			Help: "give a path to an existing file, or the name of a file in a directory listed in config_load_paths"}}
	}
	for _, m := range matches {
		if err := ld.file(LayerCfg, m, "", at, nil); err != nil {
			return err
		}
	}
	return nil
}

// findInLoadPath is JP's find_file_in_load_path: dir/name when it is a
// file, else dir/name with its extension replaced by each of JP's config
// extensions in turn (Rust's with_extension: "dev" -> "dev.toml",
// "dev.local" -> "dev.toml").
// Each name tried before the match is a candidate (cfgCandidate).
func (ld *loader) findInLoadPath(dir, name string) string {
	// rustExtensionCandidates is with_extension as Rust defines it: a
	// name that only starts with a dot has no extension (".dev" ->
	// ".dev.toml", where filepath.Ext would cut the whole name).
	for _, c := range rustExtensionCandidates(filepath.Join(dir, filepath.FromSlash(name)), jpdirs.Extensions) {
		if isFile(c) {
			return c
		}
		ld.cfgCandidate(c)
	}
	return ""
}

// cfgCandidate records p as a candidate when nothing is there.
func (ld *loader) cfgCandidate(p string) {
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) && !slices.Contains(ld.l.Candidates, p) {
		ld.l.Candidates = append(ld.l.Candidates, p)
	}
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}
