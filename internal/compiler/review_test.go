package compiler

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/artifact"
)

const reviewBase = "[conversation.tools.t]\nsource = \"local\"\ncommand = \"t\"\n\n[[conversation.tools.t.access.fs]]\npath = \"src\"\nread = true\n"
const reviewWiden = reviewBase + "\n[[conversation.tools.t.access.fs]]\npath = \".\"\nread = true\nwrite = true\n"

func reviewWS(t *testing.T) (Options, string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "ws")
	if err := os.MkdirAll(filepath.Join(root, ".jp"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"JP_USER_DATA_DIR": filepath.Join(base, "data"), "JP_GLOBAL_CONFIG_DIR": filepath.Join(base, "g"), "HOME": base}
	return Options{Config: configOptionsFor(root, env)}, root
}

func writeCfg(t *testing.T, root, s string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, ".jp", "config.toml"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCompileReviewed(t *testing.T) {
	tests := []struct {
		name string
		// between the first compile and the edit
		tamper  func(t *testing.T, opts Options, root string)
		accept  bool
		wantErr bool
		lost    bool
	}{
		{name: "widening refused", wantErr: true},
		{name: "widening accepted", accept: true},
		{name: "artifact deleted: still compared with the recorded grants", wantErr: true, tamper: func(t *testing.T, _ Options, root string) {
			os.RemoveAll(filepath.Join(root, ".jp", "policy"))
		}},
		{name: "old pin without grants: the pinned artifact is the baseline", wantErr: true, tamper: func(t *testing.T, opts Options, root string) {
			rewritePinWithoutGrants(t, opts, root)
		}},
		{name: "old pin and artifact deleted: every grant is new", wantErr: true, lost: true, tamper: func(t *testing.T, opts Options, root string) {
			rewritePinWithoutGrants(t, opts, root)
			os.RemoveAll(filepath.Join(root, ".jp", "policy"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts, root := reviewWS(t)
			writeCfg(t, root, reviewBase)
			if _, _, ro, err := CompileReviewed(opts, Review{}); err != nil || ro.Diff != nil {
				t.Fatalf("first compile: %v, diff %v (no pin: nothing to compare)", err, ro.Diff)
			}
			if tc.tamper != nil {
				tc.tamper(t, opts, root)
			}
			writeCfg(t, root, reviewWiden)
			_, _, ro, err := CompileReviewed(opts, Review{Accept: tc.accept})
			var we *WideningError
			if tc.wantErr != errors.As(err, &we) {
				t.Fatalf("err = %v, want a WideningError: %v", err, tc.wantErr)
			}
			if (ro.Lost != nil) != tc.lost {
				t.Errorf("lost = %v, want %v", ro.Lost, tc.lost)
			}
			if tc.wantErr && !strings.Contains(we.Diff.Text(), "widened") {
				t.Errorf("refusal without the diff:\n%s", we.Diff.Text())
			}
			if tc.accept {
				// Accepted grants are the new baseline: no change now.
				_, _, ro, err := CompileReviewed(opts, Review{})
				if err != nil || !ro.Diff.Empty() {
					t.Fatalf("recompile after accepting: %v\n%s", err, ro.Diff.Text())
				}
			}
		})
	}
}

// rewritePinWithoutGrants turns the pin into one an earlier jp-policy
// wrote (no grants_sha256) and removes the grants record.
func rewritePinWithoutGrants(t *testing.T, opts Options, root string) {
	t.Helper()
	dataDir := opts.Config.Getenv("JP_USER_DATA_DIR")
	ap := filepath.Join(root, ".jp", "policy", "policy.json")
	p := artifact.PinFile(dataDir, root, ap)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	pin, err := artifact.ParsePin(b)
	if err != nil {
		t.Fatal(err)
	}
	if pin.GrantsSHA256 == "" {
		t.Fatal("the pin records no grants")
	}
	pin.GrantsSHA256 = ""
	b, err = artifact.MarshalPin(pin)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, b, 0o600)
	os.Remove(artifact.GrantsFile(dataDir, root, ap))
}

// TestReviewByRecordHash: the grants record's hash computed while
// emitting is the hash of the record written beside the pin; a recompile
// whose record hashes the same reports no change without reading the
// record (even a record that was deleted since: the pin, outside the
// workspace, names what was accepted), while a changed grant is still
// diffed and refused.
func TestReviewByRecordHash(t *testing.T) {
	opts, root := reviewWS(t)
	writeCfg(t, root, reviewBase)
	res, _, _, err := CompileReviewed(opts, Review{})
	if err != nil {
		t.Fatal(err)
	}
	dataDir := opts.getenv("JP_USER_DATA_DIR")
	ap, _ := artifactPath(&opts, root)
	gpath := artifact.GrantsFile(dataDir, root, ap)
	if sum, err := artifact.HashFile(gpath); err != nil || sum != res.grantsSHA256 || artifact.ReviewedSHA256(dataDir, root, ap) != sum {
		t.Fatalf("record hashes %q (%v), compile computed %q", sum, err, res.grantsSHA256)
	}
	writeCfg(t, root, reviewBase+"# a comment\n")
	os.Remove(gpath)
	_, _, ro, err := CompileReviewed(opts, Review{})
	if err != nil || ro.Diff == nil || !ro.Diff.Empty() || ro.Lost != nil {
		t.Fatalf("unchanged grants: %+v, %v", ro, err)
	}
	if sum, err := artifact.HashFile(gpath); err != nil || sum != res.grantsSHA256 {
		t.Fatalf("the record was not written back: %q %v", sum, err)
	}
	writeCfg(t, root, reviewWiden)
	var we *WideningError
	if _, _, _, err := CompileReviewed(opts, Review{}); !errors.As(err, &we) {
		t.Fatalf("widening: %v", err)
	}
}
