package launcher

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/nsroot"
)

// Stage 2 of the namespaced path (a re-exec of jp-policy) applies the
// sandbox the parent decided, with the same ruleset builder as the fast
// path.
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
	return installFilters(sb)
}
