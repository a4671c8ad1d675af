package launcher

import (
	"os"
	"strings"

	"github.com/jp-policy/jp-policy/internal/denyhint"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
	"github.com/jp-policy/jp-policy/internal/scratchhome"
)

// exitHints are the lines that explain a failed run (package denyhint),
// from the plan p ran under and environ, the launcher's own environment;
// nil when the run succeeded.
func (p *Plan) exitHints(code int, environ []string) []string {
	if code == 0 || p.Manifest == nil {
		return nil
	}
	f := denyhint.Facts{
		Tool: p.Tool, Argv: p.Argv, Program: p.Path,
		Namespaced: p.Namespaced, Proxied: p.proxied(),
		Home: scratchhome.Home(environ), Root: p.Manifest.Root,
		Exists: func(path string) bool { _, err := os.Stat(path); return err == nil },
	}
	for _, r := range p.NetRules {
		if r.Allow {
			f.NetRules++
		}
	}
	for _, r := range p.Manifest.FS {
		got, _ := landlock.ParseRights(r.Access)
		f.Grants = append(f.Grants, denyhint.Grant{
			Path:    r.Path,
			Read:    got&(landlock.RReadFile|landlock.RReadDir) != 0,
			Write:   got&landlock.RWriteFile != 0,
			Execute: got&landlock.RExecute != 0,
		})
	}
	passed := map[string]bool{}
	for _, kv := range p.Env {
		name, _, _ := strings.Cut(kv, "=")
		passed[name] = true
	}
	for _, kv := range environ {
		if name, _, ok := strings.Cut(kv, "="); ok && name != "" && !passed[name] {
			f.Dropped = append(f.Dropped, name)
		}
	}
	return denyhint.Hints(f)
}
