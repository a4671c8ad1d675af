package approvals

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/platform"
)

var t0 = time.Date(2026, 5, 26, 13, 0, 0, 0, time.UTC)

func write(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		content string
		corrupt bool
		want    map[string]string
	}{
		{"jp shape", `{"mounts":[{"rule_path":"fork","canonical_target":"/abs/fork","approved_at":"2026-05-26T13:00:00Z"},{"rule_path":"vendor/openssl","canonical_target":"/v/o","approved_at":"2026-05-12T09:14:00.123456Z"}]}`, false,
			map[string]string{"fork": "/abs/fork", "vendor/openssl": "/v/o"}},
		{"no mounts key", `{}`, false, map[string]string{}},
		{"empty mounts", `{"mounts":[]}`, false, map[string]string{}},
		{"sibling category", `{"plugins":[1],"mounts":[]}`, false, map[string]string{}},
		{"windows target", `{"mounts":[{"rule_path":"f","canonical_target":"C:\\code\\x","approved_at":"2026-05-26T13:00:00Z"}]}`, false, map[string]string{"f": `C:\code\x`}},
		{"offset timestamp", `{"mounts":[{"rule_path":"f","canonical_target":"/x","approved_at":"2026-05-26T15:00:00+02:00"}]}`, false, map[string]string{"f": "/x"}},
		{"unknown entry key ignored", `{"mounts":[{"rule_path":"f","canonical_target":"/x","approved_at":"2026-05-26T13:00:00Z","note":"hi"}]}`, false, map[string]string{"f": "/x"}},
		{"bad json", `{"mounts":[`, true, nil},
		{"empty file", ``, true, nil},
		{"top-level array", `[]`, true, nil},
		{"top-level null", `null`, true, nil},
		{"mounts null", `{"mounts":null}`, true, nil},
		{"mounts object", `{"mounts":{}}`, true, nil},
		{"entry not object", `{"mounts":[1]}`, true, nil},
		{"missing rule_path", `{"mounts":[{"canonical_target":"/x","approved_at":"2026-05-26T13:00:00Z"}]}`, true, nil},
		{"empty rule_path", `{"mounts":[{"rule_path":"","canonical_target":"/x","approved_at":"2026-05-26T13:00:00Z"}]}`, true, nil},
		{"missing target", `{"mounts":[{"rule_path":"f","approved_at":"2026-05-26T13:00:00Z"}]}`, true, nil},
		{"relative target", `{"mounts":[{"rule_path":"f","canonical_target":"x/y","approved_at":"2026-05-26T13:00:00Z"}]}`, true, nil},
		{"target wrong type", `{"mounts":[{"rule_path":"f","canonical_target":7,"approved_at":"2026-05-26T13:00:00Z"}]}`, true, nil},
		{"missing approved_at", `{"mounts":[{"rule_path":"f","canonical_target":"/x"}]}`, true, nil},
		{"bad approved_at", `{"mounts":[{"rule_path":"f","canonical_target":"/x","approved_at":"yesterday"}]}`, true, nil},
		{"duplicate rule_path", `{"mounts":[{"rule_path":"f","canonical_target":"/x","approved_at":"2026-05-26T13:00:00Z"},{"rule_path":"f","canonical_target":"/etc","approved_at":"2026-05-26T13:00:00Z"}]}`, true, nil},
		{"trailing garbage", `{"mounts":[]} x`, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(t, tt.content)
			s, warns, err := Load(p)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if s.Corrupt() != tt.corrupt {
				t.Fatalf("Corrupt() = %v, want %v", s.Corrupt(), tt.corrupt)
			}
			if tt.corrupt {
				if len(warns) != 1 || !strings.Contains(warns[0].Message, p) || warns[0].Pos.File != p {
					t.Fatalf("want one warning naming %s, got %v", p, warns)
				}
				if len(s.Entries()) != 0 {
					t.Fatalf("corrupt store must read as empty, got %v", s.Entries())
				}
				return
			}
			if len(warns) != 0 {
				t.Fatalf("unexpected warnings %v", warns)
			}
			got := map[string]string{}
			for _, e := range s.Entries() {
				got[e.RulePath] = e.CanonicalTarget
			}
			if len(got) != len(tt.want) {
				t.Fatalf("entries = %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Fatalf("entries = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestLoadMissingIsEmpty(t *testing.T) {
	s, warns, err := Load(filepath.Join(t.TempDir(), "nope", FileName))
	if err != nil || len(warns) != 0 || s.Corrupt() || len(s.Entries()) != 0 {
		t.Fatalf("missing file: store=%v warns=%v err=%v", s, warns, err)
	}
}

func TestLoadIOErrorFailsClosed(t *testing.T) {
	// A directory where the file should be is not "missing": the caller
	// must see an error rather than an empty store it might overwrite.
	dir := t.TempDir()
	p := filepath.Join(dir, FileName)
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(p); err == nil {
		t.Fatal("want an error for a directory in place of the store")
	}
}

func TestClassify(t *testing.T) {
	s := New("unused")
	s.Approve("fork", "/code/forks/x", "/ws", t0)
	tests := []struct {
		rule, target string
		kind         Kind
		previous     string
	}{
		{"fork", "/code/forks/x", Approved, "/code/forks/x"},
		{"fork", "/etc", Retargeted, "/code/forks/x"},
		{"fork", "/code/forks/x/", Retargeted, "/code/forks/x"},
		{"fork", "/CODE/forks/x", Retargeted, "/code/forks/x"},
		{"other", "/code/forks/x", Unknown, ""},
		{"fork/sub", "/code/forks/x/sub", Unknown, ""},
		{"", "/code/forks/x", Unknown, ""},
	}
	for _, tt := range tests {
		got := s.Classify(tt.rule, tt.target, "/ws")
		if got.Kind != tt.kind || got.Previous != tt.previous {
			t.Errorf("Classify(%q, %q) = %+v, want %v previous %q", tt.rule, tt.target, got, tt.kind, tt.previous)
		}
	}
}

func TestApproveRevokeLookup(t *testing.T) {
	s := New("unused")
	if _, ok := s.Lookup("fork"); ok {
		t.Fatal("empty store has fork")
	}
	s.Approve("fork", "/a", "/ws", t0)
	s.Approve("fork", "/b", "/ws", t0.Add(time.Hour+500*time.Millisecond))
	if got, ok := s.Lookup("fork"); !ok || got != "/b" {
		t.Fatalf("Lookup after re-approve = %q %v", got, ok)
	}
	if e := s.Entries(); len(e) != 1 || !e[0].ApprovedAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("Entries = %+v (want one, whole-second stamp)", e)
	}
	if ok, _ := s.Revoke("fork", "/ws"); !ok {
		t.Fatal("Revoke should report true once")
	}
	if ok, _ := s.Revoke("fork", "/ws"); ok {
		t.Fatal("Revoke should report true once, then false")
	}
}

func TestSaveDeterministicAndKeepsSiblings(t *testing.T) {
	p := write(t, `{"zeta":{"a":1},"plugins":[{"name":"x"}],"mounts":[{"rule_path":"b","canonical_target":"/b","approved_at":"2026-05-26T13:00:00Z"}]}`)
	s, _, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	s.Approve("a", "/a", "/ws", t0)
	if err := s.Save(false); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	want := `{
  "mounts": [
    {
      "rule_path": "a",
      "canonical_target": "/a",
      "approved_at": "2026-05-26T13:00:00Z",
      "approved_in": [
        "/ws"
      ]
    },
    {
      "rule_path": "b",
      "canonical_target": "/b",
      "approved_at": "2026-05-26T13:00:00Z"
    }
  ],
  "plugins": [
    {
      "name": "x"
    }
  ],
  "zeta": {
    "a": 1
  }
}
`
	if string(got) != want {
		t.Fatalf("saved:\n%s\nwant:\n%s", got, want)
	}
	// Saving again without changes is byte-identical.
	s2, _, _ := Load(p)
	if err := s2.Save(false); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(p)
	if string(again) != want {
		t.Fatalf("second save differs:\n%s", again)
	}
}

func TestSaveRefusesCorruptUnlessForced(t *testing.T) {
	const bad = `{"mounts": [ oops`
	p := write(t, bad)
	s, _, err := Load(p)
	if err != nil || !s.Corrupt() {
		t.Fatalf("want corrupt store, got err=%v", err)
	}
	s.Approve("fork", "/x", "/ws", t0)
	var ce *CorruptError
	if err := s.Save(false); !errors.As(err, &ce) || ce.Path != p {
		t.Fatalf("Save(false) on corrupt = %v, want *CorruptError", err)
	}
	if got, _ := os.ReadFile(p); string(got) != bad {
		t.Fatalf("corrupt file was touched: %q", got)
	}
	if err := s.Save(true); err != nil {
		t.Fatalf("Save(true): %v", err)
	}
	s2, warns, err := Load(p)
	if err != nil || len(warns) != 0 || s2.Corrupt() {
		t.Fatalf("after forced save: warns=%v err=%v", warns, err)
	}
	if got, ok := s2.Lookup("fork"); !ok || got != "/x" {
		t.Fatalf("forced save lost the approval: %q %v", got, ok)
	}
	// Once written, the store is healthy and saves normally.
	if err := s.Save(false); err != nil {
		t.Fatalf("Save after force: %v", err)
	}
}

func TestSaveCreatesPrivateDirAndFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "workspace", "w-123", FileName)
	s := New(p)
	s.Approve("fork", "/x", "/ws", t0)
	if err := s.Save(false); err != nil {
		t.Fatal(err)
	}
	if platform.Host == platform.Windows {
		return
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode = %v, want 0600", fi.Mode().Perm())
	}
	di, _ := os.Stat(filepath.Dir(p))
	if di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode = %v, want 0700", di.Mode().Perm())
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".approvals-*"))
	if len(left) != 0 {
		t.Errorf("temp files left behind: %v", left)
	}
}

