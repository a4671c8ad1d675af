// Package compiler owns the pipeline behind `jp-policy compile`, modelled
// on Caddy's config adapters: human config in (the merged layers),
// canonical JSON out (the artifact), warnings with file and line. It runs
// the lint checks (errors stop it), binds every fs rule to the workspace's
// real symlinks through policy.BindRule (lint and compile share one
// policy.StatCache, so each path is looked up once), puts external rules
// through the RFD D43 approval lifecycle (approvals.Review: trust on first use,
// through a Prompter when a terminal is there), materialises RFD 075's
// default policy for tools without `access`, runs the platform emitters
// (one table, emit.go) over all CPUs, and writes the artifact and
// manifests deterministically: streamed into a stage (a file the previous
// artifact already holds byte for byte is linked, not created), made
// durable once, swapped in atomically, the previous one removed in the
// background while the pin is written (docs/compile.md).
//
// It also serves `check` and `explain`, which need a tool's compiled
// policy without writing anything.
package compiler
