// Package benchws writes the large workspaces compile is measured on: n
// local tools with 10 fs rules each (a mix of shared directories that
// exist, a narrowed secret, and per-tool paths that do not exist yet, as
// a generated config has), plus net and env rules. The compiler's
// benchmarks and bench/compile.sh use the same shape, so their figures
// compare.
package benchws
