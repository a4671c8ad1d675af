package completion

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// lineCases are typed command lines (the last word is the one being
// completed) and the words every shell must offer for it. The shells run
// in a directory holding a.txt and sub/, with an executable jpzz-cmd on
// $PATH, so file, directory and command completion have known answers.
var lineCases = []struct {
	line string
	want []string
}{
	{"jpp ", []string{"lint", "check", "exec", "mount", "schema"}},
	{"jpp ch", []string{"check"}},
	{"jpp check ", []string{"fs", "net"}},
	{"jpp ck ", []string{"fs", "net"}},
	{"jpp check fs ", []string{"read", "create", "update", "delete", "execute"}},
	{"jpp check fs r", []string{"read"}},
	{"jpp check fs read ", []string{"a.txt", "sub"}},
	{"jpp check fs read a.txt ", nil},
	{"jpp -w sub check fs e", []string{"execute"}},
	{"jpp --workspace=sub check fs e", []string{"execute"}},
	{"jpp check fs --tool x read a", []string{"a.txt"}},
	{"jpp check fs --tool ", []string{"alpha", "beta two"}},
	{"jpp check fs -t b", []string{"beta two"}},
	{"jpp check fs --tool=a", []string{"alpha"}},
	{"jpp -w sub check fs --tool ", []string{"ws-sub"}},
	{"jpp --workspace=sub check fs --tool=w", []string{"ws-sub"}},
	{"jpp check --workspace sub fs -t w", []string{"ws-sub"}},
	{"jpp --workspace ", []string{"sub"}},
	{"jpp -w s", []string{"sub"}},
	{"jpp --workspace=s", []string{"sub"}},
	{"jpp lint --format ", []string{"text", "json", "sarif"}},
	{"jpp lint --format=j", []string{"json"}},
	{"jpp lint --fo", []string{"--format"}},
	{"jpp lint a.txt s", []string{"sub"}},
	{"jpp check fs --t", []string{"--tool"}},
	{"jpp --no", []string{"--no-color"}},
	{"jpp -", []string{"--help", "-h", "--verbose", "-v", "--color", "--no-color", "--workspace", "-w"}},
	{"jpp mount ", []string{"sub"}},
	{"jpp mount sub ", nil},
	{"jpp mount --output ", []string{"a.txt", "sub"}},
	{"jpp schema --out a", []string{"a.txt"}},
	{"jpp exec --tool x jpzz", []string{"jpzz-cmd"}},
	{"jpp exec --tool x jpzz-cmd a", []string{"a.txt"}},
	{"jpp exec --tool x jpzz-cmd --verbose a", []string{"a.txt"}},
}

// shellEnv makes the directory and $PATH the cases expect.
func shellEnv(t *testing.T) (dir string, env []string) {
	t.Helper()
	dir = t.TempDir()
	bin, home := t.TempDir(), t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), nil, 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(bin, "jpzz-cmd"), []byte("#!/bin/sh\n"), 0o755))
	// The program itself, as far as the scripts' --tool completion goes:
	// two tools, or one named after the --workspace passed on.
	jpp := `#!/bin/sh
case "$*" in
"` + ListToolsArgs + `") printf 'alpha\nbeta two\n' ;;
"` + ListToolsArgs + ` --` + WorkspaceFlag + `="*) printf 'ws-%s\n' "${3#*=}" ;;
esac
`
	must(t, os.WriteFile(filepath.Join(bin, "jpp"), []byte(jpp), 0o755))
	env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home)
	return dir, env
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// script writes testCLI's script for shell to a file.
func script(t *testing.T, shell string) string {
	t.Helper()
	var b bytes.Buffer
	must(t, Write(&b, shell, testTree(t)))
	path := filepath.Join(t.TempDir(), "jpp."+shell)
	must(t, os.WriteFile(path, b.Bytes(), 0o644))
	return path
}

func needShell(t *testing.T, shell string) string {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s not installed", shell)
	}
	return path
}

// candidates normalises one shell's answer: one word a line, sorted,
// without fish's descriptions, trailing slashes or --flag= prefix.
func candidates(out []byte, cur string) []string {
	var words []string
	for l := range strings.SplitSeq(string(out), "\n") {
		l, _, _ = strings.Cut(l, "\t")
		if l == "" {
			continue
		}
		if i := strings.Index(cur, "="); i >= 0 && strings.HasPrefix(cur, "-") {
			l = strings.TrimPrefix(l, cur[:i+1])
		}
		words = append(words, strings.TrimSuffix(l, "/"))
	}
	slices.Sort(words)
	return slices.Compact(words)
}

