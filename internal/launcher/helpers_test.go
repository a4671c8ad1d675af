package launcher

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
	sbplan "github.com/jp-policy/jp-policy/internal/plan/sbpl"
	"github.com/jp-policy/jp-policy/internal/platform"
)

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// writeManifestFiles writes m as compile lays it out in the artifact
// directory dir: its Linux manifest file at landlock/<tool>.json with an
// empty baseline, m's baseline as the shared base (landlock.BaseFile),
// and a minimal shared macOS profile start. It returns the manifest's hash and
// the shared files' hashes, as the tool's exec file records them.
func writeManifestFiles(tb testing.TB, dir string, m *landlock.Manifest) (string, map[platform.Platform]string) {
	tb.Helper()
	base := &landlock.Base{Version: landlock.FormatVersion, Baseline: m.Baseline, Clauses: []plan.Clause{}}
	file := *m
	file.Baseline = []landlock.PathRule{}
	rel := filepath.Join(dir, "landlock", m.Tool+".json")
	must(tb, os.MkdirAll(filepath.Dir(rel), 0o755))
	must(tb, writeJSON(rel, &file))
	must(tb, os.MkdirAll(filepath.Join(dir, "shared"), 0o755))
	must(tb, writeJSON(filepath.Join(dir, filepath.FromSlash(landlock.BaseFile)), base))
	must(tb, os.WriteFile(filepath.Join(dir, filepath.FromSlash(sbplan.BaseFile)), []byte("(version 1)\n(deny default)\n"), 0o644))
	sums := map[platform.Platform]string{}
	for plat, f := range map[platform.Platform]string{platform.Linux: landlock.BaseFile, platform.Darwin: sbplan.BaseFile} {
		h, err := artifact.HashFile(filepath.Join(dir, filepath.FromSlash(f)))
		must(tb, err)
		sums[plat] = h
	}
	msum, err := artifact.HashFile(rel)
	must(tb, err)
	return msum, sums
}