// TestSaveFailureLeavesOldFile: a save that fails leaves the old file as
// it was. The long name makes atomicfile's temporary name exceed NAME_MAX
// (ENAMETOOLONG), a failure root hits too, which is how CI runs; the
// read-only directory needs a user the kernel checks permissions for.
func TestSaveFailureLeavesOldFile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		asRoot bool // root hits this failure too
		file   string
		break_ func(dir string) (undo func())
	}{
		{"temporary name too long", true, strings.Repeat("a", 245) + ".json", func(string) func() { return func() {} }},
		{"read-only directory", false, FileName, func(dir string) func() {
			os.Chmod(dir, 0o500)
			return func() { os.Chmod(dir, 0o700) }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.asRoot && (platform.Host == platform.Windows || os.Getuid() == 0) {
				t.Skip("needs POSIX permissions enforced; the long-name case covers root")
			}
			dir := t.TempDir()
			p := filepath.Join(dir, tc.file)
			orig := `{"mounts":[]}`
			if err := os.WriteFile(p, []byte(orig), 0o600); err != nil {
				t.Fatal(err)
			}
			s, _, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			s.Approve("fork", "/x", "/ws", t0)
			undo := tc.break_(dir)
			defer undo()
			if err := s.Save(false); err == nil {
				t.Fatal("want an error from Save")
			}
			if got, _ := os.ReadFile(p); string(got) != orig {
				t.Fatalf("old file changed: %q", got)
			}
		})
	}
}

