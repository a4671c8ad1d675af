package netproxy

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// Decider decides one request: scheme ("" when unknown), host as the
// client spelled it, port (-1 for the scheme's default) and path ("" when
// not visible). Checker.CheckNetEndpoint is the one to use.
type Decider func(scheme, host string, port int, path string) policy.Decision

// Dialer opens the upstream connection for an allowed request. addr is
// always "IP:port": names are resolved by Config.Resolver and each address
// checked (policy.CheckResolvedAddr) before the Dialer sees it.
type Dialer interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
}

// Config configures a Server. Decide is required; the rest have defaults.
type Config struct {
	Decide Decider
	// Log receives one JSON line per decision (see LogEntry); nil for
	// none. Writes are serialised.
	Log io.Writer
	// Dial opens upstream connections to IP:port; default a net.Dialer.
	Dial Dialer
	// Resolver resolves allowed names (never localhost, never an IP
	// literal); default net.DefaultResolver.
	Resolver Resolver
	// MaxConns bounds the client connections open at once (HTTP, CONNECT
	// tunnels and SOCKS together); one more is closed at accept. Default
	// 512.
	MaxConns int
	// DialTimeout bounds an upstream dial (default 10 s).
	DialTimeout time.Duration
	// HeaderTimeout bounds the time from accept to a complete request
	// head or SOCKS request, and on a kept-alive HTTP connection from the
	// next request's first byte to its complete head (default 30 s). A
	// connection that runs out of it is closed unanswered.
	HeaderTimeout time.Duration
	// IdleTimeout closes a kept-alive HTTP client connection that has
	// sent no byte of a next request for this long, and fails a request
	// whose upstream takes less than 16 KiB of its body in this long
	// (default 2 min).
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds an HTTP request head, request line included
	// (default 64 KiB; a longer one is answered 431), a chunked body's
	// trailer section, and, times four, an upstream response head.
	MaxHeaderBytes int
}

// ErrServerClosed is returned by Serve after Close or Shutdown.
var ErrServerClosed = errors.New("netproxy: server closed")

// Server is the filtering proxy. Create it with New and run it with
// Serve; it serves one listener once.
type Server struct {
	cfg      Config
	dial     Dialer
	resolver Resolver
	slots    chan struct{} // one token per open client connection
	logMu    sync.Mutex

	mu    sync.Mutex
	ln    net.Listener
	extra []net.Listener        // ServeTransparent's listeners
	conns map[net.Conn]struct{} // every client and upstream connection
	// idle are HTTP client connections waiting for their next request,
	// which Shutdown closes at once.
	idle     map[net.Conn]struct{}
	pool     map[string][]idleConn // idle upstream connections (upstream.go)
	nIdle    int
	draining bool           // Shutdown: no new connections or requests
	closed   bool           // Close: nothing new at all
	wg       sync.WaitGroup // per-connection goroutines we start
	// ctx is cancelled by Close, ending dials in flight.
	ctx    context.Context
	cancel context.CancelFunc
}

// New checks cfg and returns a Server.
func New(cfg Config) (*Server, error) {
	if cfg.Decide == nil {
		return nil, errors.New("netproxy: Config.Decide is required")
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 10 * time.Second
	}
	if cfg.HeaderTimeout <= 0 {
		cfg.HeaderTimeout = 30 * time.Second
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 2 * time.Minute
	}
	if cfg.MaxHeaderBytes <= 0 {
		cfg.MaxHeaderBytes = 64 << 10
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 512
	}
	s := &Server{cfg: cfg, dial: cfg.Dial, resolver: cfg.Resolver, conns: map[net.Conn]struct{}{}, idle: map[net.Conn]struct{}{}, pool: map[string][]idleConn{}}
	s.slots = make(chan struct{}, cfg.MaxConns)
	if s.resolver == nil {
		s.resolver = net.DefaultResolver
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if s.dial == nil {
		s.dial = &net.Dialer{Timeout: cfg.DialTimeout}
	}
	return s, nil
}

// Serve accepts connections on l until Close or Shutdown (then it returns
// ErrServerClosed) or until Accept fails. It closes l when it returns.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closed || s.draining || s.ln != nil {
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	s.ln = l
	s.mu.Unlock()
	return s.acceptLoop(l, s.handle)
}

// acceptLoop accepts on l, within MaxConns, and runs handle for each
// connection (which calls wg.Done), until Close, Shutdown or an Accept
// failure. It closes l when it returns.
func (s *Server) acceptLoop(l net.Listener, handle func(net.Conn)) error {
	defer l.Close()
	var delay time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			if s.isClosed() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				// Temporary exhaustion (EMFILE and the like): back off
				// as net/http does instead of spinning.
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		select {
		case s.slots <- struct{}{}:
			c = &slotConn{Conn: c, slots: s.slots}
		default:
			// Over MaxConns: a tool opening connections without end
			// would otherwise exhaust the supervisor's descriptors.
			c.Close()
			continue
		}
		if !s.track(c) {
			c.Close()
			return ErrServerClosed
		}
		go handle(c)
	}
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed || s.draining
}

func (s *Server) isShuttingDown() bool { return s.isClosed() }

// track registers a client connection so Close can end it, and counts
// its goroutine in wg (the caller runs it and calls wg.Done); false once
// closed or draining. Both happen under mu, so no wg.Add can race with
// Close's wg.Wait.
func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.draining {
		return false
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return true
}

// addConn registers an upstream connection so Close can end it; false
// once closed (a request in flight during Shutdown may still dial).
func (s *Server) addConn(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) removeConn(c net.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	delete(s.idle, c)
	s.mu.Unlock()
}

// setIdle marks an HTTP client connection as waiting for its next
// request (or no longer); false when the server is shutting down, and
// the connection should end.
func (s *Server) setIdle(c net.Conn, idle bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if idle {
		s.idle[c] = struct{}{}
	} else {
		delete(s.idle, c)
	}
	return !s.closed && !s.draining
}

// handle sniffs the first byte: 0x05 is SOCKS5, anything else is HTTP
// (garbage is answered 400 by the request parser).
func (s *Server) handle(c net.Conn) {
	defer s.wg.Done()
	defer s.removeConn(c)
	defer c.Close()
	c.SetDeadline(time.Now().Add(s.cfg.HeaderTimeout))
	br := bufio.NewReaderSize(c, 4<<10)
	b, err := br.Peek(1)
	if err != nil {
		return
	}
	if b[0] == socksVersion {
		s.serveSOCKS(c, br)
		return
	}
	s.serveHTTP(c, br)
}

// Close stops the server at once: the listener, every client and
// upstream connection. It waits for the goroutines it started.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	ln := s.ln
	s.cancel()
	s.closeIdleLocked()
	for c := range s.conns {
		c.Close()
	}
	extra := s.extra
	s.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	for _, l := range extra {
		l.Close()
	}
	s.wg.Wait()
	return nil
}

// Shutdown stops accepting, closes HTTP connections waiting for a
// request, lets requests in flight and open tunnels finish until ctx is
// done, then closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.draining = true
	ln := s.ln
	for c := range s.idle {
		c.Close()
	}
	s.closeIdleLocked()
	extra := s.extra
	s.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	for _, l := range extra {
		l.Close()
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	<-done
	return err
}

// slotConn gives back its MaxConns slot when it is first closed, by
// whichever owner (http.Server, a tunnel, SOCKS, Close) closes it.
type slotConn struct {
	net.Conn
	slots chan struct{}
	once  sync.Once
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { <-c.slots })
	return err
}

func (c *slotConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
