package netproxy

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
)

const transferSize = 100 << 20

// sourceServer writes transferSize bytes to each connection (after an
// HTTP response header when http is set) and closes it.
func sourceServer(b *testing.B, http bool) net.Listener {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 256<<10)
	serveConns(b, l, func(c net.Conn) {
		if http {
			br := bufio.NewReader(c)
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				if line == "\r\n" {
					break
				}
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(transferSize)+"\r\nConnection: close\r\n\r\n")
		}
		for n := 0; n < transferSize; n += len(buf) {
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	})
	return l
}

func drain(b *testing.B, r io.Reader, want int64) {
	n, err := io.Copy(io.Discard, r)
	if err != nil || n < want {
		b.Fatalf("read %d bytes, %v", n, err)
	}
}

// BenchmarkTransfer: a 100 MB download over loopback, direct and through
// the proxy in the same iteration; reports both throughputs and their
// ratio (goal: proxy/direct >= 0.70). The -splice variants run the
// tunnels through io.Copy (splice(2) on Linux) instead of the buffer loop.
func BenchmarkTransfer(b *testing.B) {
	for _, name := range []string{"connect", "connect-splice", "socks5", "socks5-splice", "http"} {
		mode, splice := strings.CutSuffix(name, "-splice")
		b.Run(name, func(b *testing.B) {
			spliceTunnels = splice
			defer func() { spliceTunnels = false }()
			src := sourceServer(b, mode == "http")
			port := portOf(b, src.Addr())
			proxy, _ := startProxy(b, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}, nil)
			var direct, proxied time.Duration
			b.SetBytes(transferSize)
			for b.Loop() {
				t0 := time.Now()
				c, err := net.Dial("tcp", src.Addr().String())
				if err != nil {
					b.Fatal(err)
				}
				if mode == "http" {
					io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
				}
				drain(b, c, transferSize)
				c.Close()
				t1 := time.Now()
				switch mode {
				case "connect", "socks5":
					var r io.Reader
					c, r = openTunnel(b, mode, proxy, port)
					drain(b, r, transferSize)
				case "http":
					c, _ = net.Dial("tcp", proxy)
					io.WriteString(c, "GET http://127.0.0.1:"+strconv.Itoa(port)+"/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
					drain(b, c, transferSize)
				}
				c.Close()
				direct += t1.Sub(t0)
				proxied += time.Since(t1)
			}
			mbps := func(d time.Duration) float64 { return float64(b.N) * transferSize / 1e6 / d.Seconds() }
			b.ReportMetric(mbps(direct), "direct-MB/s")
			b.ReportMetric(mbps(proxied), "proxy-MB/s")
			b.ReportMetric(direct.Seconds()/proxied.Seconds(), "proxy/direct")
		})
	}
}

// BenchmarkNewConnection: connect and exchange one byte with an echo
// server, direct and through the proxy in the same iteration; reports
// the latency the proxy adds per new connection.
func BenchmarkNewConnection(b *testing.B) {
	for _, mode := range []string{"connect", "socks5"} {
		b.Run(mode, func(b *testing.B) {
			echo := echoServer(b, "tcp", "127.0.0.1:0")
			port := portOf(b, echo.Addr())
			proxy, _ := startProxy(b, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}, nil)
			one := make([]byte, 1)
			var direct, proxied time.Duration
			for b.Loop() {
				t0 := time.Now()
				c, err := net.Dial("tcp", echo.Addr().String())
				if err != nil {
					b.Fatal(err)
				}
				c.Write(one)
				io.ReadFull(c, one)
				c.Close()
				t1 := time.Now()
				switch mode {
				default:
					var r io.Reader
					c, r = openTunnel(b, mode, proxy, port)
					c.Write(one)
					io.ReadFull(r, one)
				}
				c.Close()
				direct += t1.Sub(t0)
				proxied += time.Since(t1)
			}
			per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
			b.ReportMetric(per(direct), "direct-µs/conn")
			b.ReportMetric(per(proxied), "proxy-µs/conn")
			b.ReportMetric(per(proxied)-per(direct), "added-µs/conn")
		})
	}
}

// openTunnel opens a tunnel to 127.0.0.1:port through the proxy by
// CONNECT or SOCKS5 and returns the connection and the reader to read
// tunnel bytes from.
func openTunnel(b *testing.B, mode, proxy string, port int) (net.Conn, io.Reader) {
	if mode == "socks5" {
		code, c := socksDial(b, proxy, socksCmdConnect, socksAtypIPv4, []byte{127, 0, 0, 1}, port)
		if code != 0 {
			b.Fatalf("SOCKS reply %#x", code)
		}
		return c, c
	}
	resp, c, br := connectTunnel(b, proxy, "127.0.0.1:"+strconv.Itoa(port))
	if resp.StatusCode != 200 {
		b.Fatal(resp.Status)
	}
	return c, br
}
