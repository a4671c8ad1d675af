package mount

import (
	"bytes"
	"strings"
)

// Found is a block that mount appended earlier, located by its marker.
type Found struct {
	Tool     string
	RulePath string // "." for a workspace-default block
	Default  bool
	Line     int // 1-based line of the marker
	start    int // first line index removed (a preceding blank line, if any)
	end      int // line index after the block
}

// FindBlocks lists the marker blocks in src. A marker whose block does
// not look exactly like one mount writes (wrong header, a path that does
// not match the marker, external missing) is skipped: it was edited by
// hand and is no longer ours to remove.
func FindBlocks(src []byte) []Found {
	lines := splitLines(src)
	var out []Found
	for i := 0; i < len(lines); i++ {
		// Only the line ending is stripped: a rule path may end in a space.
		text := strings.TrimRight(lines[i], "\r\n")
		isDefault := strings.TrimRight(text, " \t") == markerDefaultText
		rulePath, isMount := strings.CutPrefix(text, markerPrefix)
		if !isDefault && !isMount || i+1 >= len(lines) {
			continue
		}
		end := i + 2
		for end < len(lines) && !endsBlock(lines[end]) {
			end++
		}
		block := strings.Join(lines[i+1:end], "")
		tool, path, external, ok := parseBlock(block)
		if !ok {
			continue
		}
		if isDefault && (path != "." || external) || isMount && (path != rulePath || !external) {
			continue
		}
		start := i
		if isMount && i > 0 && strings.HasPrefix(lines[i-1], ackPrefix) {
			start = i - 1 // the block's JP132 acknowledgement goes with it
		}
		if start > 0 && strings.TrimSpace(lines[start-1]) == "" {
			start--
		}
		f := Found{Tool: tool, RulePath: path, Default: isDefault, Line: i + 1, start: start, end: end}
		out = append(out, f)
		i = end - 1
	}
	return out
}

// endsBlock reports whether a line starts something that is not part of
// an appended block's key/value body.
func endsBlock(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.HasPrefix(t, "[") || strings.HasPrefix(t, "#")
}

// parseBlock reads one `[[conversation.tools.<tool>.access.fs]]` table.
func parseBlock(block string) (tool, path string, external, ok bool) {
	doc, err := parseTOML([]byte(block))
	if err != nil {
		return "", "", false, false
	}
	conv, _ := doc["conversation"].(map[string]any)
	tools, _ := conv["tools"].(map[string]any)
	if len(doc) != 1 || len(conv) != 1 || len(tools) != 1 {
		return "", "", false, false
	}
	for name, v := range tools {
		t, _ := v.(map[string]any)
		access, _ := t["access"].(map[string]any)
		if len(t) != 1 || len(access) != 1 {
			return "", "", false, false
		}
		var rules []map[string]any
		switch fs := access["fs"].(type) {
		case []map[string]any:
			rules = fs
		case []any:
			for _, r := range fs {
				if m, ok := r.(map[string]any); ok {
					rules = append(rules, m)
				}
			}
		}
		if len(rules) != 1 {
			return "", "", false, false
		}
		p, _ := rules[0]["path"].(string)
		ext, _ := rules[0]["external"].(bool)
		return name, p, ext, p != ""
	}
	return "", "", false, false
}

// RemoveBlocks returns src without the given blocks (as found by
// FindBlocks on the same src), each with the blank line mount put before
// it, so mount followed by unmount gives back the original bytes.
func RemoveBlocks(src []byte, remove []Found) []byte {
	lines := splitLines(src)
	drop := make([]bool, len(lines))
	for _, f := range remove {
		for i := f.start; i < f.end && i < len(lines); i++ {
			drop[i] = true
		}
	}
	var out bytes.Buffer
	for i, l := range lines {
		if !drop[i] {
			out.WriteString(l)
		}
	}
	return out.Bytes()
}

// splitLines splits after each '\n', keeping the terminators, so joining
// the parts gives back src exactly.
func splitLines(src []byte) []string {
	var out []string
	s := string(src)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
