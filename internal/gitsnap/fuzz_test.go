package gitsnap

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzExtract: whatever the tar stream holds, extract writes nothing
// outside its directory (it may refuse the stream).
func FuzzExtract(f *testing.F) {
	for _, entries := range [][]tar.Header{
		{{Name: "a/b.toml", Typeflag: tar.TypeReg, Mode: 0o644}},
		{{Name: "../x", Typeflag: tar.TypeReg}},
		{{Name: "l", Typeflag: tar.TypeSymlink, Linkname: ".."}, {Name: "l/x", Typeflag: tar.TypeReg}},
		{{Name: "d/", Typeflag: tar.TypeDir}, {Name: "d/../../y", Typeflag: tar.TypeReg}},
	} {
		var b bytes.Buffer
		w := tar.NewWriter(&b)
		for _, h := range entries {
			if h.Typeflag == tar.TypeReg {
				h.Size = 1
			}
			w.WriteHeader(&h)
			if h.Typeflag == tar.TypeReg {
				w.Write([]byte("x"))
			}
		}
		w.Close()
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		base := t.TempDir()
		dir := filepath.Join(base, "tree")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		_ = extract(dir, bytes.NewReader(data))
		ents, err := os.ReadDir(base)
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != 1 || ents[0].Name() != "tree" {
			names := []string{}
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Fatalf("extract wrote outside its directory: %v", names)
		}
	})
}
