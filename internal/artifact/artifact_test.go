package artifact

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestVerifyDetectsEveryKindOfChange(t *testing.T) {
	dir := t.TempDir()
	layer := filepath.Join(dir, "config.toml")
	cand := filepath.Join(dir, ".jp.toml")
	target := filepath.Join(dir, "target")
	other := filepath.Join(dir, "other")
	link := filepath.Join(dir, "fork")
	for _, d := range []string{target, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(layer, []byte("a = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	sum, _ := HashFile(layer)
	realTarget, _ := filepath.EvalSymlinks(target)
	p := &Policy{Inputs: []Input{
		{Kind: "layer", Path: layer, SHA256: sum},
		{Kind: "candidate", Path: cand},
		{Kind: "symlink", Path: link, Target: realTarget},
		{Kind: "env", Path: "JP_CFG_X", SHA256: "ignored here"},
	}}
	if err := Verify(p); err != nil {
		t.Fatalf("fresh inputs reported stale: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func()
		undo   func()
	}{
		{"layer edited", func() { os.WriteFile(layer, []byte("a = 2\n"), 0o644) }, func() { os.WriteFile(layer, []byte("a = 1\n"), 0o644) }},
		{"candidate appeared", func() { os.WriteFile(cand, nil, 0o644) }, func() { os.Remove(cand) }},
		{"symlink retargeted", func() { os.Remove(link); os.Symlink(other, link) }, func() { os.Remove(link); os.Symlink(target, link) }},
		{"symlink broken", func() { os.Remove(link) }, func() { os.Symlink(target, link) }},
	} {
		tc.change()
		err := Verify(p)
		var se *StaleError
		if !errors.Is(err, ErrStale) || !errors.As(err, &se) {
			t.Errorf("%s: Verify = %v, want a *StaleError", tc.name, err)
		}
		tc.undo()
		if err := Verify(p); err != nil {
			t.Fatalf("%s: after undo: %v", tc.name, err)
		}
	}
}

func TestDigestIgnoresOrder(t *testing.T) {
	a := []Input{{Kind: "layer", Path: "/a", SHA256: "1"}, {Kind: "symlink", Path: "/b", Target: "/t"}}
	b := []Input{a[1], a[0]}
	if Digest(a) != Digest(b) {
		t.Error("digest depends on input order")
	}
	c := []Input{{Kind: "layer", Path: "/a", SHA256: "2"}, a[1]}
	if Digest(a) == Digest(c) {
		t.Error("digest ignores a changed hash")
	}
}

func TestPin(t *testing.T) {
	data, root := t.TempDir(), t.TempDir()
	ap := filepath.Join(root, ".jp", "policy", FileName)
	body := []byte(`{"format":1}`)
	var none *NoPinError
	if err := CheckPin(data, root, ap, body); !errors.As(err, &none) {
		t.Fatalf("unpinned artifact: %v, want *NoPinError", err)
	}
	if err := WritePin(data, root, ap, body); err != nil {
		t.Fatal(err)
	}
	if err := CheckPin(data, root, ap, body); err != nil {
		t.Fatalf("pinned artifact refused: %v", err)
	}
	if err := CheckPin(data, root, ap, []byte(`{"format":2}`)); !errors.Is(err, ErrTampered) {
		t.Fatalf("changed artifact: %v, want ErrTampered", err)
	}
	other := t.TempDir()
	if err := CheckPin(data, other, ap, body); !errors.As(err, &none) {
		t.Fatalf("another workspace's artifact: %v, want no pin", err)
	}
	if err := CheckPin(data, root, filepath.Join(other, FileName), body); !errors.As(err, &none) {
		t.Fatalf("the artifact at another path: %v, want no pin", err)
	}
	// A pin file copied under another key still names its own root.
	if err := os.WriteFile(PinFile(data, other, ap), mustRead(t, PinFile(data, root, ap)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckPin(data, other, ap, body); !errors.Is(err, ErrTampered) {
		t.Fatalf("a pin moved to another workspace's key: %v, want ErrTampered", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
