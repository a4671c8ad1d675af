package completion

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// zptyDriver runs an interactive zsh on a pseudo-terminal with the real
// completion system (compinit), types each line followed by TAB and a key
// bound to a widget that appends the edited line to a file, then waits
// for a marker. Keys are handled in order, so every dump lands first.
const zptyDriver = `zmodload zsh/zpty || exit 3
script=$1 out=$2
shift 2
zpty z 'zsh -f -i'
zpty -w z "PS1='%% '; autoload -U compinit; compinit -u -D; source ${(q)script}; dump() { print -r -- \"<\$BUFFER>\" >> ${(q)out}; BUFFER=''; }; zle -N dump; bindkey '^Xd' dump; print RE''ADY"
zpty -r z line '*READY*' || exit 4
for l in "$@"; do
    zpty -w -n z "$l"$'\t\x18d'
done
zpty -w z "print DO''NE"
zpty -r z line '*DONE*' || exit 5
zpty -d z
`

// TestZshRealCompletion checks lines with one answer, which zsh inserts,
// through zsh's own completion system: the stubs of TestZshCompletes
// cannot catch a script that breaks _describe or compset.
func TestZshRealCompletion(t *testing.T) {
	zsh := needShell(t, "zsh")
	if exec.Command(zsh, "-f", "-c", "zmodload zsh/zpty").Run() != nil {
		t.Skip("zsh has no zpty module")
	}
	cases := []struct{ typed, want string }{
		{"jpp ch", "jpp check "},
		{"jpp ck n", "jpp ck net "},
		{"jpp check fs r", "jpp check fs read "},
		{"jpp check fs read a.", "jpp check fs read a.txt "},
		{"jpp lint --fo", "jpp lint --format "},
		{"jpp lint --format=sa", "jpp lint --format=sarif "},
		{"jpp --no", "jpp --no-color "},
		{"jpp check fs --tool al", "jpp check fs --tool alpha "},
		{"jpp -w sub check fs --tool w", "jpp -w sub check fs --tool ws-sub "},
		{"jpp mount s", "jpp mount sub/"},
		{"jpp exec --tool x jpzz", "jpp exec --tool x jpzz-cmd "},
	}
	dir, env := shellEnv(t)
	out := filepath.Join(t.TempDir(), "buffers")
	args := []string{"-f", "-c", zptyDriver, "zsh", script(t, "zsh"), out}
	for _, c := range cases {
		args = append(args, c.typed)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, zsh, args...)
	cmd.Dir, cmd.Env = dir, env
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zsh driver: %v\n%s", err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(got) != len(cases) {
		t.Fatalf("got %d buffers, want %d:\n%s", len(got), len(cases), data)
	}
	for i, c := range cases {
		if want := "<" + c.want + ">"; got[i] != want {
			t.Errorf("%q<TAB>: buffer %s, want %s", c.typed, got[i], want)
		}
	}
}
