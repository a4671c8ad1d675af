package configdelta

import (
	"strconv"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/schema"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// validateTools holds the partial config to the schema the config loader
// enforces on config files (package schema), which describes `conversation.tools` strictly
// (sources, commands, access rules) and leaves the rest of JP's config to
// shape.go. Each finding gets the JSON pointer of the node it is at.
func validateTools(cfg *tomlpos.Node, ptr string) []*InvalidError {
	ds := schema.Validate(cfg)
	if len(ds) == 0 {
		return nil
	}
	at := map[diag.Position]string{}
	var index func(n *tomlpos.Node, p string)
	index = func(n *tomlpos.Node, p string) {
		if _, ok := at[n.Pos]; !ok {
			at[n.Pos] = p
		}
		if !n.KeyPos.IsZero() {
			at[n.KeyPos] = p
		}
		for _, k := range n.Keys {
			index(n.Fields[k], p+"/"+pointerToken(k))
		}
		for i, it := range n.Items {
			index(it, p+"/"+strconv.Itoa(i))
		}
	}
	index(cfg, ptr)
	var out []*InvalidError
	for _, d := range ds {
		if d.Severity != diag.Error {
			continue
		}
		out = append(out, &InvalidError{Pos: d.Pos, Pointer: at[d.Pos], Message: strings.TrimSpace(d.Message), Help: d.Help})
	}
	return out
}