func sorted(w []string) []string {
	w = slices.Clone(w)
	slices.Sort(w)
	return w
}

// lastWord is the word being completed: everything after the last space.
func lastWord(line string) string { return line[strings.LastIndex(line, " ")+1:] }

func runCases(t *testing.T, shell string, run func(dir string, env []string, line string) ([]byte, error)) {
	dir, env := shellEnv(t)
	for _, tc := range lineCases {
		t.Run(tc.line, func(t *testing.T) {
			out, err := run(dir, env, tc.line)
			if err != nil {
				t.Fatalf("%s: %v\n%s", shell, err, out)
			}
			got := candidates(out, lastWord(tc.line))
			if want := sorted(tc.want); !slices.Equal(got, want) {
				t.Errorf("%s %q:\n got %q\nwant %q", shell, tc.line, got, want)
			}
		})
	}
}

// bashWords splits a line the way bash fills COMP_WORDS with the default
// COMP_WORDBREAKS: at spaces, and "=" as a word of its own.
func bashWords(line string) []string {
	var words []string
	for w := range strings.SplitSeq(line, " ") {
		for {
			i := strings.Index(w, "=")
			if i < 0 {
				break
			}
			if i > 0 {
				words = append(words, w[:i])
			}
			words = append(words, "=")
			w = w[i+1:]
		}
		if w != "" || len(words) == 0 || words[len(words)-1] != "=" {
			words = append(words, w)
		}
	}
	return words
}

func TestBashCompletes(t *testing.T) {
	bash := needShell(t, "bash")
	path := script(t, "bash")
	const driver = `source "$1" || exit 1; shift
COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
complete -p jpp >/dev/null || exit 1
_jpp || exit 1
printf '%s\n' "${COMPREPLY[@]}"`
	runCases(t, "bash", func(dir string, env []string, line string) ([]byte, error) {
		cmd := exec.Command(bash, append([]string{"--norc", "--noprofile", "-c", driver, "bash", path}, bashWords(line)...)...)
		cmd.Dir, cmd.Env = dir, env
		return cmd.CombinedOutput()
	})
}

// zshStubs stand in for the completion system, which only runs inside
// the line editor: each prints the words it was given that match $PREFIX.
const zshStubs = `
_describe() { local e; for e in "${(@P)${@[-1]}}"; do e=${e%%:*}; [[ $e == ${PREFIX}* ]] && print -r -- $e; done; return 0 }
compadd() { [[ $1 == -- ]] && shift; local e; for e; do [[ $e == ${PREFIX}* ]] && print -r -- $e; done; return 0 }
_files() { local -a f; if [[ $1 == -/ ]]; then f=( ${PREFIX}*(N/) ); else f=( ${PREFIX}*(N) ); fi; print -rl -- $f; return 0 }
_command_names() { print -rl -- ${(k)commands[(I)${PREFIX}*]}; return 0 }
compset() { [[ $1 == -P ]] && PREFIX=${PREFIX#*=}; return 0 }
compdef() { print -r -- "compdef $*" >&2 }
`

func TestZshCompletes(t *testing.T) {
	zsh := needShell(t, "zsh")
	path := script(t, "zsh")
	// The options _main_complete runs completion functions under.
	const driver = zshStubs + `setopt bareglobqual extendedglob glob multibyte nullglob rcexpandparam unset
source "$1" 2>/dev/null || exit 1; shift
words=("$@"); CURRENT=${#words}; PREFIX=$words[CURRENT]
_jpp || true # 1 means "no matches"`
	runCases(t, "zsh", func(dir string, env []string, line string) ([]byte, error) {
		cmd := exec.Command(zsh, append([]string{"-f", "-c", driver, "zsh", path}, strings.Split(line, " ")...)...)
		cmd.Dir, cmd.Env = dir, env
		return cmd.CombinedOutput()
	})
}

func TestFishCompletes(t *testing.T) {
	fish := needShell(t, "fish")
	path := script(t, "fish")
	runCases(t, "fish", func(dir string, env []string, line string) ([]byte, error) {
		cmd := exec.Command(fish, "--no-config", "-c", "source $argv[1]; and complete -C $argv[2]", path, line)
		cmd.Dir, cmd.Env = dir, env
		return cmd.CombinedOutput()
	})
}

// TestSyntax parses each script with its own shell's -n.
func TestSyntax(t *testing.T) {
	for _, shell := range Shells {
		t.Run(shell, func(t *testing.T) {
			sh := needShell(t, shell)
			out, err := exec.Command(sh, "-n", script(t, shell)).CombinedOutput()
			if err != nil {
				t.Fatalf("%s -n: %v\n%s", shell, err, out)
			}
		})
	}
}
