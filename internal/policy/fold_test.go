package policy

import "testing"

// On case- and normalisation-insensitive file systems a differently
// spelled path opens the same file, so it must meet the same rule.
func TestCaseInsensitiveMatching(t *testing.T) {
	saved := caseInsensitive
	defer func() { caseInsensitive = saved }()
	caseInsensitive = true
	ws := tmp(t)
	tree(t, ws, "secret/key", "café/x")
	c := mustChecker(t, ws, &AccessPolicy{FS: []FsRule{
		{LexicalPath: "", Read: new(true)},
		{LexicalPath: "secret"},
		{LexicalPath: "café"}, // NFC
	}})
	runFS(t, c, []fsCase{
		{Read, "secret/key", false, "denied", "secret"},
		{Read, "SECRET/key", false, "denied", "secret"},
		{Read, "Secret/new", false, "denied", "secret"},
		{Read, "cafe\u0301/x", false, "denied", "café"}, // NFD spelling
		{Read, "CAFÉ/x", false, "denied", "café"},
		{Read, "public", true, "", "."},
	})
	if _, ok := c.DecideFS(Read, "SECRET/key"); ok {
		t.Error("DecideFS did not fold")
	}
	if foldKey("plain/lower") != "plain/lower" || foldKey("A/B") != "a/b" {
		t.Error("foldKey")
	}
	caseInsensitive = false
	if foldKey("A/B") != "A/B" {
		t.Error("foldKey must be the identity on case-sensitive systems")
	}
}
