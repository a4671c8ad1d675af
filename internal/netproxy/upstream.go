package netproxy

import (
	"bufio"
	"net"
	"time"
)

// The idle pool of upstream connections on the plain HTTP path, as
// net/http's Transport kept one: a client that opens a new connection
// per request (curl, git, most tools: one process, one connection)
// would otherwise pay an upstream TCP handshake each time. A pooled
// connection is keyed by the decided "canonical-host:port" and was
// dialled, after policy.CheckResolvedAddr, to an address that name was
// granted; every request on it is still decided on its own first.
const (
	maxIdlePerHost  = 8
	maxIdle         = 64
	idleConnTimeout = 90 * time.Second
)

type idleConn struct {
	c     net.Conn
	br    *bufio.Reader
	bw    *bufio.Writer
	since time.Time
}

// putIdle pools ic for key, or closes it when the pool is full, the
// server is stopping, or the upstream already sent bytes nobody asked
// for.
func (s *Server) putIdle(key string, ic idleConn) {
	now := time.Now()
	s.mu.Lock()
	l := s.pool[key]
	// Drop the expired ones first (oldest at the front).
	n := 0
	for n < len(l) && now.Sub(l[n].since) >= idleConnTimeout {
		l[n].c.Close()
		delete(s.conns, l[n].c)
		n++
	}
	l = l[n:]
	s.nIdle -= n
	ok := !s.closed && !s.draining && len(l) < maxIdlePerHost && s.nIdle < maxIdle && ic.br.Buffered() == 0
	if ok {
		ic.since = now
		l = append(l, ic)
		s.nIdle++
	}
	if len(l) == 0 {
		delete(s.pool, key)
	} else {
		s.pool[key] = l
	}
	s.mu.Unlock()
	if !ok {
		ic.c.Close()
		s.removeConn(ic.c)
	}
}

// takeIdle returns the most recently pooled live connection for key.
func (s *Server) takeIdle(key string) (idleConn, bool) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.pool[key]
	for len(l) > 0 {
		ic := l[len(l)-1]
		l = l[:len(l)-1]
		s.nIdle--
		if now.Sub(ic.since) < idleConnTimeout {
			s.setPool(key, l)
			return ic, true
		}
		ic.c.Close()
		delete(s.conns, ic.c)
	}
	s.setPool(key, l)
	return idleConn{}, false
}

func (s *Server) setPool(key string, l []idleConn) {
	if len(l) == 0 {
		delete(s.pool, key)
	} else {
		s.pool[key] = l
	}
}

// closeIdleLocked closes every pooled connection; s.mu is held.
func (s *Server) closeIdleLocked() {
	for key, l := range s.pool {
		for _, ic := range l {
			ic.c.Close()
			delete(s.conns, ic.c)
		}
		delete(s.pool, key)
	}
	s.nIdle = 0
}
