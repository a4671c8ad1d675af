package lint

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/jp-policy/jp-policy/internal/diag"
)

// A suppression comment reads
//
//	# jp-policy: ignore JP107[,JP116...] -- reason
//
// and covers the table or rule that starts on the next line that is not
// blank and not a comment: up to the next table header for a `[table]` or
// `[[rule]]` header, or to the end of the value for a key or an inline
// table in an array.
const directive = "jp-policy:"

type suppression struct {
	file     string
	line     int // of the comment
	col      int // of the `#`
	from, to int // covered lines, inclusive
	ids      []string
	used     map[string]bool // IDs that hid a finding in this run
	text     string          // the comment line as written
	indent   string
	reason   string
}

type suppressions struct {
	list     []suppression
	problems []diag.Diagnostic
}

// parseSuppressions reads every TOML or YAML file for directives. JSON
// has no comments; --ignore is its only suppression.
func parseSuppressions(files map[string][]byte) suppressions {
	var s suppressions
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		// Most files hold no directive; skip lexing them at all.
		if !bytes.Contains(files[name], []byte(directive)) {
			continue
		}
		switch strings.ToLower(filepath.Ext(name)) {
		case ".toml":
			s.scan(name, files[name], false)
		case ".yaml", ".yml":
			s.scan(name, files[name], true)
		}
	}
	return s
}

func (s *suppressions) problem(file string, line, col int, msg, help string) {
	r := rule(invalidSuppressionID)
	s.problems = append(s.problems, diag.Diagnostic{
		Pos:      diag.Position{File: file, Line: line, Col: col},
		Severity: r.Severity, Rule: r.ID, Message: msg, Help: help,
	})
}

func (s *suppressions) scan(file string, src []byte, yaml bool) {
	lines := scanLines(src)
	for i, ln := range lines {
		if ln.comment < 0 || !ln.onlyComment {
			continue
		}
		text := strings.TrimSpace(ln.text[ln.comment+1:])
		if !strings.HasPrefix(text, directive) {
			continue
		}
		col := utf8.RuneCountInString(ln.text[:ln.comment]) + 1
		body := strings.TrimSpace(strings.TrimPrefix(text, directive))
		verb, rest, _ := strings.Cut(body, " ")
		if verb != "ignore" {
			s.problem(file, i+1, col, fmt.Sprintf("unknown jp-policy directive %q", verb),
				"write `# jp-policy: ignore ID -- reason`")
			continue
		}
		idPart, reason, hasReason := strings.Cut(rest, "--")
		ids := splitIDs(idPart)
		if len(ids) == 0 {
			s.problem(file, i+1, col, "suppression names no rule", "write `# jp-policy: ignore ID -- reason`")
			continue
		}
		if !hasReason || strings.TrimSpace(reason) == "" {
			s.problem(file, i+1, col, fmt.Sprintf("suppression of %s gives no reason, so it is not applied", strings.Join(ids, ", ")),
				"add why the finding is acceptable: `# jp-policy: ignore "+strings.Join(ids, ",")+" -- reason`")
			continue
		}
		var good []string
		for _, id := range ids {
			r, ok := ruleOK(normalizeID(id))
			switch {
			case !ok:
				s.problem(file, i+1, col, fmt.Sprintf("suppression names unknown rule %q", id), "`jp-policy rules` lists the rule IDs")
			case !r.Suppressible:
				s.problem(file, i+1, col, fmt.Sprintf("%s cannot be suppressed: it reports a policy that is unsafe or not enforced as written", r.ID),
					"fix the config instead; docs/rules.md says why this rule has no suppression")
			default:
				good = append(good, r.ID)
			}
		}
		if len(good) == 0 {
			continue
		}
		from, to, ok := coveredRange(lines, i+1, yaml)
		if !ok {
			s.problem(file, i+1, col, "suppression is not followed by a table, rule or key", "put the comment on the line directly above what it should cover")
			continue
		}
		s.list = append(s.list, suppression{file: file, line: i + 1, col: col, from: from, to: to, ids: good,
			used: map[string]bool{}, text: strings.TrimSuffix(ln.text, "\r"), indent: ln.text[:ln.comment], reason: strings.TrimSpace(reason)})
	}
}

