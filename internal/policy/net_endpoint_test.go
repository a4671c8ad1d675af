package policy

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// Numeric, dotted and mapped spellings of a host canonicalise to one form,
// so a rule about an address covers every way a client can write it.
func TestNormalizeHostSpellings(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"example.com.", "example.com"},
		{"EXAMPLE.Com.", "example.com"},
		{"MÜNCHEN.de.", "xn--mnchen-3ya.de"},
		{"0x7f.1", "127.0.0.1"},
		{"0X7F.0.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"127.0.0.1.", "127.0.0.1"},
		{"0x", "0.0.0.0"},
		{"１２７.０.０.１", "127.0.0.1"},
		{"::ffff:127.0.0.1", "127.0.0.1"},
		{"[::FFFF:7f00:1]", "127.0.0.1"},
		{"[0:0::1]", "::1"},
		{"host1.example", "host1.example"},
		{"1.2.3.4a", "1.2.3.4a"},
	} {
		got, err := NormalizeHost(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("NormalizeHost(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"example.com..", "256.0.0.1", "1.2.3.4.5", "4294967296", "08.1", "0x1g.1", "1.2.3.256", "x.09"} {
		if got, err := NormalizeHost(in); err == nil {
			t.Errorf("NormalizeHost(%q) = %q, want an error", in, got)
		}
	}
}

func TestCheckNetEndpoint(t *testing.T) {
	c := mustChecker(t, tmp(t), &AccessPolicy{Net: []NetRule{
		{Host: "api.github.com", Allow: true},
		{Host: "api.github.com", PathPrefix: new("/admin"), Allow: false},
		{Host: "files.example", PathPrefix: new("/pub"), Allow: true},
		{Host: "root.example", PathPrefix: new("/"), Allow: true},
		{Host: "127.0.0.1", Scheme: new("http"), Port: up(8080), PathPrefix: new("/api"), Allow: true},
		{Host: "127.0.0.1", Port: up(9000), Allow: true},
		{Host: "web.example", Scheme: new("https"), Allow: true},
		{Host: "svc.example", Port: up(8080), Allow: true},
		{Host: "svc.example", Port: up(8081), Allow: true},
		{Host: "svc.example", Scheme: new("http"), Port: up(8080), PathPrefix: new("/admin"), Allow: false},
		{Host: "plain.example", Port: up(80), Allow: true},
		{Host: "plain.example", Port: up(443), Allow: true},
		{Host: "plain.example", Scheme: new("http"), PathPrefix: new("/admin"), Allow: false},
		{Host: "any.example", Port: up(80), Allow: true},
		{Host: "any.example", Port: up(443), Allow: true},
		{Host: "any.example", Port: up(8443), Allow: true},
		{Host: "any.example", PathPrefix: new("/admin"), Allow: false},
	}})
	for _, tc := range []struct {
		scheme, host string
		port         int
		path         string
		allow        bool
		hint         string
	}{
		// Plain HTTP: the path is visible and decides.
		{"http", "api.github.com", -1, "/repos", true, ""},
		{"http", "api.github.com", 80, "/admin/x", false, ""},
		{"http", "127.0.0.1", 8080, "/api/x", true, ""},
		{"http", "0x7f.1", 8080, "/api", true, ""},
		{"http", "2130706433", 8080, "/other", false, ""},
		{"http", "127.0.0.1", 8081, "/api/x", false, ""},
		// Tunnels: no path.
		{"https", "web.example", 443, "", true, ""},
		{"https", "WEB.example.", -1, "", true, ""},
		{"http", "web.example", 80, "", false, ""},
		{"https", "files.example", 443, "", false, "allows only some paths"},
		{"https", "api.github.com", 443, "", false, "denies part of this host"},
		{"https", "root.example", 443, "", true, ""},
		{"", "127.0.0.1", 9000, "", true, ""},
		{"", "127.1", 9000, "", true, ""},
		{"", "127.0.0.1", 8080, "", false, ""},
		{"", "web.example", 443, "", false, ""},
		// A path-scoped deny rule refuses a tunnel to its host and
		// port whatever scheme it names: the tunnel can carry it.
		{"https", "svc.example", 8080, "", false, "denies part of this host"},
		{"", "svc.example", 8080, "", false, "denies part of this host"},
		{"", "svc.example", 8081, "", true, ""},
		{"https", "plain.example", 80, "", false, "denies part of this host"},
		{"", "plain.example", 80, "", false, "denies part of this host"},
		{"https", "plain.example", 443, "", true, ""},
		{"", "any.example", 443, "", false, "denies part of this host"},
		{"", "any.example", 80, "", false, "denies part of this host"},
		{"", "any.example", 8443, "", true, ""},
		// Malformed.
		{"", "web.example", -1, "", false, ""},
		{"h t", "web.example", 1, "", false, ""},
		{"https", "a..b", 443, "", false, ""},
		{"https", "web.example", 70000, "", false, ""},
	} {
		d := c.CheckNetEndpoint(tc.scheme, tc.host, tc.port, tc.path)
		if d.Allowed != tc.allow || (!d.Allowed && d.Err == nil) {
			t.Errorf("CheckNetEndpoint(%q, %q, %d, %q) = %v, %v; want %v", tc.scheme, tc.host, tc.port, tc.path, d.Allowed, d.Err, tc.allow)
			continue
		}
		var de *DeniedError
		if tc.hint != "" && (!errors.As(d.Err, &de) || !strings.Contains(de.Hint, tc.hint)) {
			t.Errorf("CheckNetEndpoint(%q, %q, %d, %q): hint %q, want it to say %q", tc.scheme, tc.host, tc.port, tc.path, de.Hint, tc.hint)
		}
	}
	if d := c.CheckNetEndpoint("https", "api.github.com", 443, ""); !strings.Contains(d.Human(), `rule "api.github.com/admin"`) {
		t.Errorf("a tunnel refused by a path rule should name it:\n%s", d.Human())
	}
}

// FuzzCheckNetEndpoint: for any URL CheckNet can parse, CheckNetEndpoint
// on its scheme, host, port and path gives the same verdict and rule; and
// without the path, an allowed tunnel is allowed for the URL's path too
// (hiding the path never widens what is allowed).
func FuzzCheckNetEndpoint(f *testing.F) {
	for _, s := range []string{
		"https://api.github.com/repos", "http://api.github.com/admin/x", "https://API.github.com.:443/",
		"http://0x7f.1:8080/api/x", "http://[::ffff:127.0.0.1]:8080/api", "https://files.example/pub/a",
		"ftp://files.example/pub", "foo://api.github.com:1/", "https://münchen.de/", "http://2130706433:9000/",
		"http://svc.example:8080/admin/x",
	} {
		f.Add(s)
	}
	c, err := NewChecker(f.TempDir(), &AccessPolicy{Net: []NetRule{
		{Host: "api.github.com", Allow: true},
		{Host: "api.github.com", PathPrefix: new("/admin"), Allow: false},
		{Host: "files.example", PathPrefix: new("/pub"), Allow: true},
		{Host: "127.0.0.1", Scheme: new("http"), Port: up(8080), PathPrefix: new("/api"), Allow: true},
		{Host: "127.0.0.1", Port: up(9000), Allow: true},
		{Host: "münchen.de", Scheme: new("https"), Allow: true},
		{Host: "svc.example", Port: up(8080), Allow: true},
		{Host: "svc.example", Scheme: new("http"), Port: up(8080), PathPrefix: new("/admin"), Allow: false},
	}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		want := c.CheckNet(raw)
		if want.Err != nil && ErrorKind(want.Err) == "invalid" {
			return
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("CheckNet parsed %q but url.Parse fails: %v", raw, err)
		}
		port := -1
		if ps := u.Port(); ps != "" {
			n, err := strconv.Atoi(ps)
			if err != nil {
				t.Fatalf("port %q", ps)
			}
			port = n
		}
		p := u.Path
		if p == "" {
			p = "/"
		}
		got := c.CheckNetEndpoint(u.Scheme, u.Hostname(), port, p)
		if got.Allowed != want.Allowed || ruleLabel(got.Rule) != ruleLabel(want.Rule) {
			t.Fatalf("%q: CheckNet %v %s, CheckNetEndpoint %v %s", raw, want.Allowed, ruleLabel(want.Rule), got.Allowed, ruleLabel(got.Rule))
		}
		if tun := c.CheckNetEndpoint(u.Scheme, u.Hostname(), port, ""); tun.Allowed && !want.Allowed {
			t.Fatalf("%q: refused with its path but allowed as a tunnel by %s", raw, ruleLabel(tun.Rule))
		}
		// A path deny rule refuses every tunnel to the host and port it
		// covers, whatever scheme the tunnel is decided as.
		if r, ok := want.Rule.(NetRule); ok && !want.Allowed && r.PathPrefix != nil {
			eff := port
			if eff < 0 {
				def, ok := DefaultPort(u.Scheme)
				if !ok {
					return
				}
				eff = int(def)
			}
			for _, sch := range []string{"", "https", "http", "socks"} {
				if tun := c.CheckNetEndpoint(sch, u.Hostname(), eff, ""); tun.Allowed {
					t.Fatalf("%q: refused by %s with its path, but a tunnel as %q to port %d is allowed by %s", raw, ruleLabel(want.Rule), sch, eff, ruleLabel(tun.Rule))
				}
			}
		}
	})
}
