package nsroot

import (
	"net/netip"
	"testing"
)

func TestParseListenAddr(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ok   bool
		ip   [4]byte
		port uint16
	}{
		{"127.0.0.1:3128", true, [4]byte{127, 0, 0, 1}, 3128},
		{"0.0.0.0:0", true, [4]byte{}, 0},
		{"255.255.255.255:65535", true, [4]byte{255, 255, 255, 255}, 65535},
		{"127.0.0.1:65536", false, [4]byte{}, 0},
		{"127.0.0.1", false, [4]byte{}, 0},
		{"127.0.0.1:", false, [4]byte{}, 0},
		{"127.0.01.1:80", false, [4]byte{}, 0},
		{"256.0.0.1:80", false, [4]byte{}, 0},
		{"1.2.3:80", false, [4]byte{}, 0},
		{"1.2.3.4.5:80", false, [4]byte{}, 0},
		{"[::1]:80", false, [4]byte{}, 0},
		{"localhost:80", false, [4]byte{}, 0},
	} {
		ip, port, err := parseListenAddr(tc.in)
		if (err == nil) != tc.ok || ip != tc.ip || port != tc.port {
			t.Errorf("%q: %v %d %v, want %v %d ok=%v", tc.in, ip, port, err, tc.ip, tc.port, tc.ok)
		}
	}
}

// FuzzParseListenAddr: parseListenAddr takes exactly the IPv4 addresses
// net/netip.ParseAddrPort takes, with the same address and port, and
// nothing else.
func FuzzParseListenAddr(f *testing.F) {
	for _, s := range []string{"127.0.0.1:3128", "1.2.3.4:0080", "01.2.3.4:1", "[::1]:80", "::ffff:1.2.3.4:5", "1.2.3.4%eth0:1", "1.2.3.4:+1", "1.2.3.4:-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ip, port, err := parseListenAddr(s)
		ap, nerr := netip.ParseAddrPort(s)
		want := nerr == nil && ap.Addr().Is4()
		if (err == nil) != want {
			t.Fatalf("%q: ours %v, netip %v %v", s, err, ap, nerr)
		}
		if want && (ip != ap.Addr().As4() || port != ap.Port()) {
			t.Fatalf("%q: ours %v:%d, netip %v", s, ip, port, ap)
		}
	})
}
