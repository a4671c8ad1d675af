package configdelta

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// InvalidError is one structural problem of an outcome (RFD 078's
// `invalid_config`): where it is, by position and JSON pointer into the
// outcome document, what is wrong and how to fix it.
type InvalidError struct {
	Pos     diag.Position
	Pointer string // RFC 6901; "" is the whole document
	Message string
	Help    string // "" when there is nothing to add
}

func (e *InvalidError) Error() string {
	ptr := e.Pointer
	if ptr == "" {
		ptr = "(document)"
	}
	return fmt.Sprintf("%s: %s: %s", e.Pos, ptr, e.Message)
}

// Outcome is the part of a local tool's outcome RFD 078 acts on.
type Outcome struct {
	Type string // "success", "error" or "needs_input"
	// Config is the `config` object (a partial AppConfig) at /config, nil
	// if absent or null.
	Config *tomlpos.Node
	// Unset holds the `unset` entries that parsed, in order.
	Unset []UnsetEntry
}

// UnsetEntry is one parsed `unset` entry with its place in the document.
type UnsetEntry struct {
	Path    UnsetPath
	Raw     string
	Pointer string
	Pos     diag.Position
}

var outcomeTypes = []string{"success", "error", "needs_input"}

// ParseOutcome reads a tool outcome. A document that is not JSON is a
// *tomlpos.SyntaxError; structural problems of the outcome envelope and of
// the unset entries are returned together, each an *InvalidError. The
// partial config itself is checked by Enumerate.
func ParseOutcome(file string, data []byte) (*Outcome, []*InvalidError, error) {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, nil, &tomlpos.SyntaxError{Pos: diag.Position{File: file, Line: 1, Col: 1},
			Message: "a tool outcome must be a JSON object such as {\"type\": \"success\", \"content\": \"...\"}"}
	}
	root, err := tomlpos.ParseJSON(file, data)
	if err != nil {
		return nil, nil, err
	}
	var errs []*InvalidError
	bad := func(n *tomlpos.Node, ptr, msg, help string) {
		errs = append(errs, &InvalidError{Pos: n.Pos, Pointer: ptr, Message: msg, Help: help})
	}
	o := &Outcome{}
	switch t := root.Get("type"); {
	case t == nil:
		bad(root, "", "the outcome has no \"type\"", `add "type": "success" (JP's Outcome is tagged by type: success, error or needs_input)`)
	case t.Kind != tomlpos.String:
		bad(t, "/type", "\"type\" must be a string, not "+t.Kind.String(), "use one of: "+strings.Join(outcomeTypes, ", "))
	default:
		o.Type = t.Str
		known := false
		for _, k := range outcomeTypes {
			known = known || k == t.Str
		}
		if !known {
			bad(t, "/type", fmt.Sprintf("unknown outcome type %q", t.Str), "use one of: "+strings.Join(outcomeTypes, ", "))
		}
	}
	cfg, uns := root.Get("config"), root.Get("unset")
	if o.Type != "" && o.Type != "success" {
		// RFD 078: an outcome that errored or needs input has not
		// finished and may not mutate config.
		for _, f := range []struct {
			n    *tomlpos.Node
			name string
		}{{cfg, "config"}, {uns, "unset"}} {
			if f.n != nil {
				bad(f.n, "/"+f.name, fmt.Sprintf("%q is only allowed on a \"success\" outcome, not %q", f.name, o.Type),
					"return the config change with the final success outcome")
			}
		}
		return o, errs, nil
	}
	if cfg != nil {
		switch cfg.Kind {
		case tomlpos.Table:
			o.Config = cfg
		case tomlpos.Null:
			// serde reads null as "no config": no delta.
		default:
			bad(cfg, "/config", "\"config\" must be an object (a partial JP config), not "+cfg.Kind.String(), `write it as nested objects, e.g. {"assistant": {"name": "x"}}`)
		}
	}
	if uns != nil && uns.Kind != tomlpos.Null {
		if uns.Kind != tomlpos.Array {
			bad(uns, "/unset", "\"unset\" must be an array of path strings, not "+uns.Kind.String(), `e.g. ["assistant.model.parameters.temperature"]`)
		} else {
			for i, it := range uns.Items {
				ptr := "/unset/" + strconv.Itoa(i)
				if it.Kind != tomlpos.String {
					bad(it, ptr, "an unset entry must be a string, not "+it.Kind.String(), `write a dotted path, or path["identity"] for a vec element`)
					continue
				}
				p, err := ParseUnsetPath(it.Str)
				if err != nil {
					bad(it, ptr, err.Error(), `write a dotted path such as "assistant.name", or "conversation.attachments[\"file.md\"]" for one vec element`)
					continue
				}
				o.Unset = append(o.Unset, UnsetEntry{Path: p, Raw: it.Str, Pointer: ptr, Pos: it.Pos})
			}
		}
	}
	return o, errs, nil
}

// pointerToken escapes one JSON pointer token (RFC 6901).
func pointerToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
