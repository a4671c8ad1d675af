package launcher

import (
	"fmt"
	"strings"

	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/suggest"
)

// The errors callers branch on. Each says what to do next; a refusal
// never leaves the user guessing whether the command ran.

// ToolNotFoundError says the artifact has no such tool.
type ToolNotFoundError struct {
	Tool     string
	Artifact string
	Known    []string
}

func (e *ToolNotFoundError) Error() string {
	known := "none"
	switch {
	case len(e.Known) > 0 && len(e.Known) <= 12:
		known = strings.Join(e.Known, ", ")
	case len(e.Known) > 12:
		known = fmt.Sprintf("%d tools", len(e.Known))
	}
	hint := ""
	if s := suggest.Closest(e.Tool, e.Known); len(s) > 0 {
		hint = fmt.Sprintf("; did you mean %q?", s[0])
	}
	return fmt.Sprintf("tool %q is not in %s (compiled tools: %s)%s; check the name, or run `jp-policy compile` if it was added since", e.Tool, e.Artifact, known, hint)
}

// ToolDisabledError refuses a tool the config disables.
type ToolDisabledError struct{ Tool string }

func (e *ToolDisabledError) Error() string {
	return fmt.Sprintf("tool %q is disabled in the config; refusing to run it", e.Tool)
}

// NoManifestError says the artifact has no manifest for this platform.
type NoManifestError struct {
	Tool     string
	Platform platform.Platform
}

func (e *NoManifestError) Error() string {
	return fmt.Sprintf("tool %q has no %s manifest in the artifact; run `jp-policy compile`", e.Tool, e.Platform)
}

// MissingArtifactError says no compiled policy exists where expected.
type MissingArtifactError struct{ Path string }

func (e *MissingArtifactError) Error() string {
	return fmt.Sprintf("no compiled policy at %s; run `jp-policy compile` (or pass --default to run under the default policy)", e.Path)
}

// UnenforceableError refuses to run because the kernel cannot enforce
// some clauses and --best-effort was not given.
type UnenforceableError struct {
	ABI      int
	Degraded []Degradation
}

func (e *UnenforceableError) Error() string {
	parts := make([]string, len(e.Degraded))
	abi := false
	for i, d := range e.Degraded {
		parts[i] = d.String()
		abi = abi || d.Need > 0
	}
	if !abi {
		return fmt.Sprintf("refusing to run: this machine cannot enforce %s; pass --best-effort to run with these clauses degraded",
			strings.Join(parts, "; "))
	}
	return fmt.Sprintf("refusing to run: this kernel's Landlock ABI is %d and cannot enforce %s; upgrade the kernel, or pass --best-effort to run with these clauses degraded",
		e.ABI, strings.Join(parts, "; "))
}

// ABITooLowError refuses a kernel below --require-abi.
type ABITooLowError struct{ Have, Want int }

func (e *ABITooLowError) Error() string {
	return fmt.Sprintf("refusing to run: this kernel's Landlock ABI is %d, --require-abi asks for %d", e.Have, e.Want)
}

// UsageError is a mistake in the invocation itself.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }
