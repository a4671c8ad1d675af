// Package compiler owns the pipeline behind `jp-policy compile`, modelled
// on Caddy's config adapters: human config in (the merged layers),
// canonical JSON out (the artifact), warnings with file and line. It runs
// the lint checks (errors stop it), binds every fs rule to the workspace's
// real symlinks through policy.BindRule, puts external rules through the
// RFD D43 approval lifecycle (approvals.Review: trust on first use,
// through a Prompter when a terminal is there), materialises RFD 075's
// default policy for tools without `access`, runs the platform emitters
// (one table, emit.go) over all CPUs, and writes the artifact and
// manifests deterministically: streamed into a stage, made durable once
// and swapped in atomically (docs/compile.md).
//
// It also serves `check` and `explain`, which need a tool's compiled
// policy without writing anything.
package compiler
