package landlock

import (
	"github.com/jp-policy/jp-policy/internal/plan"
	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"
	"github.com/jp-policy/jp-policy/internal/seccomp"
)

// SeccompSpec is the system-call filter of a tool whose only Linux layers
// are Landlock and seccomp (no namespaces): no Internet sockets without a
// net rule; with net rules TCP, plus UDP so the tool can resolve names
// (no proxy resolves for it here); listen only with a bind grant; no Unix
// sockets (their paths and abstract names are shared with the host); no
// metadata writes (Landlock cannot confine them to the write grants).
func SeccompSpec(n ll.Net) *seccomp.Spec {
	s := &seccomp.Spec{Inet: seccomp.InetNone}
	if len(n.ConnectTCP) > 0 {
		s.Inet = seccomp.InetTCPUDP
	}
	s.Listen = len(n.BindTCP) > 0
	return s
}

// SeccompClauses describes the filter as manifest clauses. A clause the
// filter enforces more strictly than the policy asks is enforced, with
// How saying what else it refuses.
func SeccompClauses(s seccomp.Spec) []plan.Clause {
	var out []plan.Clause
	for _, c := range s.Clauses() {
		st := plan.Enforced
		if c.Degree == "degraded" {
			st = plan.Degraded
		}
		out = append(out, plan.Clause{ID: c.ID, What: c.What, Status: st, How: c.How})
	}
	out = append(out, plan.Clause{ID: "caps", What: "every capability dropped (effective, permitted, inheritable, ambient and, when the launcher may, the bounding set), so a tool started by root has none", Status: plan.Enforced})
	return out
}
