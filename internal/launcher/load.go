package launcher

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// leanArtifact is the part of policy.json the launcher needs when the pin
// has no tool table (no per-tool exec plans).
// Decoding into it skips rule origins, warnings and enforcement tables,
// which the exec path never looks at.
type leanArtifact struct {
	Format int                 `json:"format"`
	Root   string              `json:"root"`
	Digest string              `json:"digest"`
	Inputs []artifact.Input    `json:"inputs"`
	Tools  map[string]leanTool `json:"tools"`
}

// leanTool is the part of one artifact tool the launcher needs: the same
// fields as a tool's exec plan.
type leanTool = artifact.ExecTool

// located is what the artifact says about one tool on one platform.
type located struct {
	Manifest string // absolute path of the platform manifest
	// Dir is the artifact's directory, where the shared files are.
	Dir      string
	Root     string
	Env      []policy.EnvRule
	Commands map[string]policy.CommandRule
	Net      []policy.NetRule
	// SHA256 is the manifest's hash as recorded in the pinned artifact;
	// the manifest is read through readVerified, never trusted by path.
	SHA256 string
	// BaseSHA256 is the recorded hash of the shared file the manifest is
	// completed with (landlock.BaseFile, sbpl.BaseFile), read the same way.
	BaseSHA256 string
}

// resolveManifest reads the artifact at artifactPath for the workspace
// root, checks that it is this workspace's (reached through no symlink
// when strict, pinned for this root and path, recording this root) and
// current (a stale artifact is an *artifact.StaleError telling the user to
// run `jp-policy compile`), and returns the absolute path of tool's
// manifest for platform, with what else the launcher needs from it.
func resolveManifest(root, artifactPath string, strict bool, tool string, plat platform.Platform) (*located, error) {
	if strict {
		if err := CheckRealDirs(root, filepath.Dir(filepath.Dir(artifactPath)), filepath.Dir(artifactPath)); err != nil {
			return nil, err
		}
	}
	// The pin names each tool's exec plan hash (compiled by this version):
	// read that one small file instead of all of policy.json, so the cost
	// does not grow with the number of tools. Any other case (no pin, an
	// older pin, a mismatch) takes the full read below, which reports it.
	if dataDir, err := jpdirs.UserDataDir(os.Getenv); err == nil {
		pin, sum, err := artifact.PinTool(dataDir, root, artifactPath, tool)
		if err == nil && sum != "" {
			loc, err := resolvePlan(root, artifactPath, dataDir, pin, sum, tool, plat)
			if errors.Is(err, artifact.ErrTampered) || errors.Is(err, artifact.ErrStale) {
				// A compile between its swap and its pin looks like
				// this (a new plan against the old pin, or the old
				// pin's inputs against the edited config): look again
				// once no compile holds the pin's lock, if the pin
				// changed meanwhile.
				unlock := artifact.LockPin(dataDir, root, artifactPath, false)
				if pin2, sum2, perr := artifact.PinTool(dataDir, root, artifactPath, tool); perr == nil && sum2 != "" && (sum2 != sum || pin2.SHA256 != pin.SHA256) {
					loc, err = resolvePlan(root, artifactPath, dataDir, pin2, sum2, tool, plat)
				}
				unlock()
			}
			return loc, err
		}
		if err != nil && errors.Is(err, artifact.ErrStale) {
			return nil, err // a pin of an older format (*execplan.OldPinError)
		}
		if err == nil && pin.Tools != nil {
			// Not in the pin: read the whole table (the error path
			// only) to name the tools there are.
			return nil, toolNotPinned(dataDir, root, artifactPath, tool)
		}
	}
	b, err := ReadNoFollow(artifactPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &MissingArtifactError{Path: artifactPath}
	}
	if errors.Is(err, ErrIsSymlink) {
		return nil, &ArtifactLinkError{Path: artifactPath}
	}
	if err != nil {
		return nil, err
	}
	// The pin (outside the workspace) says these are the bytes compile
	// wrote for this workspace at this path; a tool that could write the
	// workspace cannot forge them, nor swap in another workspace's.
	if err := checkPin(root, artifactPath, b); err != nil {
		return nil, err
	}
	var a leanArtifact
	names, _, err := leanArtifactDecode(b, tool, &a)
	if err != nil {
		return nil, fmt.Errorf("%s: not a jp-policy artifact: %w", artifactPath, err)
	}
	if a.Format != artifact.FormatVersion {
		return nil, fmt.Errorf("%s: artifact format %d, this jp-policy reads format %d; run `jp-policy compile`", artifactPath, a.Format, artifact.FormatVersion)
	}
	if err := checkCurrent(artifactPath, root, a.Root, a.Inputs); err != nil {
		return nil, err
	}
	t, ok := a.Tools[tool]
	if !ok {
		sort.Strings(names)
		return nil, &ToolNotFoundError{Tool: tool, Artifact: artifactPath, Known: names}
	}
	return locatedFor(artifactPath, a.Root, &t, tool, plat)
}

