package gitsnap

import (
	"archive/tar"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func tarOf(t *testing.T, entries ...tar.Header) []byte {
	t.Helper()
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	for _, h := range entries {
		body := []byte("x")
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(body))
		}
		if err := w.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			w.Write(body)
		}
	}
	w.Close()
	return b.Bytes()
}

func TestExtractRefusesEscapes(t *testing.T) {
	tests := []struct {
		name    string
		entries []tar.Header
		wantErr string
	}{
		{"plain", []tar.Header{{Name: "a/b.toml", Typeflag: tar.TypeReg, Mode: 0o644}}, ""},
		{"dotdot", []tar.Header{{Name: "../x", Typeflag: tar.TypeReg}}, "outside the tree"},
		{"absolute", []tar.Header{{Name: "/etc/x", Typeflag: tar.TypeReg}}, "outside the tree"},
		{"through link", []tar.Header{{Name: "l", Typeflag: tar.TypeSymlink, Linkname: "/tmp"}, {Name: "l/x", Typeflag: tar.TypeReg}}, "below the symlink"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := extract(t.TempDir(), bytes.NewReader(tarOf(t, tc.entries...)))
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestTake(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	ws := filepath.Join(repo, "sub")
	os.MkdirAll(filepath.Join(ws, ".jp"), 0o755)
	os.WriteFile(filepath.Join(ws, ".jp", "config.toml"), []byte("one\n"), 0o644)
	run("add", ".")
	run("commit", "-qm", "one")
	os.WriteFile(filepath.Join(ws, ".jp", "config.toml"), []byte("two\n"), 0o644)
	run("commit", "-qam", "two")

	s, err := Take(ws, "HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Remove()
	b, err := os.ReadFile(filepath.Join(s.Workspace, ".jp", "config.toml"))
	if err != nil || string(b) != "one\n" {
		t.Fatalf("HEAD~1 config = %q, %v", b, err)
	}
	if filepath.Base(s.Workspace) != "sub" {
		t.Errorf("workspace %s is not the sub directory", s.Workspace)
	}
	if _, err := Take(ws, "no-such-rev"); err == nil || !strings.Contains(err.Error(), "not a revision") {
		t.Errorf("bad rev: %v", err)
	}
	if _, err := Take(ws, "--output=/tmp/x"); err == nil {
		t.Error("an option as a revision was accepted")
	}
}
