//go:build linux

package nsroot

import (
	"net"
	"testing"
)

// A UDP socket bound inside the namespace on a privileged port (the
// egress resolver's 127.0.0.53:53), handed back and read from outside.
func TestListenUDP(t *testing.T) {
	requireUserns(t)
	s := baseSpec(t)
	s.Net = true
	s.Listen = []string{"127.0.0.1:8123", UDPPrefix + "127.0.0.53:53"}
	s.Argv = []string{s.Path, "connect", "udp", "127.0.0.53:53", "query"}
	c, err := Start(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Listeners) != 2 {
		t.Fatalf("got %d sockets, want 2", len(c.Listeners))
	}
	pc, err := net.FilePacketConn(c.Listeners[1])
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	buf := make([]byte, 64)
	n, _, err := pc.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "query" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	for _, f := range c.Listeners {
		f.Close()
	}
	if code, _ := c.Wait(); code != 0 {
		t.Errorf("exit %d", code)
	}
}
