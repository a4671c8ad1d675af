package lint

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
)

var ruleJP130 = Rule{
	ID: "JP130", Name: "discarded-rules-lost", Severity: diag.Error, Suppressible: false,
	Title: "Access rules marked `discard_when_merged` are dropped by a later layer that puts no rule in their place",
	Description: "A list written as `{ value = [...], discard_when_merged = true }` is a default: JP drops it as soon as a later layer merges a value into the same list (`vec_with_strategy`). " +
		"A later `access` table that does not name the list counts: JP's partials read a missing list as an empty one (`MergeableVec::default()`), so `[conversation.tools.t.access]` with only other keys, `access = {}`, or `JP_CFG_CONVERSATION_TOOLS_T_ACCESS_FS=` set empty, drops the rules and puts nothing in their place. " +
		"jp-policy compiles what JP runs: for `fs` the tool is then unrestricted (the whole workspace, every capability), which is almost never what the author of either layer meant.",
	Fix: "Keep the rules: set `discard_when_merged = false` on the earlier list, or repeat the rules the tool needs in the later layer's list. " +
		"To clear them on purpose, write it: `fs = { strategy = \"replace\", value = [] }` in the later layer.",
	check: checkDiscardedRulesLost,
}

func checkDiscardedRulesLost(p *pass) {
	for _, t := range p.st.sorted {
		a := t.Access
		if a == nil {
			continue
		}
		for _, r := range a.Replaced {
			if r.Reason != "discard_when_merged" || !r.Empty {
				continue
			}
			how := fmt.Sprintf("this layer writes an empty access.%s", r.List)
			if r.Implicit {
				how = fmt.Sprintf("this layer's access table names no %s list, which JP reads as an empty one", r.List)
			}
			related := make([]diag.Related, 0, len(r.Dropped))
			for _, d := range r.Dropped {
				related = append(related, diag.Related{Pos: d, Message: "dropped rule"})
			}
			p.report(r.By,
				fmt.Sprintf("access.%s of tool %q: %d rule(s) marked discard_when_merged are dropped and %s; %s", r.List, t.Name, len(r.Dropped), how, lostMeans(a, r.List)),
				fmt.Sprintf("set discard_when_merged = false on the earlier access.%s to keep its rules, or repeat the rules in this layer; to clear them on purpose write %s = { strategy = \"replace\", value = [] }", r.List, r.List),
				related...)
		}
	}
}

// lostMeans says what the tool is left with after a JP130 drop.
func lostMeans(a *config.Access, list string) string {
	n := 0
	switch list {
	case "fs":
		n = len(a.FS)
	case "net":
		n = len(a.Net)
	case "env":
		n = len(a.Env)
	case "config":
		n = len(a.Config)
	case "sensitive_paths":
		n = len(a.SensitivePaths)
	}
	if n > 0 {
		return fmt.Sprintf("the tool keeps only the %d rule(s) later layers add", n)
	}
	switch list {
	case "fs", "net", "env":
		return "the compiled policy " + EnforcedWhenEmpty(list) + ", as JP does"
	case "sensitive_paths":
		return "only the built-in sensitive paths remain"
	}
	return "no rule of the list remains"
}
