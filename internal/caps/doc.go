// Package caps owns dropping every Linux capability from the thread that
// is about to exec a sandboxed program: the launcher's exec thread and the
// namespaced path's stage 2 both call DropAll, so root's capabilities and
// a user namespace's are gone the same way.
package caps
