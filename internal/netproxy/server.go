package netproxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"sync"
	"time"

	"github.com/jp-policy/jp-policy/policy"
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
	// HeaderTimeout bounds the time from accept (or from the end of the
	// previous request on a kept-alive connection) to a complete request
	// header or SOCKS request (default 30 s).
	HeaderTimeout time.Duration
	// IdleTimeout closes a kept-alive HTTP client connection with no
	// request in flight (default 2 min).
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds an HTTP request header (default 64 KiB).
	MaxHeaderBytes int
}

// ErrServerClosed is returned by Serve after Close or Shutdown.
var ErrServerClosed = errors.New("netproxy: server closed")

// Server is the filtering proxy. Create it with New and run it with
// Serve; it serves one listener once.
type Server struct {
	cfg       Config
	dial      Dialer
	resolver  Resolver
	slots     chan struct{} // one token per open client connection
	logMu     sync.Mutex
	transport *http.Transport
	rp        *httputil.ReverseProxy
	hs        *http.Server
	hl        *connListener

	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]struct{} // SOCKS and tunnel conns (http.Server tracks its own)
	closed bool
	wg     sync.WaitGroup // per-connection goroutines we start
	// ctx is cancelled by Close, ending SOCKS dials in flight.
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
	s := &Server{cfg: cfg, dial: cfg.Dial, resolver: cfg.Resolver, conns: map[net.Conn]struct{}{}}
	s.slots = make(chan struct{}, cfg.MaxConns)
	if s.resolver == nil {
		s.resolver = net.DefaultResolver
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if s.dial == nil {
		s.dial = &net.Dialer{Timeout: cfg.DialTimeout}
	}
	s.transport = &http.Transport{
		Proxy:                  nil, // never the environment's proxy
		DialContext:            s.dialUpstream,
		DisableCompression:     true, // pass the client's Accept-Encoding through untouched
		MaxIdleConnsPerHost:    8,
		IdleConnTimeout:        90 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: int64(cfg.MaxHeaderBytes) * 4,
	}
	s.rp = &httputil.ReverseProxy{
		Rewrite:      rewrite,
		Transport:    s.transport,
		ErrorHandler: s.upstreamError,
		ErrorLog:     discardLogger(),
	}
	s.hs = &http.Server{
		Handler:           http.HandlerFunc(s.serveHTTP),
		ReadHeaderTimeout: cfg.HeaderTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    cfg.MaxHeaderBytes,
		ErrorLog:          discardLogger(),
	}
	return s, nil
}

// Serve accepts connections on l until Close or Shutdown (then it returns
// ErrServerClosed) or until Accept fails. It closes l when it returns.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closed || s.ln != nil {
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	s.ln = l
	s.hl = newConnListener(l.Addr())
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		s.hs.Serve(s.hl)
	}()
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
		go s.handle(c)
	}
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// track registers conns so Close can end them, and counts one goroutine
// in wg (the caller runs it and calls wg.Done); false once closed. Both
// happen under mu, so no wg.Add can race with Close's wg.Wait.
func (s *Server) track(conns ...net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	for _, c := range conns {
		s.conns[c] = struct{}{}
	}
	s.wg.Add(1)
	return true
}

func (s *Server) untrack(conns ...net.Conn) {
	s.mu.Lock()
	for _, c := range conns {
		delete(s.conns, c)
	}
	s.mu.Unlock()
}

// handle sniffs the first byte: 0x05 is SOCKS5, anything else goes to
// the HTTP server (which answers garbage with 400).
func (s *Server) handle(c net.Conn) {
	defer s.wg.Done()
	c.SetDeadline(time.Now().Add(s.cfg.HeaderTimeout))
	var b [1]byte
	if _, err := io.ReadFull(c, b[:]); err != nil {
		s.untrack(c)
		c.Close()
		return
	}
	pc := &prefixConn{Conn: c, pre: b[:]}
	if b[0] == socksVersion {
		defer s.untrack(c)
		defer c.Close()
		s.serveSOCKS(pc)
		return
	}
	// http.Server tracks the connection from here and sets its own
	// deadlines; a hijacked CONNECT is tracked again by tunnel.
	s.untrack(c)
	c.SetDeadline(time.Time{})
	if !s.hl.deliver(pc) {
		c.Close()
	}
}

// Close stops the server at once: the listener, every client and
// upstream connection, and idle upstream connections. It waits for the
// goroutines it started.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	ln := s.ln
	s.cancel()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	err := s.hs.Close()
	s.wg.Wait()
	s.transport.CloseIdleConnections()
	return err
}

// Shutdown stops accepting, lets in-flight HTTP requests and open tunnels
// finish until ctx is done, then closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	ln := s.ln
	s.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	err := s.hs.Shutdown(ctx)
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		if err == nil {
			err = ctx.Err()
		}
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

// prefixConn replays the sniffed byte before reading from Conn.
type prefixConn struct {
	net.Conn
	pre []byte
}

func (p *prefixConn) Read(b []byte) (int, error) {
	if len(p.pre) > 0 {
		n := copy(b, p.pre)
		p.pre = p.pre[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}

// connListener hands sniffed HTTP connections to http.Server.
type connListener struct {
	addr net.Addr
	ch   chan net.Conn
	once sync.Once
	done chan struct{}
}

func newConnListener(addr net.Addr) *connListener {
	return &connListener{addr: addr, ch: make(chan net.Conn), done: make(chan struct{})}
}

func (l *connListener) deliver(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return l.addr }

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
