// Package approvals owns JP's user-local approval store for external mount
// targets (RFD D43 "Approval lifecycle"): the file
// <user-workspace-storage>/approvals.json that binds a workspace-relative
// rule path (the symlink, e.g. "fork") to the canonical absolute target the
// user approved for it (trust on first use).
//
// The package reads and writes that file in JP's exact shape, keeps any
// top-level keys it does not know (JP may add sibling approval categories),
// and answers one question for the compiler: is this (rule path, canonical
// target) pair approved, retargeted, or unknown. It never resolves symlinks
// itself; callers pass the canonical target produced by package policy.
//
// Failure policy: a missing file is an empty store. A corrupt file is read
// as empty (so nothing it held is granted) with a warning, and it is never
// overwritten silently: Save refuses unless forced.
package approvals
