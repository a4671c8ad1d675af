package egress

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/policy"
	"golang.org/x/net/dns/dnsmessage"
)

func port(n uint16) *uint16 { return new(n) }

func TestPlan(t *testing.T) {
	rules := []policy.NetRule{
		{Host: "API.Example.com", Allow: true},               // portless: 80 and 443
		{Host: "db.internal", Port: port(5432), Allow: true}, // a raw TCP port
		{Host: "localhost", Scheme: new("http"), Port: port(8765), Allow: true},
		{Host: "127.0.0.1", Port: port(8765), Allow: true},  // same listener as localhost
		{Host: "10.1.2.3", Port: port(5432), Allow: true},   // no direct address
		{Host: "::1", Port: port(6379), Allow: true},        // no direct address
		{Host: "127.77.0.1", Port: port(9000), Allow: true}, // a literal in NameNet is skipped for names
		{Host: "evil.example", Allow: false},                // deny: no listener
		{Host: "zero.example", Port: port(0), Allow: true},  // port 0: nothing to listen on
		{Host: "localhost", Port: port(3128), Allow: true},  // the proxy's address: left to it
		{Host: "127.0.0.53", Port: port(53), Allow: true},   // the resolver's
	}
	p, err := New(rules, "127.0.0.1:3128")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"api.example.com": "127.77.0.2", "db.internal": "127.77.0.3", "zero.example": "127.77.0.4"}
	if len(p.Names) != len(want) {
		t.Fatalf("names %v, want %v", p.Names, want)
	}
	for n, a := range want {
		if p.Names[n].String() != a {
			t.Errorf("%s -> %v, want %s", n, p.Names[n], a)
		}
	}
	var eps []string
	for _, e := range p.Endpoints {
		eps = append(eps, e.Addr+"="+strings.Join(e.Hosts, ","))
	}
	got := strings.Join(eps, " ")
	wantEps := "127.77.0.2:80=api.example.com 127.77.0.2:443=api.example.com 127.77.0.3:5432=db.internal 127.0.0.1:8765=localhost,127.0.0.1 127.77.0.1:9000=127.77.0.1"
	if got != wantEps {
		t.Errorf("endpoints\n got %s\nwant %s", got, wantEps)
	}
	if len(p.Degraded) != 4 {
		t.Errorf("degraded %q, want the two non-loopback-IPv4 literals and the two reserved addresses", p.Degraded)
	}
	if ps := p.Ports; len(ps) != 5 || ps[0] != 80 || ps[4] != 9000 {
		t.Errorf("ports %v", ps)
	}
}

func query(t testing.TB, name string, typ dnsmessage.Type) []byte {
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: 7, RecursionDesired: true})
	b.StartQuestions()
	if err := b.Question(dnsmessage.Question{Name: dnsmessage.MustNewName(name), Type: typ, Class: dnsmessage.ClassINET}); err != nil {
		t.Fatal(err)
	}
	out, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestResolver(t *testing.T) {
	r := &Resolver{Names: map[string]netip.Addr{"api.example.com": netip.MustParseAddr("127.77.0.1")}}
	for _, tc := range []struct {
		name  string
		typ   dnsmessage.Type
		rcode dnsmessage.RCode
		a     string
	}{
		{"api.example.com.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, "127.77.0.1"},
		{"API.EXAMPLE.COM.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, "127.77.0.1"},
		{"api.example.com.", dnsmessage.TypeAAAA, dnsmessage.RCodeSuccess, ""},
		{"api.example.com.", dnsmessage.TypeTXT, dnsmessage.RCodeSuccess, ""},
		{"x.api.example.com.", dnsmessage.TypeA, dnsmessage.RCodeNameError, ""},
		{"secret-data.attacker.example.", dnsmessage.TypeA, dnsmessage.RCodeNameError, ""},
	} {
		out, ok := r.Answer(query(t, tc.name, tc.typ))
		if !ok {
			t.Fatalf("%s: no answer", tc.name)
		}
		var m dnsmessage.Message
		if err := m.Unpack(out); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if m.Header.ID != 7 || !m.Header.Response || m.Header.RCode != tc.rcode {
			t.Errorf("%s %v: header %+v", tc.name, tc.typ, m.Header)
		}
		var got string
		for _, a := range m.Answers {
			if ar, ok := a.Body.(*dnsmessage.AResource); ok {
				got = netip.AddrFrom4(ar.A).String()
			}
		}
		if got != tc.a || (tc.a == "") != (len(m.Answers) == 0) {
			t.Errorf("%s %v: answers %v, want %q", tc.name, tc.typ, m.Answers, tc.a)
		}
	}
	if _, ok := r.Answer([]byte{1, 2, 3}); ok {
		t.Error("garbage answered")
	}
}

// FuzzResolver: any message is answered without a panic, and an answer
// never carries an address for a name outside the table.
func FuzzResolver(f *testing.F) {
	f.Add(query(f, "api.example.com.", dnsmessage.TypeA))
	f.Add(query(f, "other.example.", dnsmessage.TypeA))
	f.Add([]byte{0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0})
	r := &Resolver{Names: map[string]netip.Addr{"api.example.com": netip.MustParseAddr("127.77.0.1")}}
	f.Fuzz(func(t *testing.T, q []byte) {
		out, ok := r.Answer(q)
		if !ok {
			return
		}
		var m dnsmessage.Message
		if err := m.Unpack(out); err != nil {
			t.Fatalf("unparseable answer: %v", err)
		}
		for _, a := range m.Answers {
			n := strings.ToLower(strings.TrimSuffix(a.Header.Name.String(), "."))
			if _, ok := r.Names[n]; !ok {
				t.Fatalf("answer for %q", n)
			}
		}
	})
}

// Go's own resolver (what a CGO_ENABLED=0 tool uses, sending A and AAAA
// with EDNS0) against a served Resolver: the granted name has its
// address only, the other name does not exist.
func TestResolverWithGoResolver(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Resolver{Names: map[string]netip.Addr{"api.example.com": netip.MustParseAddr("127.77.0.1")}}
	done := make(chan error, 1)
	go func() { done <- r.Serve(pc) }()
	defer func() { pc.Close(); <-done }()
	gr := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
	addrs, err := gr.LookupHost(context.Background(), "api.example.com")
	if err != nil || strings.Join(addrs, " ") != "127.77.0.1" {
		t.Fatalf("granted name: %v, %v", addrs, err)
	}
	_, err = gr.LookupHost(context.Background(), "other.example")
	if de, ok := err.(*net.DNSError); !ok || !de.IsNotFound {
		t.Fatalf("ungranted name: %v, want not found", err)
	}
}