func TestLoadUnderAFileIsEmptyButSaveFails(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	os.WriteFile(file, nil, 0o600)
	s, _, err := Load(filepath.Join(file, FileName))
	if err != nil || len(s.Entries()) != 0 {
		t.Fatalf("Load under a file: %v", err)
	}
	s.Approve("fork", "/x", "/ws", t0)
	if err := s.Save(true); err == nil {
		t.Fatal("Save under a file must fail")
	}
}

func TestDefaultPath(t *testing.T) {
	root := filepath.Join(t.TempDir(), "myws")
	os.MkdirAll(filepath.Join(root, ".jp"), 0o755)
	os.WriteFile(filepath.Join(root, ".jp", ".id"), []byte("DO NOT EDIT THIS FILE!\nabc12\n"), 0o644)
	data := t.TempDir()
	env := map[string]string{"JP_USER_DATA_DIR": data}
	got, err := DefaultPath(root, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(data, "workspace", "myws-abc12", FileName); got != want {
		t.Fatalf("DefaultPath = %q, want %q", got, want)
	}
}

// TestApprovedIn: an approval given in one workspace holds there and, for
// the same target, is OTHER elsewhere until approved there too; a
// retarget starts over in the approving workspace; an entry written by
// hand (no approved_in) holds everywhere; revoking withdraws only the
// revoking workspace's approval.
func TestApprovedIn(t *testing.T) {
	s := New("")
	s.Approve("fork", "/x", "/a", t0)
	steps := []struct {
		do         func()
		root, tgt  string
		kind       Kind
		approvedIn []string
	}{
		{nil, "/a", "/x", Approved, nil},
		{nil, "/b", "/x", OtherWorkspace, []string{"/a"}},
		{nil, "/b", "/y", Retargeted, nil},
		{func() { s.Approve("fork", "/x", "/b", t0) }, "/b", "/x", Approved, nil},
		{nil, "/a", "/x", Approved, nil},
		{nil, "/c", "/x", OtherWorkspace, []string{"/a", "/b"}},
		{func() { s.Revoke("fork", "/a") }, "/a", "/x", OtherWorkspace, []string{"/b"}},
		{nil, "/b", "/x", Approved, nil},
		{func() { s.Approve("fork", "/y", "/c", t0) }, "/b", "/y", OtherWorkspace, []string{"/c"}},
		{func() { s.entries["fork"] = Entry{RulePath: "fork", CanonicalTarget: "/y", ApprovedAt: t0} }, "/b", "/y", Approved, nil},
		{func() { s.Approve("fork", "/y", "/d", t0) }, "/e", "/y", Approved, nil},
	}
	for i, st := range steps {
		if st.do != nil {
			st.do()
		}
		got := s.Classify("fork", st.tgt, st.root)
		if got.Kind != st.kind || !slices.Equal(got.ApprovedIn, st.approvedIn) {
			t.Errorf("step %d: Classify(fork, %s, %s) = %v %v, want %v %v", i, st.tgt, st.root, got.Kind, got.ApprovedIn, st.kind, st.approvedIn)
		}
	}
	// Revoking where it is not approved withdraws nothing and says where it is.
	s.Approve("m", "/x", "/a", t0)
	if ok, where := s.Revoke("m", "/b"); ok || !slices.Equal(where, []string{"/a"}) {
		t.Errorf("Revoke elsewhere = %v %v", ok, where)
	}
	if ok, _ := s.Revoke("m", "/a"); !ok {
		t.Error("Revoke in the approving workspace failed")
	}
	if _, ok := s.Lookup("m"); ok {
		t.Error("the last workspace's revoke should remove the entry")
	}
}

// TestApprovedInDecode: approved_in round-trips sorted and deduplicated;
// an empty or relative list makes the store corrupt (read as empty), never
// an approval that holds everywhere.
func TestApprovedInDecode(t *testing.T) {
	for _, tc := range []struct {
		list    string
		corrupt bool
	}{
		{`["/b", "/a", "/b"]`, false},
		{`[]`, true},
		{`["rel"]`, true},
		{`"/a"`, true},
		{`null`, false}, // JSON null is an absent list
	} {
		p := write(t, `{"mounts":[{"rule_path":"f","canonical_target":"/x","approved_at":"2026-05-26T13:00:00Z","approved_in":`+tc.list+`}]}`)
		s, _, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if s.Corrupt() != tc.corrupt {
			t.Errorf("%s: corrupt %v, want %v", tc.list, s.Corrupt(), tc.corrupt)
			continue
		}
		if !tc.corrupt && tc.list != "null" {
			if e := s.Entries(); !slices.Equal(e[0].ApprovedIn, []string{"/a", "/b"}) {
				t.Errorf("%s: approved_in %v", tc.list, e[0].ApprovedIn)
			}
		}
	}
}
