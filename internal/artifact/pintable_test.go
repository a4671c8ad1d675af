package artifact

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func pinWithTools(n int, name func(int) string) *Pin {
	p := &Pin{Version: PinVersion, Root: "/ws\nodd", Artifact: "/ws/.jp/policy/policy.json", SHA256: strings.Repeat("a", 64), Tools: map[string]string{}}
	for i := range n {
		p.Tools[name(i)] = SHA256Hex(fmt.Appendf(nil, "%d", i))
	}
	return p
}

// TestPinTable checks that every tool of tables large enough for the
// binary search (and small ones) is found with its hash, that absent
// names are not, and that ParsePin reads back what MarshalPin wrote.
func TestPinTable(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 300, 10000} {
		p := pinWithTools(n, func(i int) string { return fmt.Sprintf("tool_%d", i) })
		b, err := MarshalPin(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParsePin(b)
		if err != nil {
			t.Fatalf("%d tools: %v", n, err)
		}
		if back.Root != p.Root || back.SHA256 != p.SHA256 || len(back.Tools) != n {
			t.Fatalf("%d tools: read back %+v", n, back)
		}
		_, body, err := parsePinHeader(bufioReader(b))
		if err != nil {
			t.Fatal(err)
		}
		for name, sum := range p.Tools {
			got, err := lookupTool(bytes.NewReader(b), int64(body), int64(len(b)), name)
			if err != nil || got != sum {
				t.Fatalf("%d tools: %s = %q, %v; want %s", n, name, got, err, sum)
			}
		}
		for _, absent := range []string{"", "a", "tool_", "tool_99999", "zzz", "tool_1x"} {
			if got, err := lookupTool(bytes.NewReader(b), int64(body), int64(len(b)), absent); err != nil || got != "" {
				t.Fatalf("%d tools: absent %q = %q, %v", n, absent, got, err)
			}
		}
	}
}

// TestPinTool reads through the file: header checks and the three
// answers (found, not listed, no table).
func TestPinTool(t *testing.T) {
	data := t.TempDir()
	root, ap := "/ws", "/ws/.jp/policy/policy.json"
	p := pinWithTools(50, func(i int) string { return fmt.Sprintf("t%d", i) })
	p.Root, p.Artifact = root, ap
	p.Inputs = []Input{{Kind: "layer", Path: "/ws/.jp/config.toml", SHA256: SHA256Hex(nil)}, {Kind: "symlink", Path: "/ws/a b", Target: "/x\ny"}}
	b, _ := MarshalPin(p)
	path := PinFile(data, root, ap)
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, b, 0o600)
	if pin, sum, err := PinTool(data, root, ap, "t7"); err != nil || sum != p.Tools["t7"] || !slices.Equal(pin.Inputs, p.Inputs) {
		t.Fatalf("t7: %q %v, inputs %+v", sum, err, pin)
	}
	if back, err := ParsePin(b); err != nil || !slices.Equal(back.Inputs, p.Inputs) {
		t.Fatalf("ParsePin: %+v %v", back, err)
	}
	bad := *p
	bad.Inputs = []Input{{Kind: "file", Path: "/p"}}
	if _, err := MarshalPin(&bad); err == nil {
		t.Error("MarshalPin wrote an input kind exec does not know")
	}
	if pin, sum, err := PinTool(data, root, ap, "nope"); err != nil || sum != "" || pin.Tools == nil {
		t.Fatalf("absent: %q %v", sum, err)
	}
	if _, _, err := PinTool(data, "/other", ap, "t7"); !errors.As(err, new(*NoPinError)) {
		t.Fatalf("another root: %v", err)
	}
	os.WriteFile(PinFile(data, "/other", ap), b, 0o600)
	if _, _, err := PinTool(data, "/other", ap, "t7"); !errors.Is(err, ErrTampered) {
		t.Fatalf("pin copied to another root's key: %v", err)
	}
	// Torn: the last line lost its end.
	os.WriteFile(path, b[:len(b)-5], 0o600)
	if _, _, err := PinTool(data, root, ap, "t99"); !errors.Is(err, ErrTampered) {
		t.Fatalf("torn pin: %v", err)
	}
	p.Tools = nil
	b, _ = MarshalPin(p)
	os.WriteFile(path, b, 0o600)
	if pin, sum, err := PinTool(data, root, ap, "t7"); err != nil || sum != "" || pin.Tools != nil {
		t.Fatalf("no table: %+v %q %v", pin, sum, err)
	}
}

