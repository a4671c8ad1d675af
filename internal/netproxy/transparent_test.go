package netproxy

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// startTransparent serves one transparent listener for t with rules, a
// fake resolver and a dialer that redirects to upstream.
func startTransparent(tb testing.TB, rules []policy.NetRule, tg Target, res *fakeResolver, upstream string) (string, *redirectDialer, *syncBuf) {
	tb.Helper()
	c, err := policy.NewChecker(tb.TempDir(), &policy.AccessPolicy{Net: rules})
	if err != nil {
		tb.Fatal(err)
	}
	d := &redirectDialer{target: upstream}
	log := &syncBuf{}
	s, err := New(Config{Decide: c.CheckNetEndpoint, Log: log, Dial: d, Resolver: res, HeaderTimeout: 5 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.ServeTransparent(l, tg) }()
	tb.Cleanup(func() {
		s.Close()
		if err := <-done; err != ErrServerClosed {
			tb.Errorf("ServeTransparent returned %v, want ErrServerClosed", err)
		}
	})
	return l.Addr().String(), d, log
}

func tlsOrigin(t *testing.T) *httptest.Server {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "tls path="+r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A granted public host:443 through its private address: the TLS bytes
// are relayed unchanged to the address the name resolved to.
func TestTransparentTLSPublicHost(t *testing.T) {
	up := tlsOrigin(t)
	res := &fakeResolver{}
	res.set("api.public.example", "93.184.216.34")
	rules := []policy.NetRule{{Host: "api.public.example", Scheme: new("https"), Allow: true}}
	addr, d, _ := startTransparent(t, rules, Target{Hosts: []string{"api.public.example"}, Port: 443}, res, up.Listener.Addr().String())
	get := func(sni string) (string, error) {
		c, err := tls.Dial("tcp", addr, &tls.Config{ServerName: sni, InsecureSkipVerify: true})
		if err != nil {
			return "", err
		}
		defer c.Close()
		io.WriteString(c, "GET /v1 HTTP/1.1\r\nHost: "+sni+"\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return "", err
		}
		b, _ := io.ReadAll(resp.Body)
		return string(b), nil
	}
	body, err := get("api.public.example")
	if err != nil || body != "tls path=/v1" {
		t.Fatalf("granted SNI: %q, %v", body, err)
	}
	if got := dialled(d); got != "93.184.216.34:443" {
		t.Fatalf("dialled %q, want the resolved address", got)
	}
	// The attack: the same address with another server name.
	if body, err := get("evil.example"); err == nil {
		t.Fatalf("SNI evil.example at api.public.example's address answered %q", body)
	}
	if got := dialled(d); got != "93.184.216.34:443" {
		t.Fatalf("a mismatched SNI was dialled: %q", got)
	}
	if n := strings.Join(res.asked, " "); strings.Contains(n, "evil") {
		t.Fatalf("a mismatched SNI was resolved: %q", n)
	}
}

// DNS rebinding: a granted name that resolves to a private address is
// refused at dial time (policy.CheckResolvedAddr), as on the proxy.
func TestTransparentRebinding(t *testing.T) {
	up := tlsOrigin(t)
	res := &fakeResolver{}
	res.set("api.public.example", "127.0.0.1")
	rules := []policy.NetRule{{Host: "api.public.example", Scheme: new("https"), Allow: true}}
	addr, d, log := startTransparent(t, rules, Target{Hosts: []string{"api.public.example"}, Port: 443}, res, up.Listener.Addr().String())
	c, err := tls.Dial("tcp", addr, &tls.Config{ServerName: "api.public.example", InsecureSkipVerify: true})
	if err == nil {
		c.Close()
		t.Fatal("a name resolving to loopback was connected")
	}
	if got := dialled(d); got != "" {
		t.Fatalf("dialled %q", got)
	}
	if !strings.Contains(log.String(), `"addr":"127.0.0.1"`) {
		t.Fatalf("no address refusal logged: %s", log.String())
	}
}

// Every request of a kept-alive plain HTTP connection is decided with
// its path, not just the first.
func TestTransparentHTTPEveryRequest(t *testing.T) {
	_, port := origin(t)
	rules := []policy.NetRule{{Host: "127.0.0.1", Scheme: new("http"), Port: u16(port), PathPrefix: new("/api/"), Allow: true}}
	addr, _, _ := startTransparent(t, rules, Target{Hosts: []string{"127.0.0.1"}, Port: port}, &fakeResolver{}, "127.0.0.1:"+itoa(port))
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	host := "127.0.0.1:" + itoa(port)
	for _, tc := range []struct {
		path string
		code int
	}{{"/api/a", 200}, {"/secret", 403}} {
		io.WriteString(c, "GET "+tc.path+" HTTP/1.1\r\nHost: "+host+"\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != tc.code {
			t.Fatalf("%s: %d, want %d", tc.path, resp.StatusCode, tc.code)
		}
	}
}

// A protocol whose server speaks first: the client sends nothing, and
// still gets the upstream's banner.
func TestTransparentServerFirst(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveConns(t, l, func(c net.Conn) { io.WriteString(c, "220 banner\r\n") })
	port := portOf(t, l.Addr())
	rules := []policy.NetRule{{Host: "localhost", Port: u16(port), Allow: true}}
	addr, _, _ := startTransparent(t, rules, Target{Hosts: []string{"localhost"}, Port: port}, &fakeResolver{}, l.Addr().String())
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || line != "220 banner\r\n" {
		t.Fatalf("banner %q, %v", line, err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func dialled(d *redirectDialer) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strings.Join(d.asked, " ")
}
