package execplan

import (
	"bufio"
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
