// Package config owns JP's layered tool configuration as jp-policy reads
// it: finding the layers in JP's order, following `extends`, honouring
// `inherit = false`, merging `conversation.tools` with JP's MergeableVec
// semantics, and remembering for every merged value the file, line and
// column it came from. It also validates each layer and the merged result
// against the embedded JSON Schema.
//
// Only `conversation.tools` is modelled; every other key of JP's config is
// read (so positions and syntax errors are right) and left untouched.
package config
