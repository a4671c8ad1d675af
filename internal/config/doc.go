// Package config owns JP's layered tool configuration as jp-policy reads
// it: finding the layers in JP's order (global, workspace, .jp.toml files,
// user-workspace, JP_CFG_ variables, --cfg files), following `extends`,
// honouring `inherit = false`, merging `conversation.tools` with JP's
// MergeableVec semantics, and remembering for every merged value the file,
// line and column it came from. It also validates each layer and the
// merged result against the embedded JSON Schema and renders the merged
// config for `jp-policy config`.
//
// Validation interprets schema.json itself, for exactly the keywords the
// file uses, and refuses any other keyword rather than skip it: a general
// JSON Schema library would cost every jp-policy start (the exec launcher
// included) its init-time meta-schema compilation. That library remains in
// the tests as an oracle the validator must agree with.
//
// Only `conversation.tools` is modelled; every other key of JP's config is
// read (so positions and syntax errors are right) and left untouched.
//
// JP's directory rules (where the layers are, the workspace root and id)
// are package jpdirs.
//
// Files: load.go (layer
// order, files), extends.go, env.go and env_native.go (JP_CFG_ forms),
// decode.go and merge.go / mergevec.go (the model), schema.go (validation
// and its diagnostics), schemacompile.go and schemaeval.go (the schema
// interpreter), output*.go (the config command's output).
package config
