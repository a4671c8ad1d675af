//go:build linux

package landlock

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"

	"runtime"

	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/jp-policy/jp-policy/internal/emit/internal/emittest"
	"github.com/jp-policy/jp-policy/internal/enforcetest"
)

// The split is only as good as the kernel's reading of it. These tests
// apply a manifest's fs grants to a child process with real Landlock and
// try the operations a tool would: the narrowed paths must stay out of
// reach (including by rename and link, the classic holes), and the rest
// of the workspace must keep its rights.

const childEnv = "JP_EMIT_LANDLOCK_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(runChild(spec))
	}
	os.Exit(m.Run())
}

type childSpec struct {
	Root   string        `json:"root"`
	Grants []ll.PathRule `json:"grants"`
	Ops    []string      `json:"ops"`
}

// runChild restricts itself to the grants, runs each op and prints one
// "ok" or "denied: <err>" line per op.
func runChild(specPath string) int {
	b, err := os.ReadFile(specPath)
	if err != nil {
		fmt.Println("setup:", err)
		return 2
	}
	var spec childSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		fmt.Println("setup:", err)
		return 2
	}
	// Restrict only this OS thread and run every op on it: the child
	// needs no other thread to be confined.
	runtime.LockOSThread()
	if err := restrictThread(spec.Grants); err != nil {
		fmt.Println("setup:", err)
		return 2
	}
	for _, op := range spec.Ops {
		if err := doOp(spec.Root, op); err != nil {
			fmt.Println("denied:", err)
		} else {
			fmt.Println("ok")
		}
	}
	return 0
}

// allFS is every filesystem right of ABI 5, all handled so that anything
// not granted is denied.
const allFS = 1<<16 - 1

func kernelABI() int {
	v, err := llsyscall.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

func restrictThread(grants []ll.PathRule) error {
	attr := llsyscall.RulesetAttr{HandledAccessFS: allFS}
	fd, err := llsyscall.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return fmt.Errorf("create_ruleset: %w", err)
	}
	defer unix.Close(fd)
	for _, g := range grants {
		r, unknown := ll.ParseRights(g.Access)
		if len(unknown) > 0 {
			return fmt.Errorf("unknown rights %v", unknown)
		}
		pfd, err := unix.Open(g.Path, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			if g.Optional {
				continue
			}
			return fmt.Errorf("%s: %w", g.Path, err)
		}
		err = llsyscall.LandlockAddPathBeneathRule(fd, &llsyscall.PathBeneathAttr{AllowedAccess: uint64(r), ParentFd: pfd}, 0)
		unix.Close(pfd)
		if err != nil {
			// EINVAL here means a directory right on a non-directory:
			// the split must never produce that.
			return fmt.Errorf("add_rule %s %v: %w", g.Path, g.Access, err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	if err := llsyscall.LandlockRestrictSelf(fd, 0); err != nil {
		return fmt.Errorf("restrict_self: %w", err)
	}
	return nil
}

func doOp(root, op string) error {
	f := strings.Fields(op)
	p := func(i int) string { return filepath.Join(root, f[i]) }
	switch f[0] {
	case "read":
		_, err := os.ReadFile(p(1))
		return err
	case "write":
		fh, err := os.OpenFile(p(1), os.O_WRONLY, 0)
		if err == nil {
			fh.Close()
		}
		return err
	case "truncate":
		return os.Truncate(p(1), 0)
	case "create":
		fh, err := os.OpenFile(p(1), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			fh.Close()
		}
		return err
	case "mkdir":
		return os.Mkdir(p(1), 0o755)
	case "unlink":
		return os.Remove(p(1))
	case "rename":
		return os.Rename(p(1), p(2))
	case "link":
		return os.Link(p(1), p(2))
	case "symlink":
		return os.Symlink(f[2], p(1))
	case "list":
		_, err := os.ReadDir(p(1))
		return err
	}
	return fmt.Errorf("unknown op %q", op)
}

func TestKernelAgrees(t *testing.T) {
	if abi := kernelABI(); abi < 5 {
		enforcetest.Skipf(t, "needs Landlock ABI 5 (have %d)", abi)
	}
	type op struct {
		do string
		ok bool
	}
	tests := map[string][]op{
		"dotenv-none": {
			{"read .env", false}, {"write .env", false}, {"truncate .env", false},
			{"unlink .env", false}, {"rename .env src/stolen", false}, {"link .env src/stolen", false},
			{"rename src .env", false}, {"symlink src/ln ../.env", true}, {"read src/ln", false},
			{"list .", true}, {"read README.md", true}, {"write README.md", true},
			{"create src/new.go", true}, {"rename src/main.go src/lib/moved.go", true}, {"unlink src/lib/util.go", true},
			{"create new.txt", false},       // degraded: root is split
			{"unlink README.md", false},     // degraded: root is split
			{"rename docs src/docs", false}, // degraded: root is split
		},
		"src-readonly": {
			{"read src/main.go", true}, {"write src/main.go", false}, {"create src/x", false},
			{"unlink src/main.go", false}, {"rename src/main.go docs/x", false}, {"rename src docs/src", false},
			{"link src/main.go docs/x", false}, {"list src", true}, {"read .env", true}, {"write .env", true},
			{"create docs/new.md", true}, {"mkdir docs/sub", true},
		},
		"nested-three": {
			{"read a/top.txt", true}, {"write a/top.txt", false}, {"read a/b/mid.txt", true}, {"write a/b/mid.txt", true},
			{"create a/b/other/new", true}, {"read a/b/c/deep.txt", false}, {"list a/b/c", false},
			{"rename a/b/c a/b/other/c", false}, {"rename a/b/c/deep.txt a/b/other/deep.txt", false},
			{"unlink a/b/c/deep.txt", false}, {"create a/b/c/new", false}, {"rename a/b a/x", false},
		},
		"external-narrowed": {
			{"read fork/lib/mod.go", true}, {"write fork/Cargo.toml", true}, {"read fork/.env", false},
			{"rename fork/.env fork/lib/x", false}, {"unlink fork/.env", false}, {"create fork/lib/new.go", true},
			{"read README.md", true}, {"create new.txt", true},
		},
		"missing-narrowed": {
			{"create .env", false}, {"mkdir .env", false}, {"mkdir secrets", false},
			{"read README.md", true}, {"create src/x.go", true}, {"mkdir out", false},
		},
	}
	for _, sc := range emittest.Scenarios(t) {
		ops, ok := tests[sc.Name]
		if !ok {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			m, err := Build(sc.Tool)
			if err != nil {
				t.Fatal(err)
			}
			spec := childSpec{Root: sc.Tool.Root, Grants: m.FS}
			for _, o := range ops {
				spec.Ops = append(spec.Ops, o.do)
			}
			b, _ := json.Marshal(spec)
			specPath := filepath.Join(t.TempDir(), "spec.json")
			if err := os.WriteFile(specPath, b, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+specPath)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(lines) != len(ops) {
				t.Fatalf("child printed %d lines for %d ops:\n%s", len(lines), len(ops), out)
			}
			for i, o := range ops {
				got := lines[i] == "ok"
				if got != o.ok {
					t.Errorf("%s: got %q, want ok=%v", o.do, lines[i], o.ok)
				}
			}
		})
	}
}
