package emit

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// SchemePort is the default TCP port of the (lower-case) schemes the
// emitters know; it must agree with the cooperative check's table
// (policy.DefaultPort), which a test pins. A scheme outside it gives no
// port: see PlanNet. A switch, not a package-level map, which would be
// built at every jp-policy start.
func SchemePort(scheme string) (uint16, bool) {
	switch scheme {
	case "ftp":
		return 21, true
	case "http", "ws":
		return 80, true
	case "https", "wss":
		return 443, true
	}
	return 0, false
}

// NetRulePlan is what the OS layer can make of one net rule.
type NetRulePlan struct {
	Index int
	Rule  policy.NetRule
	// Port is the TCP port the rule reaches: its own port, else its
	// scheme's default port. HasPort is false when it has neither.
	Port    uint16
	HasPort bool
}

// NetPlan is the TCP view of a tool's net rules that every platform
// shares. The OS sees ports, never hosts or URL paths.
type NetPlan struct {
	// Ports is the sorted set of TCP ports that allow rules open. Empty
	// means all outbound TCP is denied.
	Ports []uint16
	Rules []NetRulePlan
}

// PlanNet turns net rules into the ports to open. Only allow rules open a
// port. A rule with neither port nor known scheme opens nothing: the OS
// cannot know which port it would use, and opening every port would let
// the tool reach any host on any port, so the fail-closed answer is to
// deny it at the OS layer (the platform clause says so, and the user can
// add `port` or `scheme` to the rule).
func PlanNet(rules []policy.NetRule) NetPlan {
	var np NetPlan
	open := map[uint16]bool{}
	for i, r := range rules {
		p := NetRulePlan{Index: i, Rule: r}
		if r.Port != nil {
			p.Port, p.HasPort = *r.Port, true
		} else if r.Scheme != nil {
			p.Port, p.HasPort = SchemePort(strings.ToLower(*r.Scheme))
		}
		if p.HasPort && p.Port == 0 {
			p.HasPort = false // port 0 is not a destination
		}
		if r.Allow && p.HasPort {
			open[p.Port] = true
		}
		np.Rules = append(np.Rules, p)
	}
	for port := range open {
		np.Ports = append(np.Ports, port)
	}
	slices.Sort(np.Ports)
	return np
}

// Opens reports whether the plan opens port.
func (p NetPlan) Opens(port uint16) bool {
	i := sort.Search(len(p.Ports), func(i int) bool { return p.Ports[i] >= port })
	return i < len(p.Ports) && p.Ports[i] == port
}

// NetClauses is the per-rule clause list shared by the platforms that
// filter TCP by port (Landlock, SBPL). mechanism names the OS feature,
// e.g. "Landlock" or "the SBPL profile".
func NetClauses(p NetPlan, mechanism string, minABI int) []plan.Clause {
	var out []plan.Clause
	for _, r := range p.Rules {
		c := plan.Clause{ID: fmt.Sprintf("net[%d]", r.Index), What: DescribeNet(r.Rule), MinABI: minABI}
		switch {
		case r.Rule.Allow && r.HasPort:
			c.Status = plan.Degraded
			c.How = fmt.Sprintf("host %s enforced as TCP port %d only: %s lets the tool reach any host on that port; host, scheme and path_prefix are checked cooperatively", r.Rule.Host, r.Port, mechanism)
		case r.Rule.Allow:
			c.Status = plan.Degraded
			c.How = "the rule names neither port nor a known scheme, so no port is opened for it: connections it allows are denied by the OS (fail closed); add `port` or `scheme` to the rule"
		case len(p.Ports) == 0:
			c.Status = plan.Enforced
			c.How = "no allow rule opens a TCP port"
		case r.HasPort && !p.Opens(r.Port):
			c.Status = plan.Enforced
			c.How = fmt.Sprintf("TCP port %d is not opened by any allow rule", r.Port)
		default:
			c.Status = plan.Cooperative
			c.How = fmt.Sprintf("%s cannot deny one host while another rule opens its port; only the tool's own check denies it", mechanism)
		}
		out = append(out, c)
	}
	return out
}

// DescribeNet renders a net rule for a clause: "allow https://host:port/path".
func DescribeNet(r policy.NetRule) string {
	verb := "allow"
	if !r.Allow {
		verb = "deny"
	}
	s := verb + " "
	if r.Scheme != nil {
		s += *r.Scheme + "://"
	}
	s += r.Host
	if r.Port != nil {
		s += fmt.Sprintf(":%d", *r.Port)
	}
	if r.PathPrefix != nil {
		s += *r.PathPrefix
	}
	return s
}
