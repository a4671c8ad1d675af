package lint

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

var ruleJP107 = Rule{
	ID: "JP107", Name: "sensitive-path", Severity: diag.Warning, Suppressible: true,
	Title: "A tool's fs rules reach a sensitive path (keys, credentials, .env files)",
	Description: "RFD 075 lists paths that hold high-value secrets: `~/.ssh/`, `~/.gnupg/`, `~/.gpg/`, `~/.aws/credentials`, `~/.config/gcloud/`, `~/.kube/config`, `~/.docker/config.json`, " +
		"`**/.env` and `**/.env.*`, plus every `sensitive_paths` entry in config (which adds to the list and cannot shorten it). " +
		"Lint warns when a rule that grants anything reaches one: an external mount whose target is, holds, or lies inside such a path, or a granted prefix of the workspace that holds a matching file. " +
		"The rule that decides the path is named, so a more specific rule that denies it silences the warning. Tools without fs rules are not examined.",
	Fix:   "Add a more specific rule that grants nothing on the sensitive path (`path = \".env\"` with no capabilities), narrow the mount, or suppress with a reason if the tool really needs it.",
	check: checkSensitivePath,
}

type sensitiveHit struct {
	rule    *boundRule
	sp      sensitivePath
	example string // what was reached, as shown to the user
	count   int
}

func checkSensitivePath(p *pass) {
	if len(p.st.tools) == 0 {
		return
	}
	if p.st.sensitive == nil {
		p.st.sensitive = sensitiveList(p.l, p.st.sorted, p.st.home)
	}
	for _, tf := range p.st.tools {
		hits := map[[2]int]*sensitiveHit{}
		var order [][2]int
		hit := func(w *boundRule, si int, sp sensitivePath, example string) {
			if w == nil || !w.grantsAny() {
				return
			}
			k := [2]int{w.index, si}
			if h, ok := hits[k]; ok {
				h.count++
				return
			}
			hits[k] = &sensitiveHit{rule: w, sp: sp, example: example, count: 1}
			order = append(order, k)
		}
		for si, sp := range p.st.sensitive {
			if !sp.appliesTo(tf.tool.Name) {
				continue
			}
			if sp.abs != "" {
				p.st.reachAnchored(tf, sp.abs, func(w *boundRule, abs string) { hit(w, si, sp, p.st.show(abs)) })
				continue
			}
			for _, key := range p.st.globMatches(tf, si) {
				hit(tf.winner(key), si, sp, key)
			}
		}
		sort.Slice(order, func(i, j int) bool {
			if order[i][0] != order[j][0] {
				return order[i][0] < order[j][0]
			}
			return order[i][1] < order[j][1]
		})
		for _, k := range order {
			h := hits[k]
			what := h.example
			if h.count > 1 {
				what += fmt.Sprintf(" and %d more", h.count-1)
			}
			var related []diag.Related
			if !h.sp.pos.IsZero() {
				related = append(related, diag.Related{Pos: h.sp.pos, Message: fmt.Sprintf("%q is made sensitive at", h.sp.pattern)})
			}
			p.report(p.valueOf(h.rule.rule.Keys, "path", h.rule.rule.Pos),
				fmt.Sprintf("tool %q can %s %s (sensitive path %q) through fs rule %q", tf.tool.Name, capList(h.rule), what, h.sp.pattern, h.rule.rule.Path),
				"add a more specific rule with no capabilities for that path, narrow this rule, or suppress with the reason the tool needs it",
				related...)
		}
	}
}

// capList names the capabilities a rule grants, in RFD 076 order.
func capList(b *boundRule) string {
	var cs []string
	for _, c := range policy.Capabilities {
		if b.grants(c) {
			cs = append(cs, c.String())
		}
	}
	return strings.Join(cs, ", ")
}

// reachAnchored calls f for every rule of tf that decides a path at or
// under target (an absolute path): a rule whose own path lies inside
// target, and the winning rule at target's place in the workspace view
// when a rule's path contains it.
func (st *state) reachAnchored(tf *toolFS, target string, f func(w *boundRule, abs string)) {
	for _, b := range tf.rules {
		if b.err != nil {
			continue
		}
		if _, ok := relUnder(target, b.abs); ok {
			f(b, b.abs)
			continue
		}
		if rel, ok := relUnder(b.abs, target); ok {
			if w := tf.winner(joinKey(b.key, rel)); w != nil {
				f(w, target)
			}
		}
	}
}

// globMatches returns the workspace keys of the files a tool's rules can
// reach that match glob entry si: the workspace's own files, and those
// of each external mount the tool has. Matching does not depend on the
// tool, so it is done once per tree and entry and cached.
func (st *state) globMatches(tf *toolFS, si int) []string {
	out := st.treeMatches(st.root, "", si)
	for _, b := range tf.rules {
		if b.err == nil && b.external {
			out = append(out, st.treeMatches(b.abs, b.key, si)...)
		}
	}
	return out
}

// treeMatches lists the files of the tree at abs (seen in the workspace
// at key) that match glob entry si, as workspace keys.
func (st *state) treeMatches(abs, key string, si int) []string {
	ck := matchKey{abs: abs, key: key, si: si}
	if m, ok := st.matches[ck]; ok {
		return m
	}
	ix := st.workspace()
	if abs != st.root {
		ix = st.tree(abs)
	}
	sp := st.sensitive[si]
	var m []string
	for _, rel := range ix.files {
		k := joinKey(key, rel)
		full := ""
		if sp.absGlob {
			full = filepath.Join(abs, filepath.FromSlash(rel))
		}
		if sp.matchGlob(k, full) {
			m = append(m, k)
		}
	}
	if st.matches == nil {
		st.matches = map[matchKey][]string{}
	}
	st.matches[ck] = m
	return m
}

type matchKey struct {
	abs, key string
	si       int
}
