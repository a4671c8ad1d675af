package netproxy

import (
	"bufio"
	"errors"
	"io"
	"strconv"
)

// Message bodies on the plain HTTP path. The proxy never passes framing
// through: it reads a body by the framing it decided (Content-Length or
// chunked) and writes it out framed anew, so what the next hop reads as
// the end of the body is where the proxy stopped reading.

// errBodyFraming is a chunked body that does not parse.
var errBodyFraming = errors.New("malformed chunked body")

// readError marks an error on the side a body is read from, so the
// caller can tell a client's broken body from an upstream failure.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// maxChunkLine bounds a chunk-size line (size and extensions).
const maxChunkLine = 4 << 10

// bodyFraming says how a body is delimited.
type bodyFraming struct {
	length  int64 // bytes, when >= 0 and not chunked
	chunked bool
	// neither: the body runs to the end of the connection (responses only)
}

// copyBody copies one body from src to dst. A chunked body is decoded
// (crlf: CRLF line endings only) and, when rechunk, written as chunks
// again, otherwise as plain bytes; trailer fields are read (at most
// trailerLimit bytes) and dropped. dst is flushed whenever src has
// nothing more buffered, so a streamed body keeps streaming. srcEnd, when
// not nil, is called once the body has been read from src in full and
// before its last bytes are written to dst: whoever reads dst cannot
// have the whole body before srcEnd has run.
func copyBody(dst *bufio.Writer, src *bufio.Reader, fr bodyFraming, crlf, rechunk bool, trailerLimit int, srcEnd func()) error {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	ended := func() {
		if srcEnd != nil {
			srcEnd()
			srcEnd = nil
		}
	}
	// copyN copies n bytes, or to EOF when n < 0.
	copyN := func(n int64, chunk bool) error {
		for n != 0 {
			want := len(buf)
			if n > 0 && n < int64(want) {
				want = int(n)
			}
			m, err := src.Read(buf[:want])
			if m > 0 {
				if int64(m) == n && !fr.chunked {
					ended()
				}
				if chunk {
					dst.WriteString(strconv.FormatInt(int64(m), 16))
					dst.WriteString("\r\n")
				}
				dst.Write(buf[:m])
				if chunk {
					dst.WriteString("\r\n")
				}
				if n > 0 {
					n -= int64(m)
				}
				if src.Buffered() == 0 {
					if err := dst.Flush(); err != nil {
						return err
					}
				}
			}
			if err == io.EOF && n < 0 {
				ended()
				return dst.Flush()
			}
			if err == io.EOF {
				return &readError{io.ErrUnexpectedEOF}
			}
			if err != nil {
				return &readError{err}
			}
		}
		return dst.Flush()
	}
	if !fr.chunked {
		if fr.length == 0 {
			ended()
		}
		return copyN(fr.length, false)
	}
	for {
		size, err := readChunkSize(src, crlf)
		if err != nil {
			return &readError{err}
		}
		if size == 0 {
			budget := trailerLimit
			if _, err := readFields(src, &budget, crlf); err != nil {
				return &readError{errBodyFraming}
			}
			ended()
			if rechunk {
				dst.WriteString("0\r\n\r\n")
			}
			return dst.Flush()
		}
		if err := copyN(size, rechunk); err != nil {
			return err
		}
		budget := 2
		line, err := readLine(src, &budget, crlf)
		if err != nil || len(line) != 0 {
			return &readError{errBodyFraming}
		}
	}
}

// readChunkSize reads "1*HEXDIG [ ; chunk-ext ] CRLF" and returns the
// size; extensions are dropped.
func readChunkSize(src *bufio.Reader, crlf bool) (int64, error) {
	budget := maxChunkLine
	line, err := readLine(src, &budget, crlf)
	if err != nil {
		return 0, errBodyFraming
	}
	var n int64
	i := 0
	for ; i < len(line); i++ {
		d := unhex(line[i])
		if d < 0 {
			break
		}
		if i >= 15 { // 15 hex digits: under 2^60
			return 0, errBodyFraming
		}
		n = n<<4 | int64(d)
	}
	if i == 0 {
		return 0, errBodyFraming
	}
	// No whitespace around the size: RFC 9112 allows it before ";",
	// net/http does not, and the proxy takes the narrower reading.
	rest := line[i:]
	if len(rest) > 0 && rest[0] != ';' {
		return 0, errBodyFraming
	}
	for _, c := range rest {
		if !validValueByte(c) {
			return 0, errBodyFraming
		}
	}
	return n, nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
