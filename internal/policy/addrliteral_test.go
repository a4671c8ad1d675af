package policy

import (
	"net/netip"
	"testing"
)

// FuzzParseAddrLiteral: the pre-check only skips inputs netip.ParseAddr
// refuses, and what it parses is netip's answer.
func FuzzParseAddrLiteral(f *testing.F) {
	for _, s := range []string{"", "1.2.3.4", "::1", "fe80::1%eth0", "fe80::1%", "::ffff:1.2.3.4", "api.github.com",
		"deadbeef", "1.2.3", "[::1]", "0x7f.1", "127.1", "FE80::A%zone with space", "1.2.3.4%x", "gg::1", "::g"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseAddrLiteral(s)
		want, err := netip.ParseAddr(s)
		if ok != (err == nil) || ok && got != want {
			t.Errorf("parseAddrLiteral(%q) = %v, %v; netip.ParseAddr = %v, %v", s, got, ok, want, err)
		}
	})
}
