package config

import (
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// ValidateNode checks one document tree against the embedded schema, as
// Load checks every layer, and reports each problem at the offending key
// or value. configdelta uses it on the partial config of a tool outcome
// (RFD 078), so a delta is held to the same rules as a config file.
func ValidateNode(root *tomlpos.Node) diag.List { return validate(root) }
