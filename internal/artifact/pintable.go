package artifact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
)

// The pin file is read on every exec, so its format is chosen for that
// reader: a few header lines (no JSON, so no reflection on a cold start)
// and then one line per tool, sorted by name, which exec binary-searches
// with a handful of small reads. What exec reads of the pin therefore does
// not grow with the number of tools (a 10,000-tool pin is about 900 KB;
// decoding it as a JSON map cost milliseconds per exec).
//
//	jp-policy pin 3
//	root "/home/me/ws"
//	artifact "/home/me/ws/.jp/policy/policy.json"
//	sha256 <hex of policy.json>
//	grants_sha256 <hex of the grants record>   (optional)
//	tools
//	<tool> <hex of the tool's exec file>
//	...
//
// A pin without the "tools" line (WritePin) has no table: exec then
// checks the whole policy.json against the header's hash.
//
// Paths are Go-quoted (a path may hold a newline); tool names are the
// ones ToolFileNameOK accepts, so they hold no space or newline.

const pinMagic = "jp-policy pin "

// pinToolsLine ends the header.
const pinToolsLine = "tools"

// errPinSyntax is a pin file this jp-policy did not write.
var errPinSyntax = errors.New("not a pin file")

// MarshalPin renders pin in the pin file format.
func MarshalPin(pin *Pin) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s%d\nroot %s\nartifact %s\nsha256 %s\n", pinMagic, pin.Version, strconv.Quote(pin.Root), strconv.Quote(pin.Artifact), pin.SHA256)
	if pin.GrantsSHA256 != "" {
		fmt.Fprintf(&b, "grants_sha256 %s\n", pin.GrantsSHA256)
	}
	if pin.Tools == nil {
		return b.Bytes(), nil
	}
	b.WriteString(pinToolsLine + "\n")
	names := make([]string, 0, len(pin.Tools))
	for n := range pin.Tools {
		if !ToolFileNameOK(n) || !hexOK(pin.Tools[n]) {
			return nil, fmt.Errorf("pin: cannot record tool %q with hash %q", n, pin.Tools[n])
		}
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b.WriteString(n + " " + pin.Tools[n] + "\n")
	}
	return b.Bytes(), nil
}

// legacyPin is the JSON pin file of PinVersion 2, still read so that an
// upgrade keeps the grants the user accepted (ReadReviewed) and exec
// works (the whole policy.json is checked against it) until the next
// compile writes the current format.
type legacyPin struct {
	Version      int               `json:"version"`
	Root         string            `json:"root"`
	Artifact     string            `json:"artifact"`
	SHA256       string            `json:"sha256"`
	GrantsSHA256 string            `json:"grants_sha256"`
	Tools        map[string]string `json:"tools"`
}

// ParsePin reads a whole pin file, tool table included.
func ParsePin(b []byte) (*Pin, error) {
	if len(b) > 0 && b[0] == '{' {
		var l legacyPin
		if err := json.Unmarshal(b, &l); err != nil || l.Version != 2 {
			return nil, errPinSyntax
		}
		// Tools stays nil: exec takes the whole-artifact path.
		return &Pin{Version: l.Version, Root: l.Root, Artifact: l.Artifact, SHA256: l.SHA256, GrantsSHA256: l.GrantsSHA256}, nil
	}
	r := bytes.NewReader(b)
	pin, body, err := parsePinHeader(bufio.NewReader(r))
	if err != nil {
		return nil, err
	}
	if body < 0 {
		return pin, nil
	}
	pin.Tools = map[string]string{}
	prev := ""
	for line := range strings.SplitSeq(string(b[body:]), "\n") {
		if line == "" {
			continue
		}
		name, sum, ok := parseToolLine(line)
		if !ok || (prev != "" && name <= prev) {
			return nil, errPinSyntax
		}
		pin.Tools[name] = sum
		prev = name
	}
	if len(b) > body && b[len(b)-1] != '\n' {
		return nil, errPinSyntax
	}
	return pin, nil
}

// parsePinHeader reads the header lines from r and returns the pin and
// the offset of the tool table, -1 when the pin has none.
func parsePinHeader(r *bufio.Reader) (*Pin, int, error) {
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
			return nil, 0, errPinSyntax
		}
		line = line[:len(line)-1]
		if n == 0 {
			v, ok := strings.CutPrefix(line, pinMagic)
			if !ok {
				return nil, 0, errPinSyntax
			}
			if pin.Version, err = strconv.Atoi(v); err != nil || pin.Version != PinVersion {
				return nil, 0, errPinSyntax
			}
			continue
		}
		if line == pinToolsLine {
			break
		}
		k, v, ok := strings.Cut(line, " ")
		if !ok {
			return nil, 0, errPinSyntax
		}
		switch k {
		case "root", "artifact":
			s, err := strconv.Unquote(v)
			if err != nil {
				return nil, 0, errPinSyntax
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
			return nil, 0, errPinSyntax
		}
	}
	if pin.Root == "" || pin.Artifact == "" || !hexOK(pin.SHA256) || (pin.GrantsSHA256 != "" && !hexOK(pin.GrantsSHA256)) {
		return nil, 0, errPinSyntax
	}
	return pin, off, nil
}

// parseToolLine splits "<tool> <sha256>".
func parseToolLine(line string) (name, sum string, ok bool) {
	name, sum, ok = strings.Cut(line, " ")
	return name, sum, ok && ToolFileNameOK(name) && hexOK(sum)
}

// hexOK reports whether s is a lower-case hex SHA-256.
func hexOK(s string) bool {
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
// policy.json hash) and tool's exec file hash, "" when the pin lists no
// such tool; pin.Tools is non-nil (and empty) when the pin has a tool
// table. It reads the header and O(log n) small windows of the table,
// never the whole file. Errors are those of ReadPin.
func PinTool(dataDir, root, artifactPath, tool string) (*Pin, string, error) {
	path := PinFile(dataDir, root, artifactPath)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", &NoPinError{Artifact: artifactPath, PinDir: parentDir(path)}
	}
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, "", err
	}
	pin, body, err := parsePinHeader(bufio.NewReaderSize(io.NewSectionReader(f, 0, fi.Size()), 4096))
	if err != nil {
		return nil, "", &TamperError{Path: path, Reason: "is not a pin this jp-policy wrote"}
	}
	if err := pin.check(root, artifactPath); err != nil {
		return nil, "", err
	}
	if body < 0 {
		return pin, "", nil
	}
	pin.Tools = map[string]string{}
	sum, err := lookupTool(f, int64(body), fi.Size(), tool)
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

// scanWindow is the size of the table region lookupTool scans line by
// line once the binary search has narrowed it.
const scanWindow = 2048

// lookupTool finds tool's hash in the sorted table r[lo:size), "" when
// absent. Invariant of the search: lo and hi are line starts (hi may be
// size) and the first line whose name is >= tool starts in [lo, hi].
func lookupTool(r io.ReaderAt, lo, size int64, tool string) (string, error) {
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
		name, _, ok := parseToolLine(line)
		if !ok {
			return "", errPinSyntax
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
			return "", errPinSyntax // a last line without its newline: torn
		}
		name, sum, ok := parseToolLine(line[:len(line)-1])
		if !ok {
			return "", errPinSyntax
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
		return 0, "", errPinSyntax
	}
	return start, line[:len(line)-1], nil
}