func splitIDs(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}

// coveredRange finds what a comment on line index `start-1` covers and
// returns its 1-based first and last line.
func coveredRange(lines []lineInfo, start int, yaml bool) (from, to int, ok bool) {
	n := start
	for n < len(lines) && (lines[n].blank || lines[n].onlyComment) {
		n++
	}
	if n >= len(lines) {
		return 0, 0, false
	}
	first := lines[n]
	if yaml {
		// YAML nests by indentation: the key and everything indented
		// deeper below it.
		end := n
		for k := n + 1; k < len(lines); k++ {
			if lines[k].blank || lines[k].onlyComment {
				continue
			}
			if lines[k].indent <= first.indent {
				break
			}
			end = k
		}
		return n + 1, end + 1, true
	}
	if first.header {
		end := n
		for k := n + 1; k < len(lines); k++ {
			if lines[k].header {
				break
			}
			end = k
		}
		return n + 1, end + 1, true
	}
	// A key or an array element: runs until the brackets opened from here
	// close again.
	base := first.depthBefore
	end := n
	for k := n; k < len(lines); k++ {
		end = k
		if lines[k].depthAfter <= base {
			break
		}
	}
	return n + 1, end + 1, true
}

// apply drops suppressed findings and adds the problems found in
// suppression comments.
func (s suppressions) apply(ds []diag.Diagnostic, ignore []string) []diag.Diagnostic {
	ign := map[string]bool{}
	for _, id := range ignore {
		ign[normalizeID(id)] = true
	}
	out := make([]diag.Diagnostic, 0, len(ds)+len(s.problems))
	for _, d := range ds {
		if !s.hides(d, ign) {
			out = append(out, d)
		}
	}
	for _, d := range s.problems {
		if !s.hides(d, ign) {
			out = append(out, d)
		}
	}
	for _, d := range s.unused() {
		if !s.hides(d, ign) {
			out = append(out, d)
		}
	}
	return out
}

// unused reports every suppression that hid nothing (ruff's RUF100), with
// a fix that removes the comment, or only the IDs that were not needed.
func (s suppressions) unused() []diag.Diagnostic {
	r := rule(unusedSuppressionID)
	var out []diag.Diagnostic
	for _, sp := range s.list {
		var idle, kept []string
		for _, id := range sp.ids {
			if sp.used[id] || PerMachine(id) {
				kept = append(kept, id)
			} else {
				idle = append(idle, id)
			}
		}
		if len(idle) == 0 {
			continue
		}
		pos := diag.Position{File: sp.file, Line: sp.line, Col: sp.col, EndLine: sp.line, EndCol: utf8.RuneCountInString(sp.text) + 1}
		fix := deleteLines("remove the suppression", sp.file, sp.line, sp.line)
		if len(kept) > 0 {
			fix = replaceSpan("remove "+strings.Join(idle, ", ")+" from the suppression",
				diag.Position{File: sp.file, Line: sp.line, Col: 1, EndLine: sp.line, EndCol: utf8.RuneCountInString(sp.text) + 1},
				sp.indent+"# "+directive+" ignore "+strings.Join(kept, ",")+" -- "+sp.reason)
		}
		out = append(out, diag.Diagnostic{
			Pos: pos, Severity: r.Severity, Rule: r.ID, Fix: fix,
			Message: fmt.Sprintf("suppression of %s hides nothing: no such finding in the lines it covers", strings.Join(idle, ", ")),
			Help:    "remove it (`jp-policy lint --fix` does), or move it above the table, rule or key the finding is reported on",
		})
	}
	return out
}

func (s suppressions) hides(d diag.Diagnostic, ign map[string]bool) bool {
	r, ok := ruleOK(d.Rule)
	if !ok || !r.Suppressible {
		return false
	}
	hidden := false
	for _, sp := range s.list {
		if sp.file != d.Pos.File || d.Pos.Line < sp.from || d.Pos.Line > sp.to {
			continue
		}
		if slices.Contains(sp.ids, d.Rule) {
			// Every covering comment that names the rule counts as used,
			// so none of them is reported as unused.
			sp.used[d.Rule] = true
			hidden = true
		}
	}
	return hidden || ign[d.Rule]
}
