// Package config owns JP's layered tool configuration as jp-policy reads
// it: finding the layers in JP's order (global, workspace, .jp.toml files,
// user-workspace, JP_CFG_ variables, --cfg files), following `extends`,
// honouring `inherit = false`, merging `conversation.tools` with JP's
// MergeableVec semantics, and remembering for every merged value the file,
// line and column it came from. It validates each layer and the merged
// result with package schema (the embedded JSON Schema and its evaluator)
// and renders the merged config for `jp-policy config`.
//
// Only `conversation.tools` is modelled; every other key of JP's config is
// read (so positions and syntax errors are right) and left untouched.
//
// JP's directory rules (where the layers are, the workspace root and id)
// are package jpdirs.
//
// Files: load.go (layer order, files), extends.go, env.go and
// env_native.go (JP_CFG_ forms), decode.go and merge.go / mergevec.go
// (the model), rules.go (diagnostic IDs), output*.go (the config
// command's output).
package config
