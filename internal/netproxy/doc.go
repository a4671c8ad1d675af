// Package netproxy owns the filtering egress proxy that jp-policy's
// launcher runs for a sandboxed tool whose network namespace holds only
// loopback: one TCP port that speaks an HTTP/1.1 forward proxy (plain
// http:// in absolute form, path visible), HTTP CONNECT (https:// and
// other TLS, path hidden) and SOCKS5 (no auth, CONNECT only), told apart
// by the first byte a client sends.
//
// Every request is decided by package policy (Checker.CheckNetEndpoint,
// the engine behind `jp-policy check net`); the package makes no decision
// of its own beyond refusing malformed requests. Names are resolved by
// the proxy (Config.Resolver), never by the tool, once per connection;
// only the addresses policy.CheckResolvedAddr grants for the matched host
// are dialled, by IP, so an allowed name cannot take the proxy (which
// runs in the host's network namespace) to loopback, link-local or
// private addresses, and DNS rebinding between check and connect gains
// nothing. Connections are capped (Config.MaxConns).
//
// HTTP is spoken by the package's own reader and writer (head.go,
// body.go, http.go), not net/http: linking net/http (and crypto/tls,
// x509, mime) would add its initialisation to every jp-policy command's
// start-up for this proxy alone (docs/netproxy.md, "The HTTP front end"). The
// reader is stricter than net/http wherever a lenient reading could let
// the proxy and the server behind it frame a message differently (bare
// LF, obs-fold, Content-Length with Transfer-Encoding, repeated
// Content-Length); FuzzRequestHeadDifferential holds it to
// http.ReadRequest everywhere else. Bodies are re-framed by the proxy,
// and responses too.
//
// The package never opens a listener: Serve takes one, which the launcher
// may have created inside the tool's network namespace and passed over a
// file descriptor. Env returns the proxy variables for the tool. A JSON
// line per decision goes to Config.Log. See docs/netproxy.md for the
// design, the degraded cases and the measured figures.
package netproxy
