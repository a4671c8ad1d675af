//go:build darwin || windows

package launcher

import "net"

// startHostProxy serves the tool's filtering proxy on a free loopback
// port of the host and points the plan's environment at it. On macOS the
// SBPL profile lets the tool reach only that port (SandboxExecArgv
// defines it); on Windows nothing makes the tool use it (a job object
// cannot block sockets), so the manifest marks it cooperative. stop
// closes it once the command has exited.
func startHostProxy(p *Plan) (stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv, err := proxyFor(p.WorkspaceRoot, p.NetRules, nil)
	if err != nil {
		ln.Close()
		return nil, err
	}
	p.HostProxy = ln.Addr().String()
	p.Env = withProxyAt(p.Env, p.HostProxy)
	go func() { _ = srv.Serve(ln) }()
	return func() { _ = srv.Close() }, nil
}
