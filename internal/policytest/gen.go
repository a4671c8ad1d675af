package policytest

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// World is one generated workspace with a policy and inputs to ask about.
type World struct {
	// Root is the canonical workspace root; Outside is a canonical sibling
	// directory that links may point into.
	Root, Outside string
	Policy        *policy.AccessPolicy
	// Inputs are workspace-relative paths to check (some escaping,
	// absolute or otherwise malformed).
	Inputs []string
}

var names = []string{"a", "b", "c", "src", "x"}

func randRel(r *rand.Rand, depth int) string {
	n := 1 + r.Intn(depth)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = names[r.Intn(len(names))]
	}
	return strings.Join(parts, "/")
}

// New builds a world under base (which must exist and be canonical).
func New(r *rand.Rand, base string) (World, error) {
	w := World{Root: filepath.Join(base, "ws"), Outside: filepath.Join(base, "out")}
	var wsLinks []string // workspace-relative paths of links in the workspace
	for _, d := range []string{w.Root, w.Outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return w, err
		}
	}
	// Entries: dirs and files first, then links, so links mostly point at
	// something, but some dangle.
	for range 12 {
		top := w.Root
		if r.Intn(3) == 0 {
			top = w.Outside
		}
		p := filepath.Join(top, filepath.FromSlash(randRel(r, 3)))
		if r.Intn(3) == 0 {
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
			_ = os.WriteFile(p, []byte("x"), 0o644)
		} else {
			_ = os.MkdirAll(p, 0o755)
		}
	}
	// A mount: ws/m -> out/ext, with a nested link leaving the mount and
	// one coming back into the workspace (RFD D43's nested escape).
	ext := filepath.Join(w.Outside, "ext")
	_ = os.MkdirAll(filepath.Join(ext, "a"), 0o755)
	_ = os.WriteFile(filepath.Join(ext, "a", "f"), []byte("x"), 0o644)
	_ = os.Symlink("..", filepath.Join(ext, "esc"))
	_ = os.Symlink(filepath.Join(w.Root, names[r.Intn(len(names))]), filepath.Join(ext, "back"))
	links := []string{filepath.Join(w.Root, "m")}
	_ = os.Symlink(ext, links[0])
	wsLinks = append(wsLinks, "m")
	for range 8 {
		top := w.Root
		if r.Intn(4) == 0 {
			top = w.Outside
		}
		p := filepath.Join(top, filepath.FromSlash(randRel(r, 2)))
		if _, err := os.Lstat(p); err == nil {
			continue
		}
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		var target string
		switch r.Intn(5) {
		case 0: // absolute, into ws or (mostly) out
			t := w.Root
			if r.Intn(3) > 0 {
				t = w.Outside
			}
			target = filepath.Join(t, filepath.FromSlash(randRel(r, 2)))
		case 1: // relative with ups
			target = strings.Repeat("../", r.Intn(4)) + randRel(r, 2)
		case 2: // sibling
			target = names[r.Intn(len(names))]
		case 3: // loop-ish: another link
			if len(links) > 0 {
				target = links[r.Intn(len(links))]
			} else {
				target = "."
			}
		default:
			target = "../" + randRel(r, 1)
		}
		if os.Symlink(target, p) == nil {
			links = append(links, p)
			if rel, err := filepath.Rel(w.Root, p); err == nil && !strings.HasPrefix(rel, "..") {
				wsLinks = append(wsLinks, filepath.ToSlash(rel))
			}
		}
	}
	w.Policy = randomPolicy(r, w, wsLinks)
	for range 30 {
		in := randInput(r)
		if len(wsLinks) > 0 && r.Intn(2) == 0 {
			in = wsLinks[r.Intn(len(wsLinks))]
			if r.Intn(3) > 0 {
				sub := []string{"a", "a/f", "esc", "esc/ext/a", "back", "a/new"}
				in += "/" + sub[r.Intn(len(sub))]
				if r.Intn(2) == 0 {
					in += "/" + randRel(r, 2)
				}
			}
		}
		w.Inputs = append(w.Inputs, in)
	}
	return w, nil
}

func randInput(r *rand.Rand) string {
	switch r.Intn(12) {
	case 0:
		return ""
	case 1:
		return "../" + randRel(r, 2)
	case 2:
		return "/" + randRel(r, 2)
	case 3:
		return randRel(r, 2) + "/../" + randRel(r, 3)
	case 4:
		return "./" + randRel(r, 4) + "/"
	}
	return randRel(r, 4)
}

// RandTri is an unset, false or true capability, equally likely.
func RandTri(r *rand.Rand) *bool {
	switch r.Intn(3) {
	case 0:
		return nil
	case 1:
		return new(false)
	}
	return new(true)
}

func randCaps(r *rand.Rand, fr *policy.FsRule) {
	fr.Read, fr.Write, fr.Create, fr.Update, fr.Delete, fr.Execute = RandTri(r), RandTri(r), RandTri(r), RandTri(r), RandTri(r), RandTri(r)
}

// randomPolicy makes fs rules from random paths, binding ordinary ones
// through policy.BindRule (so they are canonical like a compiler's), and
// external ones for links that resolve outside, approved at their real
// target or, sometimes, at a wrong one.
func randomPolicy(r *rand.Rand, w World, wsLinks []string) *policy.AccessPolicy {
	if r.Intn(8) == 0 {
		return nil
	}
	p := &policy.AccessPolicy{}
	n := r.Intn(6)
	for range n {
		path := randRel(r, 3)
		if r.Intn(5) == 0 {
			path = "."
		}
		external := r.Intn(3) == 0
		if external && len(wsLinks) > 0 {
			path = wsLinks[r.Intn(len(wsLinks))]
			if r.Intn(2) == 0 {
				path = "m"
			}
		}
		b, err := policy.BindRule(w.Root, path, external)
		if err != nil {
			continue
		}
		fr := b.Rule(policy.FsRule{})
		if external && r.Intn(4) == 0 {
			wrong := filepath.Join(w.Outside, names[r.Intn(len(names))])
			fr.ApprovedTarget = &wrong
		}
		randCaps(r, &fr)
		p.FS = append(p.FS, fr)
	}
	return p
}
