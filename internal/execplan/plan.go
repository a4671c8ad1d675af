package execplan

import (
	"bytes"
	"encoding/json"
	"errors"
	"path"
)

// Plan is one tool's exec plan: the first file `jp-policy exec` reads for
// the tool, pinned (its SHA-256 is the tool's line in the pin table). It
// binds the pin to the rest of the tool's compiled files: the exec index
// file (ExecSHA256), which holds the hashes of the tool's platform
// manifests. A plan depends only on the tool's compiled policy and the
// workspace root: the staleness inputs are in the pin (Pin.Inputs), so an
// edit of the config that leaves the tool's policy alone leaves its plan,
// and the hash the pin records for it, the same.
type Plan struct {
	Format int    `json:"format"`
	Tool   string `json:"tool"`
	Root   string `json:"root"`
	// ExecSHA256 is the hash of the tool's exec index file
	// (exec/<tool>.json).
	ExecSHA256 string `json:"exec_sha256"`
	Enabled    bool   `json:"enabled"`
}

// Rule is one Landlock path grant: Access is the kernel's access bits.
type Rule struct {
	Path   string `json:"path"`
	Access uint64 `json:"access"`
	// Clause names the policy clause, for errors.
	Clause string `json:"clause"`
	// Optional rules are skipped when Path does not exist at launch.
	Optional bool `json:"optional,omitempty"`
}

// PlanFile is tool's plan file, relative to the artifact directory; ""
// for a name that cannot be a file name.
func PlanFile(tool string) string {
	if ExecFile(tool) == "" {
		return ""
	}
	return path.Join(DirExec, tool+".plan")
}

// PlanFormat is the plan's format; a plan of another format is
// ErrPlanSyntax (and cannot be pinned by a current pin anyway).
const PlanFormat = 3

// ErrPlanSyntax is a plan file this jp-policy did not write.
var ErrPlanSyntax = errors.New("not an exec plan this jp-policy wrote")

// Encode renders p as the plan file (JSON).
func Encode(p *Plan) []byte {
	q := *p
	q.Format = PlanFormat
	b, err := json.Marshal(&q)
	if err != nil {
		panic(err) // strings and booleans always marshal
	}
	return append(b, '\n')
}

// Decode reads a plan file; anything but a plan of this format (unknown
// fields, trailing data) is ErrPlanSyntax: a plan is pinned, so a bad
// one was not written by compile.
func Decode(b []byte) (*Plan, error) {
	var p Plan
	if err := strictJSON(b, &p); err != nil || p.Format != PlanFormat {
		return nil, ErrPlanSyntax
	}
	return &p, nil
}

// strictJSON decodes exactly one JSON value into v, refusing unknown
// fields and anything after the value.
func strictJSON(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data")
	}
	return nil
}
