package launcher

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/plan/winjob"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// TestSandboxExecArgv: the profile's program parameters name the program
// (absolute, and with its links resolved), the scratch directory is
// defined when Exec made one, and the program's arguments follow `--`
// unchanged.
func TestSandboxExecArgv(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "git-real")
	if err := os.WriteFile(real, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "git")
	if err := os.Symlink("git-real", link); err != nil {
		t.Fatal(err)
	}
	real, _ = filepath.EvalSymlinks(real)
	prog := []string{"-D", "JP_PROGRAM=" + link, "-D", "JP_PROGRAM_REAL=" + real}
	p := &Plan{Profile: "/ws/.jp/policy/sbpl/t.sb", Path: link, Argv: []string{"git", "status", "--", "-x", ""}}
	got := SandboxExecArgv(p)
	want := slices.Concat([]string{"/usr/bin/sandbox-exec"}, prog, []string{"-f", "/ws/.jp/policy/sbpl/t.sb", "--", link, "status", "--", "-x", ""})
	if !slices.Equal(got, want) {
		t.Errorf("SandboxExecArgv\n got %q\nwant %q", got, want)
	}
	p.ProfileText, p.TmpDir = "(version 1)", "/private/var/folders/x/T/jp-policy-1"
	got = SandboxExecArgv(p)
	want = slices.Concat([]string{"/usr/bin/sandbox-exec", "-D", "JP_TMPDIR=/private/var/folders/x/T/jp-policy-1"}, prog, []string{"-p", "(version 1)", "--", link, "status", "--", "-x", ""})
	if !slices.Equal(got, want) {
		t.Errorf("inline profile\n got %q\nwant %q", got, want)
	}
}

func TestBuildJobAttrs(t *testing.T) {
	tests := []struct {
		name      string
		job       winjob.Manifest
		wantFlags uint32
		wantUI    uint32
		wantErr   bool
	}{
		{"the job dies with the launcher even if the manifest forgets", winjob.Manifest{}, jobLimitKillOnJobClose, 0, false},
		{"limits", winjob.Manifest{Limits: winjob.Limits{KillOnJobClose: true, DieOnUnhandledException: true, ActiveProcessLimit: 1}},
			jobLimitKillOnJobClose | jobLimitDieOnUnhandledExc | jobLimitActiveProcess, 0, false},
		{"ui limits", winjob.Manifest{UIRestrictions: []string{winjob.UIDesktop, winjob.UIReadClipboard}}, jobLimitKillOnJobClose, jobUILimitDesktop | jobUILimitReadClipboard, false},
		{"unknown ui limit", winjob.Manifest{UIRestrictions: []string{"everything"}}, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := BuildJobAttrs(&tt.job, []string{`C:\bin\tool.exe`, "a b"}, []string{"PATH=x"})
			if tt.wantErr {
				if _, ok := errors.AsType[*UnknownRightError](err); !ok {
					t.Fatalf("error %v, want *UnknownRightError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.LimitFlags != tt.wantFlags || a.UIRestrictions != tt.wantUI {
				t.Errorf("flags %#x ui %#x, want %#x %#x", a.LimitFlags, a.UIRestrictions, tt.wantFlags, tt.wantUI)
			}
			if a.CreationFlags&createSuspended == 0 {
				t.Error("the process must start suspended, so it is in the job before it runs")
			}
			if a.CommandLine != `C:\bin\tool.exe "a b"` {
				t.Errorf("command line %q", a.CommandLine)
			}
		})
	}
}

func TestEnvBlock(t *testing.T) {
	b, err := envBlock([]string{"b=2", "A=1", "=C:=C:\\x", "é=3"})
	if err != nil {
		t.Fatal(err)
	}
	if b[len(b)-1] != 0 || b[len(b)-2] != 0 {
		t.Fatal("block must end in two NULs")
	}
	entries := strings.Split(string(utf16.Decode(b[:len(b)-2])), "\x00")
	want := []string{"=C:=C:\\x", "A=1", "b=2", "é=3"}
	if !slices.Equal(entries, want) {
		t.Errorf("entries %q, want %q (sorted case-insensitively)", entries, want)
	}
	if b, _ := envBlock(nil); len(b) != 2 {
		t.Errorf("empty block %v, want two NULs", b)
	}
	if _, err := envBlock([]string{"A=x\x00B=y"}); err == nil {
		t.Error("a NUL inside an entry must be refused")
	}
}

// splitCommandLine is CommandLineToArgvW's documented parsing rules (for
// arguments after the program name), used to check escapeArg.
func splitCommandLine(s string) []string {
	var args []string
	var cur strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				cur.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					cur.WriteByte('"')
					i++
				}
			} else {
				cur.WriteString(strings.Repeat(`\`, n))
			}
			inArg = true
			continue
		case c == '"':
			quoted = !quoted
			inArg = true
		case (c == ' ' || c == '\t') && !quoted:
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteByte(c)
			inArg = true
		}
		i++
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args
}

func TestWindowsCommandLineRoundTrip(t *testing.T) {
	argv := []string{"prog", "", "a b", `a\b`, `a\\"b`, `"quoted"`, `trailing\`, `tab	x`, `\\server\share\`}
	got := splitCommandLine(windowsCommandLine(argv))
	if !slices.Equal(got, argv) {
		t.Errorf("round trip\n got %q\nwant %q", got, argv)
	}
}

func FuzzWindowsCommandLine(f *testing.F) {
	for _, s := range []string{"", "a b", `a\"b`, `x\\`, `"`, "\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		if strings.IndexByte(arg, 0) >= 0 || strings.ContainsAny(arg, "\n\v") {
			return // not representable in a command line we build
		}
		argv := []string{"prog", arg, "next"}
		if got := splitCommandLine(windowsCommandLine(argv)); !slices.Equal(got, argv) {
			t.Errorf("argument %q came back as %q", arg, got)
		}
	})
}

func TestFilterEnvFold(t *testing.T) {
	env := plan.Env{Minimal: []string{"PATH", "SYSTEMROOT"}, Rules: []policy.EnvRule{{Name: "Deploy_*", Read: true}}}
	in := []string{"Path=C:\\bin", "SystemRoot=C:\\Windows", "DEPLOY_TOKEN=t", "deploy_region=eu", "=C:=C:\\x", "Secret=s"}
	got := FilterEnvFold(in, env, nil)
	want := []string{"Path=C:\\bin", "SystemRoot=C:\\Windows", "DEPLOY_TOKEN=t", "deploy_region=eu"}
	if !slices.Equal(got, want) {
		t.Errorf("FilterEnvFold\n got %q\nwant %q", got, want)
	}
	narrowed := FilterEnvFold(in, env, &policy.CommandRule{Envs: []string{"deploy_token"}})
	if !slices.Equal(narrowed, []string{"Path=C:\\bin", "SystemRoot=C:\\Windows", "DEPLOY_TOKEN=t"}) {
		t.Errorf("narrowed %q", narrowed)
	}
}
