package artifact

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/atomicfile"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Why a grants record beside the pin: compile compares what it is about
// to write with what the user last accepted (issue 15). The artifact in
// the workspace cannot be that baseline on its own: a tool that may write
// .jp/ could delete it, and a compile with nothing to compare would then
// accept any widening silently. So the reviewed grants (per tool: source,
// enabled, defaulted, access) are kept in the user's data directory next
// to the pin, and the pin records their hash. The pin itself stays small,
// since exec reads it on every run.

// ReviewedTool is one tool's reviewed grants.
type ReviewedTool struct {
	Source    string              `json:"source"`
	Enabled   bool                `json:"enabled"`
	Defaulted bool                `json:"defaulted"`
	Access    policy.AccessPolicy `json:"access"`
}

// Reviewed is the grants record kept beside a pin.
type Reviewed struct {
	Root  string                   `json:"root"`
	Tools map[string]*ReviewedTool `json:"tools"`
}

// ReviewedOf extracts the grants of an artifact.
func ReviewedOf(p *Policy) *Reviewed {
	r := &Reviewed{Root: p.Root, Tools: map[string]*ReviewedTool{}}
	for n, t := range p.Tools {
		r.Tools[n] = &ReviewedTool{Source: t.Source, Enabled: t.Enabled, Defaulted: t.Defaulted, Access: t.Access}
	}
	return r
}

// Policy returns the record as an artifact holding only tools and their
// grants, which is all a grant diff reads.
func (r *Reviewed) Policy() *Policy {
	p := &Policy{Format: FormatVersion, Root: r.Root, Tools: map[string]*Tool{}}
	for n, t := range r.Tools {
		p.Tools[n] = &Tool{Source: t.Source, Enabled: t.Enabled, Defaulted: t.Defaulted, Access: t.Access}
	}
	return p
}

// GrantsFile is where the reviewed grants of the pin at PinFile live.
func GrantsFile(dataDir, root, artifactPath string) string {
	return strings.TrimSuffix(PinFile(dataDir, root, artifactPath), ".json") + ".grants.json"
}

// WritePinReviewed records reviewed (the grants the user accepted: the
// compiled artifact itself after a compile, the earlier baseline when
// exec recompiled something narrower), then the pin of the artifact naming
// their hash, each atomically. policySHA256 is the hex SHA-256 of the
// artifact's policy.json, tools each tool's exec plan hash, inputs the
// artifact's staleness inputs. reviewedSHA256, when not "", is the hash of
// the record reviewed encodes to (ReviewedHasher): when the record beside
// the pin already holds exactly those bytes it is kept, not encoded and
// written again (it grows with the number of tools). A crash between
// the two writes leaves the old pin, which no longer matches the grants
// file's hash and so is read as having no record (ReadReviewed falls back
// to the pinned policy.json).
func WritePinReviewed(dataDir, root, artifactPath, policySHA256 string, tools map[string]string, inputs []Input, reviewed *Policy, reviewedSHA256 string) error {
	gpath := GrantsFile(dataDir, root, artifactPath)
	if err := os.MkdirAll(filepath.Dir(gpath), 0o700); err != nil {
		return err
	}
	gsum := reviewedSHA256
	if cur, err := HashFile(gpath); err != nil || gsum == "" || cur != gsum {
		gb, err := json.Marshal(ReviewedOf(reviewed))
		if err != nil {
			return err
		}
		gb = append(gb, '\n') // once: for 10,000 tools this is tens of MB
		if err := atomicfile.Write(gpath, gb, 0o600); err != nil {
			return err
		}
		gsum = SHA256Hex(gb)
	}
	b, err := MarshalPin(&Pin{Version: PinVersion, Root: root, Artifact: artifactPath, SHA256: policySHA256, GrantsSHA256: gsum, Tools: tools, Inputs: inputs})
	if err != nil {
		return err
	}
	return atomicfile.Write(PinFile(dataDir, root, artifactPath), b, 0o600)
}

// ReviewedHasher computes, a tool at a time, the hash of the grants record
// of an artifact (the bytes WritePinReviewed writes for it), so that a
// compile can tell whether the grants changed since the last review
// without reading the record back or encoding it whole: the compiler's
// workers encode each tool's entry (ReviewedEntry) in parallel, and Tool
// takes them in name order. TestReviewedHasherIsMarshal checks the result
// against json.Marshal.
type ReviewedHasher struct {
	h hash.Hash
	n int
}

