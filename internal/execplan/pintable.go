package execplan

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The pin file is read on every exec, so its format is chosen for that
// reader: a few header lines (no JSON, so no reflection on a cold start)
// and then one line per tool, sorted by name, which exec binary-searches
// with a handful of small reads. What exec reads of the pin therefore does
// not grow with the number of tools (a 10,000-tool pin is about 900 KB;
// decoding it as a JSON map cost milliseconds per exec).
//
//	jp-policy pin 6
//	root "/home/me/ws"
//	artifact "/home/me/ws/.jp/policy/policy.json"
//	sha256 <hex of policy.json>
//	grants_sha256 <hex of the grants record>   (optional)
//	input <kind> <hex, or - when absent> "<path>"[ "<symlink target>"][ @<file identity>]
//	...                                          (one per staleness input)
//	tools
//	<tool> <hex of the tool's exec plan, exec/<tool>.plan>
//	...
//
// A pin without the "tools" line (WritePin) has no table: exec then
// checks the whole policy.json against the header's hash.
//
// Paths are Go-quoted (a path may hold a newline); tool names are the
// ones ToolFileNameOK accepts, so they hold no space or newline.

// PinMagic starts a pin file; the version follows.
const PinMagic = "jp-policy pin "

// pinToolsLine ends the header.
const pinToolsLine = "tools"

// ErrPinSyntax is a pin file this jp-policy did not write.
var ErrPinSyntax = errors.New("not a pin file")

// ParsePinHeader reads the header lines from r and returns the pin and
// the offset of the tool table, -1 when the pin has none.
func ParsePinHeader(r *bufio.Reader) (*Pin, int, error) {
	pin := &Pin{}
	off := 0
	for n := 0; ; n++ {
		line, err := r.ReadString('\n')
		off += len(line)
		if err == io.EOF && line == "" && n > 0 {
			off = -1 // no table
			break
		}
		if err != nil {
			return nil, 0, ErrPinSyntax
		}
		line = line[:len(line)-1]
		if n == 0 {
			v, ok := strings.CutPrefix(line, PinMagic)
			if !ok {
				return nil, 0, ErrPinSyntax
			}
			if pin.Version, err = strconv.Atoi(v); err != nil || pin.Version < oldestPinVersion || pin.Version > PinVersion || v != strconv.Itoa(pin.Version) {
				return nil, 0, ErrPinSyntax
			}
			continue
		}
		if line == pinToolsLine {
			if pin.Version == oldestPinVersion {
				off = -1 // its table names what this jp-policy no longer pins by
			}
			break
		}
		if rest, ok := strings.CutPrefix(line, "input "); ok && pin.Version >= 5 {
			in, ok := parseInputLine(rest)
			if !ok {
				return nil, 0, ErrPinSyntax
			}
			pin.Inputs = append(pin.Inputs, in)
			continue
		}
		k, v, ok := strings.Cut(line, " ")
		if !ok {
			return nil, 0, ErrPinSyntax
		}
		switch k {
		case "root", "artifact":
			s, err := strconv.Unquote(v)
			if err != nil {
				return nil, 0, ErrPinSyntax
			}
			if k == "root" {
				pin.Root = s
			} else {
				pin.Artifact = s
			}
		case "sha256":
			pin.SHA256 = v
		case "grants_sha256":
			pin.GrantsSHA256 = v
		default:
			return nil, 0, ErrPinSyntax
		}
	}
	if pin.Root == "" || pin.Artifact == "" || !HexOK(pin.SHA256) || (pin.GrantsSHA256 != "" && !HexOK(pin.GrantsSHA256)) {
		return nil, 0, ErrPinSyntax
	}
	return pin, off, nil
}

// inputKinds are the staleness input kinds a pin may record
// (compiler.collectInputs writes them; VerifyInputs checks them).
var inputKinds = [...]string{"approvals", "candidate", "env", "layer", "symlink"}

// InputKindOK reports whether kind is one a pin may record.
func InputKindOK(kind string) bool {
	for _, k := range inputKinds {
		if k == kind {
			return true
		}
	}
	return false
}

// AppendInputLine appends in as a pin header line (with its newline).
// The caller checks InputKindOK and that SHA256 is "" or HexOK.
func AppendInputLine(b []byte, in Input) []byte {
	b = append(b, "input "...)
	b = append(b, in.Kind...)
	b = append(b, ' ')
	if in.SHA256 == "" {
		b = append(b, '-')
	} else {
		b = append(b, in.SHA256...)
	}
	b = append(b, ' ')
	b = strconv.AppendQuote(b, in.Path)
	if in.Target != "" {
		b = append(b, ' ')
		b = strconv.AppendQuote(b, in.Target)
	}
	if in.ID != "" {
		b = append(b, " @"...)
		b = append(b, in.ID...)
	}
	return append(b, '\n')
}

