package config

import "github.com/jp-policy/jp-policy/internal/schema"

// Rule IDs of the loader's diagnostics; lint documents them. Schema
// violations carry package schema's IDs.
const (
	RuleSyntax       = "JP001"               // TOML/JSON syntax
	RuleSchema       = schema.RuleSchema     // schema violation
	RuleUnknownKey   = schema.RuleUnknownKey // unknown key in any table the schema closes
	RuleMissingExt   = "JP004"               // missing extends target (warning)
	RuleCycle        = "JP005"               // extends cycle
	RuleExtension    = "JP006"               // unsupported file extension
	RuleDroppedLayer = "JP007"               // an extends glob match JP cannot load drops the layer
)
