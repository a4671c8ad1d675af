package sbpl

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/plan"
	sbplan "github.com/jp-policy/jp-policy/internal/plan/sbpl"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/emit/internal/emittest"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Precedents for the vocabulary: profiles that load and run on current
// macOS. A name the sandbox does not know makes sandbox-exec refuse the
// whole profile ("unbound variable", "unknown operation"), and nothing can
// check that here, so every name the emitter writes must be one a working
// profile already uses.
const (
	vCodex     = "Codex seatbelt_base_policy.sbpl"
	vCodexPlat = "Codex seatbelt_platform_defaults.sbpl (Apple's system.sb)"
	vCodexNet  = "Codex seatbelt_network_policy.sbpl"
	vChromium  = "Chromium sandbox/policy/mac/common.sb"
	vApple     = "Apple's platform profiles (decompiled in blacktop/ipsw-diffs)"
	vMacPorts  = "MacPorts portsandbox.tcl"
	vMozilla   = "Mozilla SandboxPolicyPGO.h"
	vSrt       = "anthropic-experimental/sandbox-runtime macos-sandbox-utils.ts"
	vNono      = "nolabs-ai/nono sandbox/macos.rs"
)

// vocabulary is every operation, filter and modifier the emitter may
// write, each with a profile that uses it. TestVocabulary fails on a name
// that is not here, and on a name here the emitter no longer writes.
var vocabulary = map[string]map[string]string{
	"operation": {
		"process-fork":         vCodex,
		"process-info*":        vCodex,
		"signal":               vCodex,
		"sysctl-read":          vCodex,
		"sysctl-write":         vCodex,
		"mach-host*":           vCodex,
		"ipc-posix-sem":        vCodex,
		"user-preference-read": vCodex + ", " + vChromium,
		"mach-lookup":          vCodex + ", " + vChromium,
		"file-read*":           vCodex + ", " + vChromium,
		"file-read-data":       vChromium,
		"file-read-metadata":   vChromium,
		"file-write*":          vCodexPlat,
		"file-write-data":      vCodex,
		"file-write-create":    vApple + ", " + vMozilla,
		"file-write-times":     vApple,
		"file-write-mode":      vMacPorts,
		"file-write-xattr":     vApple,
		"file-write-flags":     vApple,
		"file-write-unlink":    vChromium,
		"file-map-executable":  vCodexPlat + ", " + vChromium,
		"file-ioctl":           vCodex + ", " + vChromium,
		"process-exec":         vCodex + ", " + vChromium,
		"network-outbound":     vCodexNet + ", " + vChromium,
		"network*":             vNono,
		"default":              vCodex + " ((deny default))",
	},
	"filter": {
		"literal":            vCodexPlat,
		"subpath":            vCodexPlat + ", " + vChromium,
		"regex":              vCodex,
		"require-all":        vCodex,
		"require-not":        vCodex + " (the subpath exclusions of its writable roots)",
		"target":             vCodex,
		"sysctl-name":        vCodex + ", " + vChromium,
		"sysctl-name-prefix": vCodex + ", " + vChromium,
		"global-name":        vCodex + ", " + vChromium,
		"ioctl-command":      vApple + " (with a number: openai/codex#45119 shows the symbol unbound on macOS 14)",
		"remote":             vCodex + " (its proxy ports), " + vNono,
	},
	"function": {
		"param":         vChromium + ", " + vCodex + " (writable roots as -D parameters)",
		"string-append": vChromium,
	},
	"modifier": {
		"same-sandbox": vCodex,
		"tcp":          vNono + " ((remote tcp \"localhost:PORT\"))",
		"unix-socket":  vSrt + " ((remote unix-socket))",
	},
}

// profileParams are the parameters a profile may use; the launcher
// defines each (launcher.SandboxExecArgv).
var profileParams = []string{sbplan.ProgramParam, sbplan.ProgramRealParam, sbplan.ProxyPortParam, sbplan.TmpDirParam}

