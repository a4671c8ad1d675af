package execplan

import (
	"bufio"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A format 3 pin (its table pinned exec index files, not exec plans) is
// still read, without its table: exec then checks all of policy.json
// against the header, and the next compile writes format 4.
func TestPinFormat3TableIgnored(t *testing.T) {
	sum := SHA256Hex(nil)
	for _, c := range []struct {
		version  string
		wantBody bool
	}{{"3", false}, {"4", true}} {
		b := "jp-policy pin " + c.version + "\nroot \"/ws\"\nartifact \"/ws/.jp/policy/policy.json\"\nsha256 " + sum + "\ntools\nt " + sum + "\n"
		pin, body, err := ParsePinHeader(bufio.NewReader(strings.NewReader(b)))
		if err != nil {
			t.Fatalf("format %s: %v", c.version, err)
		}
		if (body >= 0) != c.wantBody || pin.SHA256 != sum {
			t.Errorf("format %s: table at %d, pin %+v", c.version, body, pin)
		}
	}
	if _, _, err := ParsePinHeader(bufio.NewReader(strings.NewReader("jp-policy pin 2\n"))); err == nil {
		t.Error("format 2 header accepted (it is JSON)")
	}
}

// TestLookupToolPrefixes: the binary search finds every tool of a large
// sorted table, including names that are prefixes of others or differ
// only in '-', '.', '_' (which sort before letters and digits, and after
// the space that ends a name), and finds nothing for a name that is only
// a prefix or an extension of listed ones: a lookup never returns another
// tool's plan hash.
func TestLookupToolPrefixes(t *testing.T) {
	names := []string{"a", "a-b", "a.b", "a_b", "a0", "ab", "ab-", "abc", "b", "ro", "ro-x", "ro.a", "ro_", "rox"}
	for i := range 4000 {
		names = append(names, "t"+strconv.Itoa(i), "ro-"+strconv.Itoa(i))
	}
	slices.Sort(names)
	var b strings.Builder
	sums := map[string]string{}
	for _, n := range names {
		sums[n] = SHA256Hex([]byte(n))
		b.WriteString(n + " " + sums[n] + "\n")
	}
	table := strings.NewReader(b.String())
	for _, n := range names {
		got, err := LookupTool(table, 0, int64(table.Len()), n)
		if err != nil || got != sums[n] {
			t.Fatalf("%s: %q, %v; want its own hash", n, got, err)
		}
	}
	for _, n := range []string{"", "a-", "a.", "r", "ro-", "ro-x-", "t", "t4000", "zz", "0"} {
		if got, err := LookupTool(table, 0, int64(table.Len()), n); err != nil || got != "" {
			t.Errorf("absent %q: %q, %v", n, got, err)
		}
	}
}
