// Package approvals owns JP's user-local approval store for external mount
// targets (RFD D43 "Approval lifecycle"): the file
// <user-workspace-storage>/approvals.json that binds a workspace-relative
// rule path (the symlink, e.g. "fork") to the canonical absolute target the
// user approved for it (trust on first use).
//
// The package reads and writes that file in JP's exact shape, keeps any
// top-level keys it does not know (JP may add sibling approval categories),
// and answers one question: is this (rule path, canonical target) pair
// approved, retargeted, or unknown. On that it builds every approval
// decision jp-policy makes: the compile-time lifecycle (Review: trust,
// ask, or drop; Open finds the store), `approvals approve` (ApproveRule)
// and `approvals list` (ListBindings). It never resolves symlinks itself:
// targets come from package policy (BindRule), the compiler's own binding.
//
// Failure policy: a missing file is an empty store. A corrupt file is read
// as empty (so nothing it held is granted) with a warning, and it is never
// overwritten silently: Save refuses unless forced.
package approvals
