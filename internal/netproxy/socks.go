package netproxy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// SOCKS5 (RFC 1928) constants.
const (
	socksVersion = 0x05

	socksAuthNone       = 0x00
	socksAuthNoneOK     = 0xFF // "no acceptable methods"
	socksCmdConnect     = 0x01
	socksAtypIPv4       = 0x01
	socksAtypDomain     = 0x03
	socksAtypIPv6       = 0x04
	socksSucceeded      = 0x00
	socksGeneralFailure = 0x01
	socksNotAllowed     = 0x02
	socksHostUnreach    = 0x04
	socksConnRefused    = 0x05
	socksCmdUnsupported = 0x07
	socksAtypUnsupp     = 0x08
)

// socksRequest is a parsed SOCKS5 request.
type socksRequest struct {
	cmd  byte
	atyp byte
	host string // domain as sent, or the IP literal
	port int
}

// errSocks is a handshake failure with the reply code to send (0 = close
// without a reply, the client did not speak SOCKS5).
type errSocks struct {
	code byte
	msg  string
}

func (e *errSocks) Error() string { return "socks5: " + e.msg }

// readSocksGreeting reads the method negotiation and reports whether "no
// authentication" was offered.
func readSocksGreeting(r *bufio.Reader) (bool, error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return false, err
	}
	if h[0] != socksVersion {
		return false, &errSocks{msg: "not SOCKS version 5"}
	}
	methods := make([]byte, h[1])
	if _, err := io.ReadFull(r, methods); err != nil {
		return false, err
	}
	if slices.Contains(methods, socksAuthNone) {
		return true, nil
	}
	return false, nil
}

// readSocksRequest reads VER CMD RSV ATYP DST.ADDR DST.PORT. An unknown
// address type is an error carrying reply 0x08; the command is checked by
// the caller so the reply can name it.
func readSocksRequest(r *bufio.Reader) (socksRequest, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return socksRequest{}, err
	}
	if h[0] != socksVersion {
		return socksRequest{}, &errSocks{code: socksGeneralFailure, msg: "request is not SOCKS version 5"}
	}
	req := socksRequest{cmd: h[1], atyp: h[3]}
	switch h[3] {
	case socksAtypIPv4:
		var a [4]byte
		if _, err := io.ReadFull(r, a[:]); err != nil {
			return req, err
		}
		req.host = netip.AddrFrom4(a).String()
	case socksAtypIPv6:
		var a [16]byte
		if _, err := io.ReadFull(r, a[:]); err != nil {
			return req, err
		}
		req.host = netip.AddrFrom16(a).String()
	case socksAtypDomain:
		n, err := r.ReadByte()
		if err != nil {
			return req, err
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return req, err
		}
		req.host = string(b)
	default:
		return req, &errSocks{code: socksAtypUnsupp, msg: "address type " + strconv.Itoa(int(h[3])) + " is not supported"}
	}
	var p [2]byte
	if _, err := io.ReadFull(r, p[:]); err != nil {
		return req, err
	}
	req.port = int(binary.BigEndian.Uint16(p[:]))
	return req, nil
}

// socksScheme is the scheme a SOCKS connection is decided as: the one
// whose default port it is (80 http, 443 https, 21 ftp), else unknown,
// which only rules without a scheme match. The path is never visible.
func socksScheme(port int) string {
	for _, s := range []string{"http", "https", "ftp"} {
		if p, _ := policy.DefaultPort(s); int(p) == port {
			return s
		}
	}
	return ""
}

// serveSOCKS runs one SOCKS5 connection: negotiation, one request, and
// for an allowed CONNECT the tunnel. c is closed by the caller.
func (s *Server) serveSOCKS(c net.Conn, br *bufio.Reader) {
	ok, err := readSocksGreeting(br)
	if err != nil {
		return
	}
	if !ok {
		c.Write([]byte{socksVersion, socksAuthNoneOK})
		return
	}
	if _, err := c.Write([]byte{socksVersion, socksAuthNone}); err != nil {
		return
	}
	req, err := readSocksRequest(br)
	if err != nil {
		var se *errSocks
		if errors.As(err, &se) && se.code != 0 {
			socksReply(c, se.code, nil)
		}
		return
	}
	if req.cmd != socksCmdConnect {
		// BIND and UDP ASSOCIATE would open other ways out.
		socksReply(c, socksCmdUnsupported, nil)
		return
	}
	scheme := socksScheme(req.port)
	d, canon := s.decide(scheme, req.host, req.port, "")
	entry := LogEntry{Client: c.RemoteAddr().String(), Kind: "socks5", Scheme: scheme, Host: req.host, Canonical: canon, Port: req.port}
	s.logDecision(entry, d)
	if !d.Allowed {
		socksReply(c, socksNotAllowed, nil)
		return
	}
	up, err := s.dialDecided(s.ctx, canon, req.port)
	if err != nil {
		if ae, ok := addrRefusal(err); ok {
			s.logAddrRefusal(entry, ae)
			socksReply(c, socksNotAllowed, nil)
			return
		}
		socksReply(c, dialReplyCode(err), nil)
		return
	}
	if err := socksReply(c, socksSucceeded, up.LocalAddr()); err != nil {
		up.Close()
		return
	}
	c.SetDeadline(time.Time{})
	s.tunnel(c, br, up)
}

// dialReplyCode maps a dial error to a SOCKS reply: 0x05 when the host
// refused, 0x04 otherwise (no such name, unreachable, timed out).
func dialReplyCode(err error) byte {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return socksConnRefused
	}
	return socksHostUnreach
}

// socksReply writes VER REP RSV ATYP BND.ADDR BND.PORT; bnd nil is
// 0.0.0.0:0.
func socksReply(c net.Conn, code byte, bnd net.Addr) error {
	b := []byte{socksVersion, code, 0}
	addr := netip.AddrPortFrom(netip.IPv4Unspecified(), 0)
	if ta, ok := bnd.(*net.TCPAddr); ok {
		addr = ta.AddrPort()
	}
	if a := addr.Addr().Unmap(); a.Is4() {
		b = append(b, socksAtypIPv4)
		b = append(b, a.AsSlice()...)
	} else {
		b = append(b, socksAtypIPv6)
		b = append(b, a.AsSlice()...)
	}
	b = binary.BigEndian.AppendUint16(b, addr.Port())
	_, err := c.Write(b)
	return err
}
