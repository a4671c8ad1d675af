package attachuri

import (
	"errors"
	"github.com/jp-policy/jp-policy/internal/platform"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExternalURI(t *testing.T) {
	// D03's examples; the digests are sha256 of the parent directory as
	// printed by `printf %s DIR | sha256sum`.
	const downloads = "3912b169141ee9c62269811b0df2ed06300747ae53fe87db091596aeed9798e0"
	const desktop = "88caf596fbbc3cedc37e3e5b249ea65dec666c36b914b835fe8120af3f536e5f"
	tests := []struct{ canonical, want string }{
		{"/Users/jean/Downloads/report.pdf", "external:" + downloads + "/report.pdf"},
		{"/Users/jean/Desktop/report.pdf", "external:" + desktop + "/report.pdf"},
		{"/Users/jean/Downloads/notes with space.md", "external:" + downloads + "/notes with space.md"},
	}
	if platform.Host == platform.Windows {
		t.Skip("examples use POSIX paths")
	}
	for _, tt := range tests {
		if got := ExternalURI(tt.canonical); got != tt.want {
			t.Errorf("ExternalURI(%q) = %q, want %q", tt.canonical, got, tt.want)
		}
	}
}

func TestFileURI(t *testing.T) {
	tests := []struct{ rel, want string }{
		{"", "file:///"},
		{"src/main.rs", "file:///src/main.rs"},
		{"docs/a b.md", "file:///docs/a%20b.md"},
		{"q?#.txt", "file:///q%3F%23.txt"},
		{"ünï.txt", "file:///%C3%BCn%C3%AF.txt"},
		{"100%.txt", "file:///100%.txt"},
		{`back\slash`, "file:///back%5Cslash"},
	}
	for _, tt := range tests {
		if got := FileURI(tt.rel); got != tt.want {
			t.Errorf("FileURI(%q) = %q, want %q", tt.rel, got, tt.want)
		}
	}
}

func TestFor(t *testing.T) {
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	ws := filepath.Join(base, "ws")
	home := filepath.Join(base, "home")
	ext := filepath.Join(home, "Downloads")
	for _, d := range []string{filepath.Join(ws, "src"), ext, filepath.Join(ext, "sub")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	for _, f := range []string{filepath.Join(ws, "src", "main.rs"), filepath.Join(ext, "report.pdf"), filepath.Join(ws, "top.txt")} {
		must(t, os.WriteFile(f, []byte("x"), 0o644))
	}
	must(t, os.Symlink(ext, filepath.Join(ws, "dl")))
	must(t, os.Symlink(filepath.Join(ws, "src"), filepath.Join(ws, "alias")))
	extURI := ExternalURI(filepath.Join(ext, "report.pdf"))

	tests := []struct {
		name, path, cwd string
		want            string
		external        bool
		errSub          string
	}{
		{name: "inside relative", path: "src/main.rs", cwd: ws, want: "file:///src/main.rs"},
		{name: "inside from subdir", path: "main.rs", cwd: filepath.Join(ws, "src"), want: "file:///src/main.rs"},
		{name: "inside dotdot", path: "../top.txt", cwd: filepath.Join(ws, "src"), want: "file:///top.txt"},
		{name: "inside absolute", path: filepath.Join(ws, "src", "main.rs"), cwd: base, want: "file:///src/main.rs"},
		{name: "in-workspace symlink canonicalised", path: "alias/main.rs", cwd: ws, want: "file:///src/main.rs"},
		{name: "external absolute", path: filepath.Join(ext, "report.pdf"), cwd: ws, want: extURI, external: true},
		{name: "external tilde", path: "~/Downloads/report.pdf", cwd: ws, want: extURI, external: true},
		{name: "external via relative dotdot", path: "../home/Downloads/report.pdf", cwd: ws, want: extURI, external: true},
		{name: "through workspace symlink to outside", path: "dl/report.pdf", cwd: ws, want: extURI, external: true},
		{name: "same name other dir differs", path: "~/Downloads/sub/../report.pdf", cwd: ws, want: extURI, external: true},
		{name: "missing", path: "nope.txt", cwd: ws, errSub: "cannot resolve"},
		{name: "external directory", path: "~/Downloads", cwd: ws, errSub: "directory outside"},
		{name: "tilde user form not expanded", path: "~bob/x", cwd: ws, errSub: "cannot resolve"},
		{name: "not utf8", path: "bad\xff.txt", cwd: ws, errSub: "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := For(tt.path, tt.cwd, ws, home)
			if tt.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errSub) {
					t.Fatalf("For(%q) = %+v, %v; want error containing %q", tt.path, got, err, tt.errSub)
				}
				return
			}
			if err != nil || got.URI != tt.want || got.External != tt.external {
				t.Fatalf("For(%q) = %+v, %v; want %q external=%v", tt.path, got, err, tt.want, tt.external)
			}
		})
	}
}

func TestForNonUTF8OnDisk(t *testing.T) {
	if platform.Host != platform.Linux {
		t.Skip("needs a filesystem that stores arbitrary bytes")
	}
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	must(t, os.MkdirAll(ws, 0o755))
	bad := filepath.Join(base, "out\xfe")
	must(t, os.MkdirAll(bad, 0o755))
	must(t, os.WriteFile(filepath.Join(bad, "f.txt"), nil, 0o644))
	// Reached through a UTF-8 symlink, so only the canonical form is bad.
	must(t, os.Symlink(bad, filepath.Join(ws, "link")))
	if _, err := For("link/f.txt", ws, ws, ""); !errors.Is(err, ErrNotUTF8) {
		t.Fatalf("want ErrNotUTF8, got %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
