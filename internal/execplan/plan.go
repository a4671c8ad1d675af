package execplan

import (
	"bytes"
	"encoding/json"
	"errors"
	"path"
	"strings"

	"github.com/jp-policy/jp-policy/internal/platform"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Plan is one tool's exec plan: the one file of the artifact `jp-policy
// exec` reads for the tool before its manifest, pinned (its SHA-256 is
// the tool's line in the pin table). It holds the tool's part of
// policy.json that exec needs (Exec), including the hashes of the tool's
// platform manifests and of the shared files they are completed with. A
// plan depends only on the tool's compiled policy and the workspace
// root: the staleness inputs are in the pin (Pin.Inputs), so an edit of
// the config that leaves the tool's policy alone leaves its plan, and the
// hash the pin records for it, the same.
type Plan struct {
	Format int    `json:"format"`
	Tool   string `json:"tool"`
	Root   string `json:"root"`
	Exec
}

// Exec is what exec needs of one tool: the fields of the tool's entry in
// policy.json that it reads.
type Exec struct {
	Enabled bool `json:"enabled"`
	Access  struct {
		Env      []policy.EnvRule              `json:"env"`
		Commands map[string]policy.CommandRule `json:"commands"`
		Net      []policy.NetRule              `json:"net"`
	} `json:"access"`
	Manifests      map[platform.Platform]string `json:"manifests"`
	ManifestSHA256 map[platform.Platform]string `json:"manifest_sha256"`
	// BaseSHA256 maps a platform to the hash of the shared file its
	// manifest is completed with; absent for one whose manifest is whole.
	BaseSHA256 map[platform.Platform]string `json:"base_sha256,omitempty"`
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
// for a name that cannot be a file name (so `exec -t ../x` never names a
// path outside it).
func PlanFile(tool string) string {
	if !ToolFileNameOK(tool) || strings.Contains(tool, "..") {
		return ""
	}
	return path.Join(DirExec, tool+".plan")
}

// PlanFormat is the plan's format (4: the tool's exec data in the plan
// itself, no separate exec file); a plan of another format is
// ErrPlanSyntax (and cannot be pinned by a current pin anyway).
const PlanFormat = 4

// ErrPlanSyntax is a plan file this jp-policy did not write.
var ErrPlanSyntax = errors.New("not an exec plan this jp-policy wrote")

// Encode renders p as the plan file (JSON).
func Encode(p *Plan) []byte {
	q := *p
	q.Format = PlanFormat
	b, err := json.Marshal(&q)
	if err != nil {
		panic(err) // strings, booleans and rule structs always marshal
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
