package mount

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/jp-policy/jp-policy/internal/tomlquote"

	"github.com/pelletier/go-toml/v2"
)

// Marker comments identify the blocks mount appends, so unmount removes
// exactly those and never a rule the user wrote by hand.
const (
	markerPrefix        = "# jp-policy mount: "
	markerDefaultPrefix = "# jp-policy mount-default: "
	markerDefaultText   = markerDefaultPrefix + "keeps this tool's workspace access while it has mounts"
)

// Block is one appended `[[conversation.tools.<tool>.access.fs]]` table.
type Block struct {
	Tool string
	Rule Rule
	// Acknowledge, when set, is the reason written as lint's JP132
	// suppression above the block: the user's acknowledgement of a
	// read-write mount of the home directory (or a directory holding it),
	// which compile otherwise refuses.
	Acknowledge string
}

// ackPrefix starts the JP132 suppression a block may carry.
const ackPrefix = "# jp-policy: ignore JP132 -- "

// header is the array-of-tables header for a tool's fs rules.
func header(tool string) string {
	return "[[conversation.tools." + tomlquote.Key(tool) + ".access.fs]]"
}

// render writes b as TOML with its marker line.
func (b Block) render() string {
	var s strings.Builder
	if b.Acknowledge != "" && !b.Rule.WorkspaceDefault {
		s.WriteString(ackPrefix + strings.Join(strings.Fields(b.Acknowledge), " ") + "\n")
	}
	if b.Rule.WorkspaceDefault {
		s.WriteString(markerDefaultText)
	} else {
		s.WriteString(markerPrefix + b.Rule.Path)
	}
	s.WriteString("\n" + header(b.Tool) + "\n")
	s.WriteString("path = " + tomlquote.String(b.Rule.Path) + "\n")
	if b.Rule.External {
		s.WriteString("external = true\n")
	}
	fmt.Fprintf(&s, "read = %t\n", b.Rule.Read)
	if b.Rule.Write {
		s.WriteString("write = true\n")
	}
	if b.Rule.Execute {
		s.WriteString("execute = true\n")
	}
	return s.String()
}

// AppendBlocks returns src with blocks appended, each after a blank line.
// Existing text is not touched, so comments and formatting survive. The
// result is parsed to prove it is still valid TOML and that every block
// landed in its tool's access.fs (an inline `fs = [...]` array or a
// `{ strategy, value }` table cannot be extended by appending, and must be
// reported rather than written).
func AppendBlocks(file string, src []byte, blocks []Block) ([]byte, error) {
	var out bytes.Buffer
	out.Write(src)
	if len(src) > 0 && !bytes.HasSuffix(src, []byte("\n")) {
		out.WriteByte('\n')
	}
	for _, b := range blocks {
		if out.Len() > 0 {
			out.WriteByte('\n')
		}
		out.WriteString(b.render())
	}
	res := out.Bytes()
	doc, err := parseTOML(res)
	if err != nil {
		return nil, &Error{Kind: KindConfig, Err: err, Message: fmt.Sprintf(
			"cannot append rules to %s: the result would not be valid TOML (%v); "+
				"the file probably declares access.fs as an inline array or table for one of these tools, so add the rules there by hand",
			file, err)}
	}
	for _, b := range blocks {
		if !hasRule(doc, b.Tool, b.Rule.Path) {
			return nil, errorf(KindConfig, "cannot append rules to %s: the rule for %s did not land in conversation.tools.%s.access.fs", file, b.Rule.Path, b.Tool)
		}
	}
	return res, nil
}

func parseTOML(src []byte) (map[string]any, error) {
	var doc map[string]any
	if err := toml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// hasRule reports whether doc has a conversation.tools.<tool>.access.fs
// table with the given path.
func hasRule(doc map[string]any, tool, path string) bool {
	cur := any(doc)
	for _, k := range []string{"conversation", "tools", tool, "access"} {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		cur = m[k]
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return false
	}
	list, ok := m["fs"].([]any)
	if !ok {
		// go-toml decodes arrays of tables as []map[string]any.
		if tl, ok := m["fs"].([]map[string]any); ok {
			for _, r := range tl {
				if r["path"] == path {
					return true
				}
			}
		}
		return false
	}
	for _, r := range list {
		if rm, ok := r.(map[string]any); ok && rm["path"] == path {
			return true
		}
	}
	return false
}
