package policy

import (
	"errors"
	"net/netip"
	"testing"
)

func TestAddrClass(t *testing.T) {
	for a, want := range map[string]string{
		"93.184.216.34":            "public",
		"2606:4700::1111":          "public",
		"127.0.0.1":                "loopback",
		"127.9.9.9":                "loopback",
		"::1":                      "loopback",
		"::ffff:127.0.0.1":         "loopback",
		"0.0.0.0":                  "unspecified",
		"::":                       "unspecified",
		"169.254.169.254":          "link-local",
		"fe80::1":                  "link-local",
		"fd00:ec2::254":            "private", // AWS IPv6 metadata is ULA
		"10.1.2.3":                 "private",
		"172.16.0.1":               "private",
		"192.168.1.1":              "private",
		"fec0::1":                  "private",
		"100.64.0.1":               "shared",
		"0.1.2.3":                  "reserved",
		"240.0.0.1":                "reserved",
		"255.255.255.255":          "reserved",
		"198.18.0.1":               "reserved",
		"224.0.0.1":                "link-local",
		"239.1.1.1":                "multicast",
		"ff02::1":                  "link-local",
		"ff05::1":                  "multicast",
		"64:ff9b::7f00:1":          "loopback", // NAT64 of 127.0.0.1
		"64:ff9b::a9fe:a9fe":       "link-local",
		"64:ff9b::5db8:d822":       "public",
		"2002:7f00:1::":            "loopback", // 6to4 of 127.0.0.1
		"2002:c0a8:101::1":         "private",
		"::7f00:1":                 "reserved", // IPv4-compatible
		"64:ff9b:1::1":             "reserved",
		"fe80::1%eth0":             "link-local",
		"2001:db8::1":              "public",
		"::ffff:169.254.169.254":   "link-local",
		"::ffff:93.184.216.34":     "public",
		"64:ff9b::ffff:ffff":       "reserved",
		"2002:0a00:0001:0000::abc": "private",
	} {
		if got := AddrClass(netip.MustParseAddr(a)); got != want {
			t.Errorf("AddrClass(%s) = %s, want %s", a, got, want)
		}
	}
}

func TestCheckResolvedAddr(t *testing.T) {
	for _, tc := range []struct {
		host, addr string
		ok         bool
	}{
		{"api.example.com", "93.184.216.34", true},
		{"api.example.com", "127.0.0.1", false},
		{"api.example.com", "::1", false},
		{"api.example.com", "169.254.169.254", false},
		{"api.example.com", "10.0.0.1", false},
		{"api.example.com", "100.64.0.1", false},
		{"api.example.com", "::ffff:127.0.0.1", false},
		{"localhost", "127.0.0.1", true},
		{"localhost", "::1", true},
		{"localhost", "93.184.216.34", false},
		{"svc.localhost", "127.0.0.2", true},
		{"svc.internal", "10.0.0.1", true},
		{"svc.internal", "93.184.216.34", true},
		{"svc.internal", "127.0.0.1", false},
		{"metadata.google.internal", "169.254.169.254", false},
		{"nas.home.arpa", "192.168.1.5", true},
		{"printer.local", "fd12::5", true},
		{"internal", "10.0.0.1", false}, // a suffix, not the bare label
		{"127.0.0.1", "127.0.0.1", true},
		{"169.254.169.254", "169.254.169.254", true},
		{"127.0.0.1", "127.0.0.2", false},
	} {
		err := CheckResolvedAddr(tc.host, netip.MustParseAddr(tc.addr))
		if (err == nil) != tc.ok {
			t.Errorf("CheckResolvedAddr(%s, %s) = %v, want ok=%v", tc.host, tc.addr, err, tc.ok)
		}
		var ae *AddrError
		if err != nil && (!errors.As(err, &ae) || ae.Hint() == "") {
			t.Errorf("CheckResolvedAddr(%s, %s): %T without a hint", tc.host, tc.addr, err)
		}
	}
}

// FuzzCheckResolvedAddr: a name other than localhost (or a private-use
// one) is granted exactly the public addresses, localhost exactly
// loopback, and an IPv6 address that embeds an IPv4 one is never granted
// more than the IPv4 address itself.
func FuzzCheckResolvedAddr(f *testing.F) {
	f.Add([]byte{127, 0, 0, 1})
	f.Add(netip.MustParseAddr("64:ff9b::7f00:1").AsSlice())
	f.Add(netip.MustParseAddr("2002:a9fe:a9fe::").AsSlice())
	f.Add(netip.MustParseAddr("::ffff:10.0.0.1").AsSlice())
	f.Fuzz(func(t *testing.T, b []byte) {
		a, ok := netip.AddrFromSlice(b)
		if !ok {
			return
		}
		class := AddrClass(a)
		if got := CheckResolvedAddr("api.example.com", a) == nil; got != (class == "public") {
			t.Fatalf("%s (%s): public name granted=%v", a, class, got)
		}
		if got := CheckResolvedAddr("localhost", a) == nil; got != (class == "loopback") {
			t.Fatalf("%s (%s): localhost granted=%v", a, class, got)
		}
		if CheckResolvedAddr("x.internal", a) == nil && class != "public" && class != "private" && class != "shared" {
			t.Fatalf("%s (%s): private-use name granted", a, class)
		}
		if class == "public" {
			b16 := a.As16()
			if nat64.Contains(a) && AddrClass(netip.AddrFrom4([4]byte(b16[12:16]))) != "public" ||
				sixToFour.Contains(a) && AddrClass(netip.AddrFrom4([4]byte(b16[2:6]))) != "public" {
				t.Fatalf("%s is public but embeds a non-public IPv4 address", a)
			}
		}
	})
}
