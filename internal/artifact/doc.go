// Package artifact owns the compiled policy artifact's file format
// (policy.json and the manifest files beside it) and the staleness check
// that `exec`, `check` and `explain` run before trusting it: every input
// the compiler read is listed with its hash, so a changed layer, a
// retargeted symlink or a changed approvals store is detected by hashing a
// handful of files, without loading or parsing config on the exec path.
package artifact