// IDOK reports whether id is a file identity as StatID spells it: digits,
// '-' and ':' only (the caller writes nothing else to a pin).
func IDOK(id string) bool {
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('0' <= c && c <= '9' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// parseInputLine reads what follows "input " on a header line: exactly
// what AppendInputLine writes, nothing else (a second spelling of the
// same input would let two pins that differ mean the same thing).
func parseInputLine(s string) (Input, bool) {
	var in Input
	kind, rest, ok := strings.Cut(s, " ")
	if !ok || !InputKindOK(kind) {
		return in, false
	}
	in.Kind = kind
	sum, rest, ok := strings.Cut(rest, " ")
	switch {
	case !ok:
		return in, false
	case sum == "-":
	case HexOK(sum):
		in.SHA256 = sum
	default:
		return in, false
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return in, false
	}
	if in.Path, ok = unquoteCanonical(q); !ok || in.Path == "" {
		return in, false
	}
	rest = rest[len(q):]
	if strings.HasPrefix(rest, ` "`) {
		if q, err = strconv.QuotedPrefix(rest[1:]); err != nil {
			return in, false
		}
		if in.Target, ok = unquoteCanonical(q); !ok || in.Target == "" {
			return in, false
		}
		rest = rest[1+len(q):]
	}
	if id, ok := strings.CutPrefix(rest, " @"); ok {
		if !IDOK(id) {
			return in, false
		}
		in.ID, rest = id, ""
	}
	return in, rest == ""
}

// unquoteCanonical is strconv.Unquote of q, refusing any spelling but
// strconv.Quote's. Exec reads every input line on every run, so the usual
// case (no escapes, every rune printable: Quote changes nothing) is the
// quoted text itself, without allocating.
func unquoteCanonical(q string) (string, bool) {
	if len(q) >= 2 && q[0] == '"' && q[len(q)-1] == '"' && strings.IndexByte(q, '\\') < 0 {
		s := q[1 : len(q)-1]
		plain := utf8.ValidString(s)
		for _, r := range s {
			if !plain {
				break
			}
			plain = r != '"' && strconv.IsPrint(r)
		}
		if plain {
			return s, true
		}
	}
	s, err := strconv.Unquote(q)
	return s, err == nil && strconv.Quote(s) == q
}

// ParseToolLine splits "<tool> <sha256>".
func ParseToolLine(line string) (name, sum string, ok bool) {
	name, sum, ok = strings.Cut(line, " ")
	return name, sum, ok && ToolFileNameOK(name) && HexOK(sum)
}

// HexOK reports whether s is a lower-case hex SHA-256.
func HexOK(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// PinTool is what exec needs of the pin: the header (root, artifact path,
// policy.json hash, staleness inputs) and tool's exec plan hash, "" when
// the pin lists no such tool; pin.Tools is non-nil (and empty) when the
// pin has a tool table. It reads the header and O(log n) small windows of
// the table, never the whole file. Errors are those of ReadPin, and
// *OldPinError for a pin of an older format.
func PinTool(dataDir, root, artifactPath, tool string) (*Pin, string, error) {
	path := PinFile(dataDir, root, artifactPath)
	f, size, err := openPinFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", &NoPinError{Artifact: artifactPath, PinDir: parentDir(path)}
	}
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	pin, body, err := ParsePinHeader(bufio.NewReaderSize(io.NewSectionReader(f, 0, size), 4096))
	if err != nil {
		return nil, "", &TamperError{Path: path, Reason: "is not a pin this jp-policy wrote"}
	}
	if err := pin.Check(root, artifactPath); err != nil {
		return nil, "", err
	}
	if pin.Version != PinVersion {
		return nil, "", &OldPinError{Path: path, Version: pin.Version}
	}
	if body < 0 {
		return pin, "", nil
	}
	pin.Tools = map[string]string{}
	sum, err := LookupTool(f, int64(body), size, tool)
	if err != nil {
		return nil, "", &TamperError{Path: path, Reason: "is not a pin this jp-policy wrote"}
	}
	return pin, sum, nil
}

func parentDir(path string) string {
	if i := strings.LastIndexByte(path, os.PathSeparator); i >= 0 {
		return path[:i]
	}
	return "."
}

// scanWindow is the size of the table region LookupTool scans line by
// line once the binary search has narrowed it.
const scanWindow = 2048

// LookupTool finds tool's hash in the sorted table r[lo:size), "" when
// absent. Invariant of the search: lo and hi are line starts (hi may be
// size) and the first line whose name is >= tool starts in [lo, hi].
func LookupTool(r io.ReaderAt, lo, size int64, tool string) (string, error) {
	hi := size
	for hi-lo > scanWindow {
		mid := lo + (hi-lo)/2
		s, line, err := lineAfter(r, mid, size)
		if err != nil {
			return "", err
		}
		if s >= hi {
			break // no line starts in [mid, hi): the region is one long line
		}
		name, _, ok := ParseToolLine(line)
		if !ok {
			return "", ErrPinSyntax
		}
		if name < tool {
			lo = s + int64(len(line)) + 1
		} else {
			hi = s
		}
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r, lo, size-lo), scanWindow+256)
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF && line == "" {
			return "", nil
		}
		if err != nil {
			return "", ErrPinSyntax // a last line without its newline: torn
		}
		name, sum, ok := ParseToolLine(line[:len(line)-1])
		if !ok {
			return "", ErrPinSyntax
		}
		switch {
		case name == tool:
			return sum, nil
		case name > tool:
			return "", nil
		}
	}
}

// lineAfter returns the first whole line that starts at an offset >= off
// (off > 0): its start and its text without the newline; start == size
// when there is none.
func lineAfter(r io.ReaderAt, off, size int64) (int64, string, error) {
	br := bufio.NewReaderSize(io.NewSectionReader(r, off-1, size-off+1), 256)
	skipped, err := br.ReadString('\n')
	if err == io.EOF {
		return size, "", nil
	}
	if err != nil {
		return 0, "", err
	}
	start := off - 1 + int64(len(skipped))
	if start >= size {
		return size, "", nil
	}
	line, err := br.ReadString('\n')
	if err != nil {
		return 0, "", ErrPinSyntax
	}
	return start, line[:len(line)-1], nil
}