// FuzzPinLookup: for any set of valid tool names, every name is found
// with its own hash and a name outside the set is not; ParsePin and
// lookupTool never panic on arbitrary bytes.
func FuzzPinLookup(f *testing.F) {
	f.Add("a,b,c", "b", []byte("jp-policy pin 6\nroot \"/\"\nartifact \"/a\"\nsha256 "+strings.Repeat("0", 64)+"\ninput layer - \"/l\"\ntools\n"))
	f.Add("a,b,c", "b", []byte("jp-policy pin 4\nroot \"/\"\nartifact \"/a\"\nsha256 "+strings.Repeat("0", 64)+"\ntools\n"))
	f.Add(strings.Repeat("x,", 900)+"tool.long-name_9", "q", []byte("{}"))
	f.Fuzz(func(t *testing.T, names, probe string, raw []byte) {
		if p, err := ParsePin(raw); err == nil {
			b, err := MarshalPin(p)
			if err != nil && p.Tools != nil {
				t.Fatalf("ParsePin accepted a table MarshalPin refuses: %v", err)
			}
			if err == nil && p.Version == PinVersion {
				// What is read is what is written back (inputs included).
				if back, err := ParsePin(b); err != nil || !slices.Equal(back.Inputs, p.Inputs) || len(back.Tools) != len(p.Tools) {
					t.Fatalf("read %+v, written and read back %+v, %v", p, back, err)
				}
			}
		}
		if _, body, err := parsePinHeader(bufioReader(raw)); err == nil && body >= 0 {
			lookupTool(bytes.NewReader(raw), int64(body), int64(len(raw)), probe)
		}
		set, mine := map[string]bool{}, []string{}
		for n := range strings.SplitSeq(names, ",") {
			if ToolFileNameOK(n) && !set[n] {
				set[n] = true
				mine = append(mine, n)
			}
		}
		// Pad so the binary search runs (the table is over scanWindow).
		for i := range 100 {
			set[fmt.Sprintf("pad%04d", i*7)] = true
			set[fmt.Sprintf("m%03d", i)] = true
		}
		p := pinWithTools(0, nil)
		for n := range set {
			p.Tools[n] = SHA256Hex([]byte(n))
		}
		b, err := MarshalPin(p)
		if err != nil {
			t.Fatal(err)
		}
		_, body, err := parsePinHeader(bufioReader(b))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range append(mine, "pad0000", "pad0693", "m050") {
			if got, err := lookupTool(bytes.NewReader(b), int64(body), int64(len(b)), n); err != nil || got != SHA256Hex([]byte(n)) {
				t.Fatalf("%q: %q %v", n, got, err)
			}
		}
		want := ""
		if set[probe] {
			want = SHA256Hex([]byte(probe))
		}
		if got, err := lookupTool(bytes.NewReader(b), int64(body), int64(len(b)), probe); err != nil || got != want {
			t.Fatalf("probe %q: %q %v, want %q", probe, got, err, want)
		}
	})
}

// BenchmarkPinTool is exec's pin read for one tool, at 1 and 10,000
// tools: it must not grow with the table.
func BenchmarkPinTool(b *testing.B) {
	for _, n := range []int{1, 10000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			data := b.TempDir()
			p := pinWithTools(n, func(i int) string { return fmt.Sprintf("tool_%d", i) })
			p.Root, p.Artifact = "/ws", "/ws/a"
			buf, _ := MarshalPin(p)
			path := PinFile(data, "/ws", "/ws/a")
			os.MkdirAll(filepath.Dir(path), 0o700)
			os.WriteFile(path, buf, 0o600)
			for b.Loop() {
				if _, sum, err := PinTool(data, "/ws", "/ws/a", "tool_0"); err != nil || sum == "" {
					b.Fatal(sum, err)
				}
			}
		})
	}
}

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }
