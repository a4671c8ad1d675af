package netproxy

import (
	"errors"
	"io"
)

// A TLS ClientHello's server name, read without crypto/tls (which, with
// crypto/x509, would add its initialisation to every jp-policy start:
// cmd/jp-policy's TestNoNetHTTP). Only what the SNI needs is parsed
// (RFC 8446 4.1.2, RFC 6066 3); everything else is skipped by length.

const (
	recordHandshake   = 0x16
	typeClientHello   = 1
	extServerName     = 0
	maxClientHello    = 64 << 10
	nameTypeHostName  = 0
	recordHeaderBytes = 5
)

var errNotClientHello = errors.New("not a TLS ClientHello")

// readClientHello reads the records carrying the first handshake message
// from r and returns their bytes (to relay unchanged) and the server
// name ("" when the ClientHello has none). An error means the bytes are
// no ClientHello this parser takes.
func readClientHello(r io.Reader) (raw []byte, sni string, err error) {
	var msg []byte
	for {
		var hdr [recordHeaderBytes]byte
		k, err := io.ReadFull(r, hdr[:])
		raw = append(raw, hdr[:k]...)
		if err != nil {
			return raw, "", err
		}
		n := int(hdr[3])<<8 | int(hdr[4])
		if hdr[0] != recordHandshake || hdr[1] != 3 || n == 0 || n > 1<<14+256 {
			return raw, "", errNotClientHello
		}
		start := len(raw)
		raw = append(raw, make([]byte, n)...)
		if k, err := io.ReadFull(r, raw[start:]); err != nil {
			return raw[:start+k], "", err
		}
		msg = append(msg, raw[start:]...)
		if len(msg) >= 4 {
			if msg[0] != typeClientHello {
				return raw, "", errNotClientHello
			}
			want := 4 + (int(msg[1])<<16 | int(msg[2])<<8 | int(msg[3]))
			if want > maxClientHello {
				return raw, "", errNotClientHello
			}
			if len(msg) >= want {
				sni, err := parseClientHelloSNI(msg[4:want])
				return raw, sni, err
			}
		}
		if len(raw) > maxClientHello {
			return raw, "", errNotClientHello
		}
	}
}

// helloReader walks a byte string, failing once on any read past its end.
type helloReader struct {
	b   []byte
	bad bool
}

func (h *helloReader) bytes(n int) []byte {
	if h.bad || n < 0 || n > len(h.b) {
		h.bad = true
		return nil
	}
	out := h.b[:n]
	h.b = h.b[n:]
	return out
}

func (h *helloReader) uint(n int) int {
	v := 0
	for _, c := range h.bytes(n) {
		v = v<<8 | int(c)
	}
	return v
}

// vector returns the next vector with an n-byte length prefix.
func (h *helloReader) vector(n int) *helloReader {
	return &helloReader{b: h.bytes(h.uint(n)), bad: h.bad}
}

// parseClientHelloSNI reads a ClientHello body (after the handshake
// header) and returns its host_name server name.
func parseClientHelloSNI(body []byte) (string, error) {
	h := &helloReader{b: body}
	h.bytes(2 + 32) // legacy_version, random
	h.vector(1)     // legacy_session_id
	h.vector(2)     // cipher_suites
	h.vector(1)     // legacy_compression_methods
	if h.bad {
		return "", errNotClientHello
	}
	if len(h.b) == 0 {
		return "", nil // no extensions
	}
	exts := h.vector(2)
	if h.bad || len(h.b) != 0 {
		return "", errNotClientHello
	}
	sni, seen := "", false
	for len(exts.b) > 0 && !exts.bad {
		typ := exts.uint(2)
		data := exts.vector(2)
		if exts.bad {
			break
		}
		if typ != extServerName {
			continue
		}
		if seen {
			return "", errNotClientHello // a second server_name extension
		}
		seen = true
		list := data.vector(2)
		if data.bad || len(data.b) != 0 {
			return "", errNotClientHello
		}
		for len(list.b) > 0 && !list.bad {
			kind := list.uint(1)
			name := list.vector(2)
			if list.bad || name.bad {
				break
			}
			if kind == nameTypeHostName {
				if sni != "" {
					return "", errNotClientHello // two host names
				}
				sni = string(name.b)
			}
		}
		if list.bad {
			return "", errNotClientHello
		}
	}
	if exts.bad {
		return "", errNotClientHello
	}
	return sni, nil
}
