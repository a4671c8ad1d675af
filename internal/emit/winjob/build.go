package winjob

import (
	"fmt"
	"sort"
	"strings"

	jobplan "github.com/jp-policy/jp-policy/internal/plan/winjob"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Minimal is the Windows minimal environment: RFD 075's set
// (policy.MinimalEnv) and the variables without which Windows programs
// fail to start or to find their own files. Written out rather than
// appended to policy.MinimalEnv, which would be work at every jp-policy
// start; TestMinimalExtendsPolicy keeps the first part equal to it.
var Minimal = []string{
	"HOME", "LANG",
	"LC_ADDRESS", "LC_ALL", "LC_COLLATE", "LC_CTYPE", "LC_IDENTIFICATION", "LC_MEASUREMENT",
	"LC_MESSAGES", "LC_MONETARY", "LC_NAME", "LC_NUMERIC", "LC_PAPER", "LC_TELEPHONE", "LC_TIME",
	"PATH", "USER",
	// Windows' own.
	"PATHEXT", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME", "USERPROFILE", "WINDIR",
}

// uiRestrictions: a tool has no business with the desktop, the clipboard,
// other processes' windows or system settings.
var uiRestrictions = []string{
	jobplan.UIDesktop, jobplan.UIDisplaySettings, jobplan.UIExitWindows, jobplan.UIGlobalAtoms,
	jobplan.UIHandles, jobplan.UIReadClipboard, jobplan.UISystemParameters, jobplan.UIWriteClipboard,
}

// Build translates one compiled tool into its Windows job-object manifest.
func Build(t emit.Tool) (*jobplan.Manifest, error) {
	all, err := t.AbsRules()
	if err != nil {
		return nil, err
	}
	m := &jobplan.Manifest{
		Version:        jobplan.FormatVersion,
		Tool:           t.Name,
		Root:           t.Root,
		Limits:         jobplan.Limits{KillOnJobClose: true, DieOnUnhandledException: true},
		UIRestrictions: append([]string(nil), uiRestrictions...),
		Env:            plan.Env{Minimal: append([]string(nil), Minimal...), Rules: t.Access.Env},
		Commands:       t.Access.Commands,
	}
	if m.Env.Rules == nil {
		m.Env.Rules = []policy.EnvRule{}
	}
	cl := []plan.Clause{
		{ID: "job.kill_on_close", What: "every process the tool starts dies with it", Status: plan.Enforced},
		{ID: "job.breakaway", What: "processes cannot leave the job", Status: plan.Enforced},
		{ID: "job.ui", What: "no desktop, clipboard, global atoms, foreign window handles or system settings", Status: plan.Enforced},
	}
	cl = append(cl, commandsClause(t.Access.Commands, &m.Limits))
	cl = append(cl, plan.Clause{ID: "env", What: "environment block: the RFD 075 minimal set, the variables Windows programs need to start (PATHEXT, SYSTEMDRIVE, SYSTEMROOT, TEMP, TMP, USERNAME, USERPROFILE, WINDIR) and the env rules", Status: plan.Enforced,
		How: "the launcher passes only allowed variables to CreateProcess; per-command envs for programs the tool starts itself are cooperative"})
	byIndex := make([]plan.Clause, len(all))
	for _, r := range all {
		byIndex[r.Index] = fsClause(r)
	}
	cl = append(cl, byIndex...)
	cl = append(cl, netClauses(t.Access.Net)...)
	m.Clauses = cl
	return m, nil
}

func commandsClause(cmds map[string]policy.CommandRule, l *jobplan.Limits) plan.Clause {
	switch {
	case cmds == nil:
		return plan.Clause{ID: "commands", What: "any program may run", Status: plan.Enforced}
	case len(cmds) == 0:
		l.ActiveProcessLimit = 1
		return plan.Clause{ID: "commands", What: "programs the tool may start: none", Status: plan.Enforced,
			How: "active process limit 1: the tool cannot start any process"}
	}
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	return plan.Clause{ID: "commands", What: "programs the tool may start: " + strings.Join(names, ", "), Status: plan.Degraded,
		How: "the launcher checks the program it starts; a job object cannot tell programs apart, so which programs the tool starts itself is checked only cooperatively (the job still kills them all on close)"}
}

func fsClause(r emit.AbsRule) plan.Clause {
	p := r.Rule.LexicalPath
	if p == "" {
		p = "."
	}
	if r.Link != "" {
		p += " -> " + r.Abs
	}
	return plan.Clause{
		ID:     fmt.Sprintf("fs[%d]", r.Index),
		What:   fmt.Sprintf("%s: %s", p, emit.CapsOf(r.Rule)),
		Status: plan.Cooperative,
		How:    "a job object has no per-path file control (Windows access is ACL-based); only the tool's own check enforces it",
	}
}

func netClauses(rules []policy.NetRule) []plan.Clause {
	what := "all network access denied"
	if len(rules) > 0 {
		what = fmt.Sprintf("network limited to %d net rule(s)", len(rules))
	}
	out := []plan.Clause{{ID: "net", What: what, Status: plan.Cooperative,
		How: "a job object cannot block sockets (it only rate-limits); only the tool's own check enforces network rules"}}
	np := emit.PlanNet(rules)
	for _, r := range np.Rules {
		out = append(out, plan.Clause{ID: fmt.Sprintf("net[%d]", r.Index), What: emit.DescribeNet(r.Rule), Status: plan.Cooperative,
			How: "no host or port filtering on Windows"})
	}
	if len(rules) > 0 {
		out = append(out, plan.Clause{ID: "net.proxy", Status: plan.Cooperative,
			What: "HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and NO_PROXY (and the lower-case forms) point at the launcher's filtering proxy on a loopback port, which decides every request by host, scheme, port and (plain http) path",
			How:  "only programs that honour the proxy variables go through it; a job object cannot block direct connections"})
	}
	return out
}
