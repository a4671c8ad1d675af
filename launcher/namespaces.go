package launcher

import (
	"fmt"

	"github.com/jp-policy/jp-policy/emit/landlock"
	"github.com/jp-policy/jp-policy/internal/nsroot"
)

// NamespacesError refuses `exec --namespaces` where the namespaced path
// cannot run: no plan in the manifest (compiled by an older jp-policy),
// a tool with net rules (the filtering proxy is not wired in yet, and a
// private network namespace would cut it off silently), or no
// unprivileged user namespaces on this machine.
type NamespacesError struct{ Reason string }

func (e *NamespacesError) Error() string {
	return "exec --namespaces: " + e.Reason
}

// namespacedOK says whether this manifest can run on the namespaced path
// here.
func namespacedOK(m *landlock.Manifest) error {
	if m.Namespace == nil {
		return &NamespacesError{Reason: "the manifest has no namespace plan; run `jp-policy compile`"}
	}
	if len(m.Net.ConnectTCP) > 0 || len(m.Net.BindTCP) > 0 {
		return &NamespacesError{Reason: "the tool has net rules, and the filtering proxy that would serve them inside a private network namespace is not wired in yet; run without --namespaces"}
	}
	if ok, why := nsroot.Available(); !ok {
		return &NamespacesError{Reason: fmt.Sprintf("unprivileged user namespaces are unavailable here (%s); run without --namespaces for Landlock and seccomp alone", why)}
	}
	return nil
}
