package policy

import (
	"errors"
	"fmt"
	"strings"
)

// Human renders d for people: the verdict, the rule that decided, and on
// a denial the capability refused and where it is granted instead, so the
// user knows what to change. It ends with a newline.
func (d Decision) Human() string {
	var b strings.Builder
	if d.Allowed {
		fmt.Fprintf(&b, "allowed: %s", d.Asked)
		if rule := ruleLabel(d.Rule); rule != "" {
			fmt.Fprintf(&b, " by rule %s", rule)
		} else {
			b.WriteString(" (unrestricted)")
		}
		b.WriteString("\n")
		if d.Resolved != "" {
			fmt.Fprintf(&b, "  resolved: %s\n", d.Resolved)
		}
		return b.String()
	}
	if de, ok := errors.AsType[*DeniedError](d.Err); ok {
		fmt.Fprintf(&b, "denied: %s\n", d.Asked)
		if de.Rule != "" {
			fmt.Fprintf(&b, "  rule %s matches %q and does not grant %s\n", de.Rule, de.Target, de.Capability)
		} else {
			fmt.Fprintf(&b, "  no rule matches %q\n", de.Target)
		}
		if de.Hint != "" {
			fmt.Fprintf(&b, "  %s\n", de.Hint)
		}
		if len(de.Grants) == 0 {
			fmt.Fprintf(&b, "  no %s rule grants %s; add one to the tool's access.%s\n", de.Resource, de.Capability, section(de.Resource))
		} else {
			fmt.Fprintf(&b, "  %s is granted on: %s\n", de.Capability, strings.Join(de.Grants, ", "))
		}
	} else {
		fmt.Fprintf(&b, "rejected: %s\n  %v\n", d.Asked, d.Err)
	}
	if d.Resolved != "" {
		fmt.Fprintf(&b, "  resolved: %s\n", d.Resolved)
	}
	return b.String()
}

func section(resource string) string {
	if resource == "command" {
		return "commands"
	}
	return resource
}

func ruleLabel(r any) string {
	switch r := r.(type) {
	case FsRule:
		return fmt.Sprintf("%q", displayPath(r.LexicalPath))
	case NetRule:
		return fmt.Sprintf("%q", describeNetRule(r))
	case EnvRule:
		return fmt.Sprintf("%q", r.Name)
	case ConfigRule:
		return fmt.Sprintf("%q (apply = %s)", r.Path, r.EffectiveApply())
	case CommandMatch:
		return fmt.Sprintf("%q", r.Program)
	}
	return ""
}
