package lint

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/diag"
	"github.com/jp-policy/jp-policy/policy"
)

func init() {
	register(&Rule{
		ID: "JP107", Name: "sensitive-path", Severity: diag.Warning, Suppressible: true,
		Title: "A tool's fs rules reach a sensitive path (keys, credentials, .env files)",
		Description: "RFD 075 lists paths that hold high-value secrets: `~/.ssh/`, `~/.gnupg/`, `~/.gpg/`, `~/.aws/credentials`, `~/.config/gcloud/`, `~/.kube/config`, `~/.docker/config.json`, " +
			"`**/.env` and `**/.env.*`, plus every `sensitive_paths` entry in config (which adds to the list and cannot shorten it). " +
			"Lint warns when a rule that grants anything reaches one: an external mount whose target is, holds, or lies inside such a path, or a granted prefix of the workspace that holds a matching file. " +
			"The rule that decides the path is named, so a more specific rule that denies it silences the warning. Tools without fs rules are not examined.",
		Fix:   "Add a more specific rule that grants nothing on the sensitive path (`path = \".env\"` with no capabilities), narrow the mount, or suppress with a reason if the tool really needs it.",
		check: checkSensitivePath,
	})
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
		p.st.sensitive = sensitiveList(p.l, p.st.home)
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
			p.st.eachFile(tf, func(key, abs string) {
				if sp.matchGlob(key, abs) {
					hit(tf.winner(key), si, sp, key)
				}
			})
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

// eachFile calls f with the workspace key and absolute path of every file
// a tool's rules can reach: the workspace's own files, and the files of
// each external mount the tool has.
func (st *state) eachFile(tf *toolFS, f func(key, abs string)) {
	ws := st.workspace()
	for _, rel := range ws.files {
		f(rel, filepath.Join(st.root, filepath.FromSlash(rel)))
	}
	for _, b := range tf.rules {
		if b.err != nil || !b.external {
			continue
		}
		for _, rel := range st.tree(b.abs).files {
			f(joinKey(b.key, rel), filepath.Join(b.abs, filepath.FromSlash(rel)))
		}
	}
}
