// Package mount owns RFD D43's mount shortcut outside of JP: the
// `[TOOL:]NAME=PATH[:MODE]` grammar, the plan a mount makes (which tools,
// which rules, the default-deny preservation rule), and the transaction
// that carries it out: a workspace symlink to the canonical target, an
// approval in JP's approvals.json, and access.fs rules appended as TOML
// text to a config file with comments and formatting left intact. It also
// owns the reverse, unmount, which removes exactly the blocks mount wrote
// (found by their marker comment), the symlink and the approval.
//
// Every step that changes something records how to undo itself; when a
// later step fails the earlier ones are undone, so a failed mount leaves
// no orphan symlink, half-written config or stray approval.
package mount
