// Package diag owns the diagnostic type shared by every part of jp-policy
// that reports a problem in a user's config: the loader, the schema
// validator, the lint rules and the compiler. A diagnostic names a file, a
// line and a column, a severity, a stable rule ID and a fix hint, so that
// every message a user reads has the same shape whatever produced it.
package diag
