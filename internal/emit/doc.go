// Package emit owns what the three platform emitters (emit/sbpl,
// emit/landlock, emit/winjob) share: the input they are given (one compiled
// tool with its rules bound to absolute paths on this machine) and the
// per-clause enforcement status they report (enforced, degraded or
// cooperative-only), which the artifact, `explain` and `exec --dry-run`
// show to the user.
package emit
