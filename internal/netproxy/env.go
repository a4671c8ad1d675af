package netproxy

import "strings"

// Env returns the proxy variables for a tool whose proxy listens on addr
// ("127.0.0.1:PORT"), upper- and lower-case, as KEY=VALUE pairs for
// os/exec: HTTP_PROXY for plain http, HTTPS_PROXY (the same endpoint, used
// with CONNECT), ALL_PROXY as socks5h (so the client hands names to the
// proxy instead of resolving them; inside the namespace it could not
// anyway), and an empty NO_PROXY so an inherited bypass list cannot send
// a request around the proxy. Go programs still bypass any proxy for
// localhost and loopback addresses (net/http's rule); docs/netproxy.md
// lists that degraded case.
func Env(addr string) []string {
	vars := [][2]string{
		{"HTTP_PROXY", "http://" + addr},
		{"HTTPS_PROXY", "http://" + addr},
		{"ALL_PROXY", "socks5h://" + addr},
		{"NO_PROXY", ""},
	}
	out := make([]string, 0, 2*len(vars))
	for _, v := range vars {
		out = append(out, v[0]+"="+v[1])
	}
	for _, v := range vars {
		out = append(out, strings.ToLower(v[0])+"="+v[1])
	}
	return out
}
