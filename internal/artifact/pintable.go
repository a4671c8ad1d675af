package artifact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/jp-policy/jp-policy/internal/execplan"
)

// The pin file's format and its exec-side reader are in package execplan
// (the lean core of the exec path); MarshalPin and ParsePin, which only
// compile and review use, stay here.

const pinToolsLine = "tools"

var errPinSyntax = execplan.ErrPinSyntax

func hexOK(s string) bool { return execplan.HexOK(s) }

func parseToolLine(line string) (name, sum string, ok bool) { return execplan.ParseToolLine(line) }

func parsePinHeader(r *bufio.Reader) (*Pin, int, error) { return execplan.ParsePinHeader(r) }

func lookupTool(r io.ReaderAt, lo, size int64, tool string) (string, error) {
	return execplan.LookupTool(r, lo, size, tool)
}

// PinTool is what exec needs of the pin (execplan.PinTool).
func PinTool(dataDir, root, artifactPath, tool string) (*Pin, string, error) {
	return execplan.PinTool(dataDir, root, artifactPath, tool)
}

// MarshalPin renders pin in the pin file format.
func MarshalPin(pin *Pin) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s%d\nroot %s\nartifact %s\nsha256 %s\n", execplan.PinMagic, pin.Version, strconv.Quote(pin.Root), strconv.Quote(pin.Artifact), pin.SHA256)
	if pin.GrantsSHA256 != "" {
		fmt.Fprintf(&b, "grants_sha256 %s\n", pin.GrantsSHA256)
	}
	var line []byte
	for _, in := range pin.Inputs {
		if !execplan.InputKindOK(in.Kind) || in.Path == "" || (in.SHA256 != "" && !hexOK(in.SHA256)) || (in.ID != "" && !execplan.IDOK(in.ID)) {
			return nil, fmt.Errorf("pin: cannot record the input %s %q", in.Kind, in.Path)
		}
		line = execplan.AppendInputLine(line[:0], in)
		b.Write(line)
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
