//go:build linux

package launcher

import (
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/jp-policy/jp-policy/internal/egress"
	"github.com/jp-policy/jp-policy/internal/netproxy"
	"github.com/jp-policy/jp-policy/internal/nsroot"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
)

// Transparent egress on the namespaced path (package egress): beside the
// proxy, a resolver that answers only granted names and one listener per
// granted endpoint, so clients that ignore the proxy variables reach
// exactly what the rules grant. The hook has three steps: plan (adds to
// the spec and the Landlock ports before Start), serve (after Start, on
// the listeners after the proxy's) and done.

type egressRun struct {
	plan   *egress.Plan
	resolv string // the generated resolv.conf on the host, removed once bound
}

// planEgress adds the resolver's socket, the endpoints' listeners, the
// resolv.conf bind and the endpoints' ports to spec and net.
func (p *Plan) planEgress(spec *nsroot.Spec, ln *landlock.Net) (*egressRun, error) {
	pl, err := egress.New(p.NetRules, ProxyAddr)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "jp-policy-resolv-*.conf")
	if err != nil {
		return nil, err
	}
	_, werr := f.WriteString(egress.ResolvConf)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return nil, werr
	}
	// The host's resolv.conf is often a symlink (systemd-resolved's stub):
	// the bind goes where it points, which is where a lookup lands.
	dst := "/etc/resolv.conf"
	if real, err := filepath.EvalSymlinks(dst); err == nil {
		dst = real
	}
	spec.Binds = append(spec.Binds, nsroot.Bind{Src: f.Name(), Dst: dst})
	spec.Listen = append(spec.Listen, nsroot.UDPPrefix+egress.DNSAddr)
	for _, e := range pl.Endpoints {
		spec.Listen = append(spec.Listen, e.Addr)
	}
	for _, port := range pl.Ports {
		if port != ProxyPort {
			ln.ConnectTCP = append(ln.ConnectTCP, port)
		}
	}
	return &egressRun{plan: pl, resolv: f.Name()}, nil
}

// serve answers DNS and the endpoints with srv, on files: the sockets
// stage 2 opened for planEgress's Listen entries, in order.
func (e *egressRun) serve(srv *netproxy.Server, files []*os.File) error {
	e.done()
	if len(files) != 1+len(e.plan.Endpoints) {
		return fmt.Errorf("egress: %d sockets for %d endpoints", len(files), len(e.plan.Endpoints))
	}
	pc, err := net.FilePacketConn(files[0])
	files[0].Close()
	if err != nil {
		return err
	}
	r := &egress.Resolver{Names: e.plan.Names}
	go func() { _ = r.Serve(pc) }()
	for i, ep := range e.plan.Endpoints {
		l, err := net.FileListener(files[1+i])
		files[1+i].Close()
		if err != nil {
			pc.Close()
			return err
		}
		go func() { _ = srv.ServeTransparent(l, netproxy.Target{Hosts: ep.Hosts, Port: ep.Port}) }()
	}
	return nil
}

// done removes the generated resolv.conf (the bind holds it once stage 2
// has mounted it).
func (e *egressRun) done() {
	if e != nil && e.resolv != "" {
		os.Remove(e.resolv)
		e.resolv = ""
	}
}
