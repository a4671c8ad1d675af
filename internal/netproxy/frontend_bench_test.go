package netproxy

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strconv"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// netHTTPProxy is the plain HTTP path as it was before the proxy had its
// own front end: net/http's server, httputil.ReverseProxy and a
// Transport with that code's settings, deciding with the same Checker.
// It is BenchmarkHTTPFrontEnd's baseline and nothing else.
func netHTTPProxy(b *testing.B, rules []policy.NetRule) string {
	k, err := policy.NewChecker(b.TempDir(), &policy.AccessPolicy{Net: rules})
	if err != nil {
		b.Fatal(err)
	}
	tr := &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: 8, IdleConnTimeout: 90 * time.Second}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Host = pr.In.URL.Host
			pr.Out.Host = pr.In.URL.Host
		},
		Transport: tr,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		port, _ := strconv.Atoi(r.URL.Port())
		if d := k.CheckNetEndpoint("http", r.URL.Hostname(), port, r.URL.Path); !d.Allowed {
			http.Error(w, "denied", http.StatusForbidden)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	b.Cleanup(func() { srv.Close(); tr.CloseIdleConnections() })
	return srv.Listener.Addr().String()
}

// BenchmarkHTTPFrontEnd compares the proxy's own HTTP/1.1 front end
// ("new") with the net/http + httputil.ReverseProxy path it replaced
// ("old"), both in the same iteration so load changes hit both:
//
//   - keepalive: one small GET on a kept-alive client connection
//     (per-request latency, upstream kept by both);
//   - newconn: a new client connection per small GET;
//   - transfer: a 100 MB response (throughput).
func BenchmarkHTTPFrontEnd(b *testing.B) {
	small := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "0123456789abcdef0123456789abcdef")
	}))
	b.Cleanup(small.Close)
	smallPort := portOf(b, small.Listener.Addr())
	for _, mode := range []string{"keepalive", "newconn", "transfer"} {
		b.Run(mode, func(b *testing.B) {
			port := smallPort
			if mode == "transfer" {
				port = portOf(b, sourceServer(b, true).Addr())
				b.SetBytes(transferSize)
			}
			rules := []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}
			proxies := map[string]string{"old": netHTTPProxy(b, rules)}
			proxies["new"], _ = startProxy(b, rules, nil)
			url := "http://127.0.0.1:" + strconv.Itoa(port) + "/x"
			type client struct {
				c  net.Conn
				br *bufio.Reader
			}
			kept := map[string]*client{}
			spent := map[string]time.Duration{}
			for b.Loop() {
				for _, name := range []string{"new", "old"} {
					t0 := time.Now()
					cl := kept[name]
					if cl == nil {
						c, err := net.Dial("tcp", proxies[name])
						if err != nil {
							b.Fatal(err)
						}
						cl = &client{c, bufio.NewReaderSize(c, 64<<10)}
					}
					req := "GET " + url + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
					if mode != "keepalive" {
						req += "Connection: close\r\n"
					}
					io.WriteString(cl.c, req+"\r\n")
					resp, err := http.ReadResponse(cl.br, nil)
					if err != nil || resp.StatusCode != 200 {
						b.Fatalf("%s: %v %v", name, resp, err)
					}
					n, err := io.Copy(io.Discard, resp.Body)
					if err != nil || mode == "transfer" && n != transferSize {
						b.Fatalf("%s: read %d, %v", name, n, err)
					}
					if mode == "keepalive" {
						kept[name] = cl
					} else {
						cl.c.Close()
					}
					spent[name] += time.Since(t0)
				}
			}
			for _, cl := range kept {
				cl.c.Close()
			}
			if mode == "transfer" {
				mbps := func(d time.Duration) float64 { return float64(b.N) * transferSize / 1e6 / d.Seconds() }
				b.ReportMetric(mbps(spent["new"]), "new-MB/s")
				b.ReportMetric(mbps(spent["old"]), "old-MB/s")
			} else {
				per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
				b.ReportMetric(per(spent["new"]), "new-µs/req")
				b.ReportMetric(per(spent["old"]), "old-µs/req")
			}
			b.ReportMetric(spent["new"].Seconds()/spent["old"].Seconds(), "new/old-time")
		})
	}
}