// NewReviewedHasher starts the record of the workspace root.
func NewReviewedHasher(root string) (*ReviewedHasher, error) {
	rb, err := json.Marshal(root)
	if err != nil {
		return nil, err
	}
	rh := &ReviewedHasher{h: sha256.New()}
	rh.h.Write([]byte(`{"root":`))
	rh.h.Write(rb)
	rh.h.Write([]byte(`,"tools":{`))
	return rh, nil
}

// ReviewedEntry encodes one tool of the record.
func ReviewedEntry(t *Tool) ([]byte, error) {
	return json.Marshal(&ReviewedTool{Source: t.Source, Enabled: t.Enabled, Defaulted: t.Defaulted, Access: t.Access})
}

// Tool adds the tool name's entry; names must come in sorted order (as
// encoding/json sorts map keys) and be file-name safe (ToolFileNameOK),
// which need no escaping.
func (rh *ReviewedHasher) Tool(name string, entry []byte) {
	if rh.n > 0 {
		rh.h.Write([]byte{','})
	}
	rh.n++
	rh.h.Write([]byte{'"'})
	rh.h.Write([]byte(name))
	rh.h.Write([]byte(`":`))
	rh.h.Write(entry)
}

// Sum is the hex SHA-256 of the whole record.
func (rh *ReviewedHasher) Sum() string {
	rh.h.Write([]byte("}}\n"))
	return hex.EncodeToString(rh.h.Sum(nil))
}

// ReviewedSHA256 is the hash of the grants record the pin for (root,
// artifactPath) names, "" when there is no such pin (or it names none).
// Only the pin's header is read: a compile whose own record hashes the
// same (ReviewedHasher) changes no grant, and need not read the record.
func ReviewedSHA256(dataDir, root, artifactPath string) string {
	f, err := os.Open(PinFile(dataDir, root, artifactPath))
	if err != nil {
		return ""
	}
	defer f.Close()
	pin, _, err := parsePinHeader(bufio.NewReader(f))
	if err != nil || pin.Check(root, artifactPath) != nil {
		return ""
	}
	return pin.GrantsSHA256
}

// ErrNoReview is returned by ReadReviewed when there is no pin at all: the
// artifact was never compiled here (a fresh checkout), so there is
// nothing to compare with.
var ErrNoReview = errors.New("no pinned artifact")

// ReviewLostError says a pin exists but neither its grants record nor the
// pinned policy.json can be read back: what was accepted is unknown, and
// the caller must treat every grant as new.
type ReviewLostError struct {
	Pin    string
	Reason string
}

func (e *ReviewLostError) Error() string {
	return fmt.Sprintf("the grants last accepted for this workspace cannot be read (%s; pin %s); every grant is treated as new", e.Reason, e.Pin)
}

// ReadReviewed returns the grants last accepted for (root, artifactPath):
// the grants record named by the pin, else (older pins) the pinned
// policy.json if it still matches the pin. ErrNoReview: no pin;
// *ReviewLostError: a pin whose baseline is gone or changed.
func ReadReviewed(dataDir, root, artifactPath string) (*Policy, error) {
	ppath := PinFile(dataDir, root, artifactPath)
	b, err := os.ReadFile(ppath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoReview
	}
	if err != nil {
		return nil, err
	}
	pin, err := ParsePin(b)
	if err != nil {
		return nil, &ReviewLostError{Pin: ppath, Reason: "the pin is not one this jp-policy wrote"}
	}
	if pin.GrantsSHA256 != "" {
		gb, err := os.ReadFile(GrantsFile(dataDir, root, artifactPath))
		if err == nil && SHA256Hex(gb) == pin.GrantsSHA256 {
			var r Reviewed
			if err := json.Unmarshal(gb, &r); err == nil && r.Tools != nil {
				return r.Policy(), nil
			}
		}
	}
	ab, err := os.ReadFile(artifactPath)
	if err != nil {
		return nil, &ReviewLostError{Pin: ppath, Reason: "the pinned artifact " + artifactPath + " is missing"}
	}
	if SHA256Hex(ab) != pin.SHA256 {
		return nil, &ReviewLostError{Pin: ppath, Reason: "the artifact " + artifactPath + " does not match its pin"}
	}
	var p Policy
	if err := json.Unmarshal(ab, &p); err != nil || p.Format != FormatVersion {
		return nil, &ReviewLostError{Pin: ppath, Reason: "the pinned artifact cannot be read"}
	}
	return &p, nil
}
