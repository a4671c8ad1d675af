// Package policy owns the access-policy wire types (the JSON shape of JP's
// jp_tool::AccessPolicy plus jp-policy's `commands` and `config`
// extensions) and every decision made against them: the one
// canonicalisation routine for paths (RFD 076 "Path evaluation" as amended
// by RFD D43), and the matchers for filesystem, network, environment,
// config and command rules. It is importable by Go tools as their
// counterpart of JP's `jp_tool::Context::check_*`.
//
// The package does no config loading and no I/O beyond resolving symlinks
// under the workspace root; everything else in jp-policy calls into it
// rather than deciding access itself.
package policy
