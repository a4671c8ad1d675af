package launcher

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/nsroot"
	"github.com/jp-policy/jp-policy/internal/seccomp"
)

// Stage 2 of the namespaced path applies the sandbox the parent decided,
// in whichever binary runs it: both jp-policy and jp-policy-exec link
// this package, so either can be stage 2 (the parent prefers the lean
// one, Stage2Binary).
func init() { nsroot.SetFinalize(finalizeNS) }

// finalizeNS runs in stage 2 on the thread that execs, after nsroot
// built the root, dropped every capability and set no_new_privs:
// Landlock, then the seccomp filter, exactly as the fast path applies
// them. The parent computed the sandbox (execplan.EncodeSandbox in
// nsroot.Spec.Extra); the paths are opened here, inside the new root.
func finalizeNS(s *nsroot.Spec) error {
	sb, err := execplan.DecodeSandbox(s.Extra)
	if err != nil {
		return fmt.Errorf("namespaced exec: bad sandbox from the launcher: %w", err)
	}
	DetachTerminal()
	if err := RestrictThread(sb); err != nil {
		return err
	}
	if sb.Filter != nil {
		if err := seccomp.Install(sb.Filter); err != nil {
			return err
		}
	}
	return nil
}
