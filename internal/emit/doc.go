// Package emit owns what the three platform emitters (emit/sbpl,
// emit/landlock, emit/winjob) share: the input they are given (one
// compiled tool with its rules bound to absolute paths on this machine)
// and the helpers that turn its rules into clauses. What they write is the
// plan (internal/plan/...), which exec reads without importing them.
package emit
