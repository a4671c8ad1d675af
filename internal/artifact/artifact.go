package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// FormatVersion is the artifact format; readers refuse other versions.
const FormatVersion = 1

// FileName is the artifact's name inside the output directory.
const FileName = "policy.json"

// DefaultDir is the output directory relative to the workspace root.
const DefaultDir = ".jp/policy"

// Platform manifest directories inside the output directory.
const (
	DirSBPL     = "sbpl"
	DirLandlock = "landlock"
	DirWinJob   = "winjob"
	// DirShared holds what every tool's manifests share, once
	// (landlock.BaseFile).
	DirShared = "shared"
)

// Input is one thing the compiler read (execplan.Input: the exec path's
// lean core defines it).
type Input = execplan.Input

// RuleOrigin says where one compiled rule was written.
type RuleOrigin struct {
	Kind  string        `json:"kind"`  // "fs", "net", "env", "config", "commands"
	Index int           `json:"index"` // index in the compiled list (fs/net/env/config)
	Key   string        `json:"key,omitempty"`
	Pos   diag.Position `json:"pos"`
}

// Tool is one compiled local tool.
type Tool struct {
	Source    string              `json:"source"`
	Enabled   bool                `json:"enabled"`
	Defaulted bool                `json:"defaulted"`
	Access    policy.AccessPolicy `json:"access"`
	Grants    []plan.Grant        `json:"grants"`
	Origins   []RuleOrigin        `json:"origins"`
	Warnings  []diag.Diagnostic   `json:"warnings"`
	// Enforcement maps a platform ("linux", "darwin", "windows") to the
	// status of every clause of the tool there but the shared ones
	// (Policy.Enforcement); the manifests (and `explain`) carry each
	// clause's full description.
	Enforcement map[platform.Platform][]ClauseStatus `json:"enforcement"`
	// Manifests maps a platform to its manifest path, relative to the
	// artifact's directory.
	Manifests map[platform.Platform]string `json:"manifests"`
	// ManifestSHA256 maps a platform to the hex SHA-256 of its manifest,
	// so a launcher can tell a manifest changed after compile.
	ManifestSHA256 map[platform.Platform]string `json:"manifest_sha256"`
	// BaseSHA256 maps a platform to the hex SHA-256 of the shared file
	// its manifest is completed with (landlock.BaseFile, sbpl.BaseFile:
	// what every tool's manifest shares, stored once); absent for a
	// platform whose manifest is whole.
	BaseSHA256 map[platform.Platform]string `json:"base_sha256,omitempty"`
}

// ClauseStatus is the artifact's summary of one clause on one platform:
// enforced, or degraded / cooperative-only and how.
type ClauseStatus struct {
	ID     string      `json:"id"`
	Status plan.Status `json:"status"`
	How    string      `json:"how,omitempty"`
}

// Summarize reduces clauses to their statuses; How is kept only where
// something is not fully enforced, which is what a reader of the artifact
// needs to know.
func Summarize(clauses []plan.Clause) []ClauseStatus {
	out := make([]ClauseStatus, len(clauses))
	for i, c := range clauses {
		out[i] = ClauseStatus{ID: c.ID, Status: c.Status}
		if c.Status != plan.Enforced {
			out[i].How = c.How
		}
	}
	return out
}

// Policy is the whole artifact.
type Policy struct {
	Format    int     `json:"format"`
	Generator string  `json:"generator"`
	Root      string  `json:"root"`
	Digest    string  `json:"digest"`
	Inputs    []Input `json:"inputs"`
	// Enforcement maps a platform to the status of the clauses every
	// tool there shares, listed once (the shared files' clauses: the
	// system baseline, the default deny, the seccomp filter without
	// network, the scopes); each tool's own Enforcement lists the rest.
	Enforcement map[platform.Platform][]ClauseStatus `json:"enforcement"`
	Tools       map[string]*Tool                     `json:"tools"`
	// Warnings are every finding of the compile (lint warnings and
	// dropped rules), sorted.
	Warnings []diag.Diagnostic `json:"warnings"`
}

// ErrStale is returned (wrapped in *StaleError) when an input changed since
// the artifact was compiled.
var ErrStale = execplan.ErrStale

// StaleError names the input that changed.
type StaleError = execplan.StaleError

// HashFile returns the hex SHA-256 of a file, or "" when it does not exist.
func HashFile(path string) (string, error) { return execplan.HashFile(path) }

// HashEnv is how an "env" input records a variable's value.
func HashEnv(value string) string { return execplan.HashEnv(value) }

// Digest computes the artifact digest over its inputs, independent of
// their order.
func Digest(inputs []Input) string {
	sorted := append([]Input(nil), inputs...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Kind != sorted[j].Kind {
			return sorted[i].Kind < sorted[j].Kind
		}
		return sorted[i].Path < sorted[j].Path
	})
	h := sha256.New()
	for _, in := range sorted {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\n", in.Kind, in.Path, in.SHA256, in.Target)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Verify re-reads every file and symlink input and returns a *StaleError
// for the first one that changed. "env" inputs are checked by the caller,
// which knows the environment the artifact is used in.
func Verify(p *Policy) error {
	return VerifyInputs(p.Inputs, func(in Input) (string, error) { return HashFile(in.Path) })
}

// VerifyInputs is Verify over inputs, with hash returning a file input's
// current hash ("" when absent): see execplan.VerifyInputs.
func VerifyInputs(inputs []Input, hash func(Input) (string, error)) error {
	return execplan.VerifyInputs(inputs, hash)
}

// Read loads an artifact and checks its format version.
func Read(path string) (*Policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Policy
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: not a jp-policy artifact: %w", path, err)
	}
	if p.Format != FormatVersion {
		return nil, fmt.Errorf("%s: artifact format %d, this jp-policy reads format %d; run `jp-policy compile`", path, p.Format, FormatVersion)
	}
	return &p, nil
}