// checkCurrent checks what both read paths share: that the artifact was
// compiled for this workspace root (recorded, as src records it) and that
// it is current (every input unchanged, no new layer for the working
// directory). src names the file read, for messages; inputs come from
// the pin (or from policy.json, which the pin pins, for a pin without a
// tool table).
func checkCurrent(src, root, recorded string, inputs []artifact.Input) error {
	if recorded != root {
		return &MismatchError{Manifest: src, What: fmt.Sprintf("artifact was compiled for the workspace %s, not %s", recorded, root)}
	}
	return VerifyCurrent(root, inputs)
}

// locatedFor is the tool's manifest for platform and what else exec needs
// of it, once the artifact (compiled for root) is known to be this
// workspace's and current.
func locatedFor(artifactPath, root string, t *artifact.ExecTool, tool string, plat platform.Platform) (*located, error) {
	if !t.Enabled {
		return nil, &ToolDisabledError{Tool: tool}
	}
	rel, ok := t.Manifests[plat]
	if !ok || rel == "" {
		return nil, &NoManifestError{Tool: tool, Platform: plat}
	}
	if !filepath.IsAbs(rel) {
		rel = filepath.Join(filepath.Dir(artifactPath), filepath.FromSlash(rel))
	}
	return &located{Manifest: rel, Dir: filepath.Dir(artifactPath), Root: root, Env: t.Access.Env, Commands: t.Access.Commands, Net: t.Access.Net,
		SHA256: t.ManifestSHA256[plat], BaseSHA256: t.BaseSHA256[plat]}, nil
}

// checkPin verifies policy.json against the pin compile wrote in the
// user's data directory for this workspace root and artifact path.
func checkPin(root, artifactPath string, b []byte) error {
	dataDir, err := jpdirs.UserDataDir(os.Getenv)
	if err != nil {
		return fmt.Errorf("cannot find the artifact's pin: %w", err)
	}
	return artifact.CheckPin(dataDir, root, artifactPath, b)
}

// readVerified reads a manifest and checks it against the hash policy.json
// recorded for it, so the bytes that are applied are the bytes compile
// wrote, with no window between the check and the use.
func readVerified(path, sum string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &MismatchError{Manifest: path, What: "manifest listed in the artifact is missing"}
	}
	if err != nil {
		return nil, err
	}
	if sum == "" {
		return nil, &artifact.TamperError{Path: path, Reason: "has no recorded hash in policy.json"}
	}
	if artifact.SHA256Hex(b) != sum {
		return nil, &artifact.TamperError{Path: path, Reason: "does not match the hash recorded when it was compiled"}
	}
	return b, nil
}

// toolNotPinned is the *ToolNotFoundError for a tool the pin does not
// list, naming the ones it does.
func toolNotPinned(dataDir, root, artifactPath, tool string) error {
	pin, err := artifact.ReadPin(dataDir, root, artifactPath)
	if err != nil {
		return err
	}
	names := slices.Sorted(maps.Keys(pin.Tools))
	return &ToolNotFoundError{Tool: tool, Artifact: artifactPath, Known: names}
}

// resolvePlan is resolveManifest's path through the tool's exec
// plan (pinned: want is its hash in pin, ReadPlan); the staleness inputs
// are pin's.
func resolvePlan(root, artifactPath, dataDir string, pin *artifact.Pin, want, tool string, plat platform.Platform) (*located, error) {
	pl, err := ReadPlan(artifactPath, tool, want)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(filepath.Dir(artifactPath), filepath.FromSlash(execplan.PlanFile(tool)))
	if err := checkCurrent(path, root, pl.Root, pin.Inputs); err != nil {
		return nil, err
	}
	return locatedFor(artifactPath, pl.Root, &pl.Exec, tool, plat)
}

// owns checks that a decoded manifest belongs to the tool asked for and
// to this workspace: a manifest of another tool or workspace, with a
// valid hash of its own, is refused the same way on every platform.
// Which compile it belongs to needs no field of its own: its hash is in
// the exec plan (or policy.json), whose hash the pin chain holds.
func (l *located) owns(manifestRoot, manifestTool, tool string) error {
	if manifestRoot != l.Root {
		return &MismatchError{Manifest: l.Manifest, What: fmt.Sprintf("manifest was compiled for the workspace %s, not %s", manifestRoot, l.Root)}
	}
	if manifestTool != tool {
		return &MismatchError{Manifest: l.Manifest, What: fmt.Sprintf("manifest is for tool %q, not %q", manifestTool, tool)}
	}
	return nil
}
