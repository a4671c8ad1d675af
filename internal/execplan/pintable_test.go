package execplan

import (
	"bufio"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Older line pins (3: its table pinned exec index files; 4: its plans
// carried the inputs) are still parsed, so compile can read the grants
// record they name; format 3's table is ignored. Exec refuses both
// (TestPinToolRefusesOldFormats).
func TestPinFormat3TableIgnored(t *testing.T) {
	sum := SHA256Hex(nil)
	for _, c := range []struct {
		version  string
		wantBody bool
	}{{"3", false}, {"4", true}, {"5", true}, {"6", true}} {
		b := "jp-policy pin " + c.version + "\nroot \"/ws\"\nartifact \"/ws/.jp/policy/policy.json\"\nsha256 " + sum + "\ntools\nt " + sum + "\n"
		pin, body, err := ParsePinHeader(bufio.NewReader(strings.NewReader(b)))
		if err != nil {
			t.Fatalf("format %s: %v", c.version, err)
		}
		if (body >= 0) != c.wantBody || pin.SHA256 != sum {
			t.Errorf("format %s: table at %d, pin %+v", c.version, body, pin)
		}
	}
	for _, v := range []string{"2", "7", "06", "+6"} {
		if _, _, err := ParsePinHeader(bufio.NewReader(strings.NewReader("jp-policy pin " + v + "\nroot \"/ws\"\nartifact \"/a\"\nsha256 " + sum + "\n"))); err == nil {
			t.Errorf("format %q header accepted", v)
		}
	}
}

// TestPinToolRefusesOldFormats: exec applies only an artifact whose pin
// is of the current format; an older one is an *OldPinError that says to
// compile and counts as stale (so exec's recompile-on-stale replaces it).
func TestPinToolRefusesOldFormats(t *testing.T) {
	sum := SHA256Hex(nil)
	data, root, ap := t.TempDir(), "/ws", "/ws/.jp/policy/policy.json"
	path := PinFile(data, root, ap)
	if err := os.MkdirAll(parentDir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, v := range []int{3, 4, 5} {
		b := "jp-policy pin " + strconv.Itoa(v) + "\nroot \"/ws\"\nartifact \"" + ap + "\"\nsha256 " + sum + "\ntools\nt " + sum + "\n"
		if err := os.WriteFile(path, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
		_, got, err := PinTool(data, root, ap, "t")
		var old *OldPinError
		if !errors.As(err, &old) || old.Version != v || !errors.Is(err, ErrStale) || got != "" {
			t.Fatalf("format %d: %q, %v", v, got, err)
		}
		if !strings.Contains(err.Error(), "run `jp-policy compile`") {
			t.Errorf("format %d: %v does not say what to do", v, err)
		}
	}
}

// TestInputLines: every input kind, with paths that need quoting, reads
// back as written; other spellings of a line are refused.
func TestInputLines(t *testing.T) {
	sum := SHA256Hex([]byte("x"))
	ins := []Input{
		{Kind: "layer", Path: "/ws/.jp/config.toml", SHA256: sum},
		{Kind: "candidate", Path: "/ws/with space/.jp.toml"},
		{Kind: "symlink", Path: "/ws/l\"q\nnl", Target: "/t/é\x00"},
		{Kind: "symlink", Path: "/ws/broken"},
		{Kind: "approvals", Path: "/d/approvals.json", SHA256: sum},
		{Kind: "env", Path: "JP_CFG_CONVERSATION", SHA256: sum},
		{Kind: "layer", Path: "/ws/.jp/config.toml", SHA256: sum, ID: "2049:131:1553800:1764243000123456789:1764243000123456789"},
		{Kind: "symlink", Path: "/ws/l", Target: "/t", ID: "1:2:3:4:5"},
	}
	var b []byte
	for _, in := range ins {
		b = AppendInputLine(b, in)
	}
	head := "jp-policy pin 6\nroot \"/ws\"\nartifact \"/a\"\nsha256 " + sum + "\n"
	pin, body, err := ParsePinHeader(bufio.NewReader(strings.NewReader(head + string(b))))
	if err != nil || body != -1 || !slices.Equal(pin.Inputs, ins) {
		t.Fatalf("read back %+v, %d, %v", pin, body, err)
	}
	for _, bad := range []string{
		"file - \"/p\"",                 // unknown kind
		"layer - /p",                    // unquoted
		"layer  - \"/p\"",               // two spaces
		"layer " + sum[:63] + " \"/p\"", // short hash
		"layer - \"\\x2fp\"",            // a second spelling of "/p"
		"layer - \"/p\" ",               // trailing space
		"symlink - \"/p\" \"\"",         // an empty target is written as none
		"layer - \"\"",                  // no path
		"layer - \"/p\" \"/t\" \"/u\"",  // a third field
		"layer - \"/p\" @",              // an empty identity
		"layer - \"/p\" @1:x",           // not an identity
		"layer - \"/p\"  @1:2",          // two spaces
		"layer - \"/p\" @1:2 \"/t\"",    // the target after the identity
	} {
		if _, _, err := ParsePinHeader(bufio.NewReader(strings.NewReader(head + "input " + bad + "\n"))); err == nil {
			t.Errorf("accepted input line %q", bad)
		}
	}
	// A format 4 header never had input lines.
	if _, _, err := ParsePinHeader(bufio.NewReader(strings.NewReader(strings.Replace(head, "pin 6", "pin 4", 1) + string(b)))); err == nil {
		t.Error("format 4 header with input lines accepted")
	}
}

// FuzzInputLine: a line ParsePinHeader accepts is exactly the line
// AppendInputLine writes for what it read (one spelling per input).
func FuzzInputLine(f *testing.F) {
	f.Add("layer " + SHA256Hex(nil) + " \"/ws/.jp/config.toml\"")
	f.Add("symlink - \"/ws/l\" \"/t\"")
	f.Add("env - \"JP_CFG_X\"")
	f.Fuzz(func(t *testing.T, line string) {
		in, ok := parseInputLine(line)
		if !ok {
			return
		}
		if got := string(AppendInputLine(nil, in)); got != "input "+line+"\n" {
			t.Fatalf("%q read as %+v, which is written %q", line, in, got)
		}
	})
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