// everyProfile builds the shared scenarios' profiles and one that uses
// every capability combination, a partial write, an external rule, net
// rules, a developer directory with odd characters and a home: together
// they reach every branch of the emitter.
func everyProfile(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	for _, sc := range emittest.Scenarios(t) {
		prof, _, err := Build(sc.Tool)
		if err != nil {
			t.Fatal(err)
		}
		out[sc.Name] = prof
	}
	tool := emit.Tool{Name: "all", Root: "/ws", DeveloperDir: `/Apps/X "dev"\D`, Home: "/Users/ü"}
	yes, no := true, false
	for c := range 32 {
		r := policy.FsRule{LexicalPath: fmt.Sprintf("d%02d", c)}
		for k, pp := range []**bool{&r.Read, &r.Create, &r.Update, &r.Delete, &r.Execute} {
			if c&(1<<k) != 0 {
				*pp = &yes
			} else {
				*pp = &no
			}
		}
		tool.Access.FS = append(tool.Access.FS, r)
		tool.Grants = append(tool.Grants, plan.Grant{Index: c, Abs: "/ws/" + r.LexicalPath, Kind: plan.KindDir})
	}
	tool.Access.FS = append(tool.Access.FS, policy.FsRule{LexicalPath: "d31/f", Read: &yes}, policy.FsRule{LexicalPath: "ext", External: true, Read: &yes})
	tool.Grants = append(tool.Grants, plan.Grant{Index: 32, Abs: "/ws/d31/f", Kind: plan.KindFile}, plan.Grant{Index: 33, Abs: "/ext/t", Link: "/ws/ext", Kind: plan.KindDir})
	port := uint16(443)
	tool.Access.Net = []policy.NetRule{{Host: "example.com", Port: &port, Allow: true}, {Host: "evil.example.com", Port: &port}}
	prof, _, err := Build(tool)
	if err != nil {
		t.Fatal(err)
	}
	out["all"] = prof
	return out
}

// TestVocabulary: every operation, filter, function and modifier any
// profile uses is on the vocabulary list with its precedent, every entry
// of the list is used, ioctl commands are numbers, and only the
// documented parameters appear. File reads, writes and exec are never
// denied (the emitter carves with require-not instead), which the
// evaluator in eval_test.go relies on.
func TestVocabulary(t *testing.T) {
	seen := map[string]map[string]bool{}
	for kind := range vocabulary {
		seen[kind] = map[string]bool{}
	}
	use := func(t *testing.T, kind, name string) {
		t.Helper()
		if _, ok := vocabulary[kind][name]; !ok {
			t.Errorf("%s %q has no precedent in the vocabulary list", kind, name)
		}
		seen[kind][name] = true
	}
	var params []string
	var filter func(t *testing.T, n node)
	filter = func(t *testing.T, n node) {
		t.Helper()
		switch {
		case n.str != nil:
			return
		case !n.isList:
			if !isNumber(n.atom) {
				use(t, "modifier", n.atom)
			}
			return
		}
		h := head(n)
		switch h {
		case "param":
			use(t, "function", h)
			if len(n.list) != 2 || n.list[1].str == nil {
				t.Errorf("malformed (param ...)")
				return
			}
			params = append(params, *n.list[1].str)
			return
		case "string-append":
			use(t, "function", h)
		case "ioctl-command":
			use(t, "filter", h)
			if len(n.list) != 2 || !isNumber(n.list[1].atom) {
				t.Errorf("ioctl-command must name the request by number (macOS 14 binds no ioctl symbols)")
			}
			return
		default:
			use(t, "filter", h)
		}
		for _, c := range n.list[1:] {
			filter(t, c)
		}
	}
	for name, prof := range everyProfile(t) {
		t.Run(name, func(t *testing.T) {
			forms, err := readAll(prof)
			if err != nil {
				t.Fatalf("profile does not parse: %v", err)
			}
			for _, f := range forms[1:] {
				action := head(f)
				i := 1
				for ; i < len(f.list) && !f.list[i].isList; i++ {
					use(t, "operation", f.list[i].atom)
					if action == "deny" && (strings.HasPrefix(f.list[i].atom, "file-read") || strings.HasPrefix(f.list[i].atom, "file-write") || f.list[i].atom == "process-exec") {
						t.Errorf("profile denies %s: the evaluator's allow-only reading of file rules would be wrong", f.list[i].atom)
					}
				}
				if i == 1 {
					t.Errorf("(%s) with no operation", action)
				}
				for _, flt := range f.list[i:] {
					filter(t, flt)
				}
			}
		})
	}
	for kind, names := range vocabulary {
		for _, name := range slices.Sorted(maps.Keys(names)) {
			if !seen[kind][name] {
				t.Errorf("%s %q is on the vocabulary list but no profile uses it: drop it", kind, name)
			}
		}
	}
	for _, p := range params {
		if !slices.Contains(profileParams, p) {
			t.Errorf("profile uses parameter %q, which the launcher does not define", p)
		}
	}
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
