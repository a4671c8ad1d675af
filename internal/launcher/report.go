package launcher

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/plan/landlock"
)

// ChildExit carries the exit code of a child the launcher waited for (on
// Windows, where there is no exec-in-place).
type ChildExit struct {
	Code int
	// Hints explain a failed run: what the policy likely denied and how
	// to allow it (package denyhint). exec prints them unless --quiet.
	Hints []string
}

func (e *ChildExit) Error() string { return fmt.Sprintf("child exited with status %d", e.Code) }

// clauseStatus is a clause's status on this machine: the compiled status,
// downgraded when the kernel's ABI is below the clause's.
func (p *Plan) clauseStatus(c plan.Clause) (plan.Status, string) {
	for _, d := range p.Degraded {
		if d.Clause.ID == c.ID {
			how := d.why(p.ABI)
			if c.How != "" {
				how += "; " + c.How
			}
			return plan.Degraded, how
		}
	}
	return c.Status, c.How
}

// DryRun is exec --dry-run's report: per clause, what a run would
// enforce, degrade or leave to the tool's cooperation, then the
// environment and the command that would run. WriteDryRun prints it as
// text, WriteDryRunJSON as one JSON object (docs/output.md); both come
// from this one value so they cannot disagree.
type DryRun struct {
	Tool     string            `json:"tool"`
	Platform platform.Platform `json:"platform"`
	// LandlockABI is the kernel's ABI and PolicyMinABI the ABI the policy
	// needs (Linux with a manifest only).
	LandlockABI  *int           `json:"landlock_abi,omitempty"`
	PolicyMinABI *int           `json:"policy_min_abi,omitempty"`
	Clauses      []DryRunClause `json:"clauses"`
	// Env holds the names of the variables the command would receive.
	Env  []string `json:"env"`
	Path string   `json:"path,omitempty"`
	Argv []string `json:"argv,omitempty"`
	// Route is which exec path the run takes and why (Linux with a
	// namespace plan only): "fast (...)" or "namespaced; needs ...".
	Route string `json:"route,omitempty"`
	// Hint says how to grant the program when the tool's grants cannot
	// run it (the run would fail with 126 or 127).
	Hint string `json:"hint,omitempty"`
	// IfFails are the hints exec prints when the run exits non-zero on
	// the namespaced path (package denyhint); the dry run shows them up
	// front, for every path.
	IfFails []string `json:"if_fails,omitempty"`
	// Verdict is "run", "run_degraded" (--best-effort) or "refuse".
	Verdict string `json:"verdict"`
	// Reason is the refusal, or what is degraded.
	Reason string `json:"reason,omitempty"`
}

// DryRunClause is one line of the report; its keys are in the order of
// a manifest's clauses (plan.Clause), as explain prints them.
type DryRunClause struct {
	ID     string `json:"id"`
	What   string `json:"what"`
	Status string `json:"status"`
	How    string `json:"how,omitempty"`
}

// WriteDryRun prints the dry-run report of p as text. refusal is the
// error Prepare returned, if any.
func WriteDryRun(w io.Writer, p *Plan, refusal error) error {
	return NewDryRun(p, refusal).WriteText(w)
}

// WriteDryRunJSON prints the dry-run report of p as one JSON object.
func WriteDryRunJSON(w io.Writer, p *Plan, refusal error) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(NewDryRun(p, refusal))
}

// NewDryRun builds the dry-run report of p.
func NewDryRun(p *Plan, refusal error) *DryRun {
	b := &DryRun{Tool: p.Tool, Platform: p.Platform, Clauses: []DryRunClause{}, Env: []string{}}
	if p.Platform == platform.Linux && p.Manifest != nil {
		abi, need := p.ABI, p.Manifest.MinABI
		b.LandlockABI, b.PolicyMinABI = &abi, &need
	}
	if p.Manifest != nil {
		seen := map[string]bool{}
		for _, c := range p.Manifest.Clauses {
			st, how := p.clauseStatus(c)
			writeClause(b, string(st), c.ID, c.What, how)
			seen[c.ID] = true
		}
		for _, d := range p.Degraded {
			if !seen[d.Clause.ID] {
				writeClause(b, string(plan.Degraded), d.Clause.ID, d.Clause.What, d.why(p.ABI))
			}
		}
		if len(p.Manifest.Net.ConnectTCP) > 0 && !hasCooperativeNet(p.Manifest.Clauses) {
			writeClause(b, string(plan.Cooperative), "net.host", "hosts, schemes and URL paths of net rules", "Landlock filters TCP ports only; the tool's own check (RFD 076) enforces the rest")
		}
		if len(p.Manifest.Masks) > 0 && p.Manifest.MaskedFS != nil {
			what := "narrowed paths " + strings.Join(p.Manifest.Masks, ", ")
			switch {
			case p.Namespaced:
				writeClause(b, string(plan.Enforced), "masks", what, "hidden exactly in the namespaced root; the fs grants are "+p.nsGrants()+", so their ancestors keep full rights")
			case p.Masks && canMask():
				writeClause(b, string(plan.Enforced), "masks", what, "hidden exactly in a private mount namespace; the fs grants are masked_fs, so their ancestors keep full rights")
			case p.Masks:
				writeClause(b, string(plan.Degraded), "masks", what, "no private mount namespace without CAP_SYS_ADMIN: enforced by the split grants, as the fs clauses describe")
			default:
				writeClause(b, string(plan.Degraded), "masks", what, "enforced by the split grants, as the fs clauses describe; --masks hides them exactly when the launcher has CAP_SYS_ADMIN")
			}
		}
		if p.Namespaced && p.Manifest.BoundFS != nil {
			what := "read-only rules inside writable ones " + strings.Join(p.Manifest.Bound, ", ")
			if allExist(p.Manifest.Bound) {
				writeClause(b, string(plan.Enforced), "bound", what, "read-only binds in the namespaced root; the fs grants are bound_fs, so the writable grants around them stay whole (no split)")
			} else {
				writeClause(b, string(plan.Degraded), "bound", what, "one of them is missing now, so it cannot be bound: the split grants apply, as the fs clauses describe (stricter than the policy)")
			}
		}
		if p.Namespaced && p.Manifest.Namespace != nil {
			ns := p.Manifest.Namespace
			net := "no network at all"
			switch {
			case p.proxied():
				net = "network only to what the net rules grant: the filtering proxy at " + ProxyAddr + ", and for clients that ignore it a resolver answering only granted names and a listener per granted host:port (exact: host, port, TLS SNI, plain-HTTP path; degraded: the path over TLS, scheme by port for other protocols, non-loopback IP literals only through the proxy)"
			case !p.privateNet():
				net = "the host's network (a TCP bind grant), limited by Landlock's port rules"
			}
			writeClause(b, string(plan.Enforced), "namespaces", fmt.Sprintf("filesystem built from the grants in private user, mount and network namespaces: %d bind(s), %d exact mask(s), %d protected path(s) read-only", len(ns.Binds), len(ns.Masks), len(ns.Protected)),
				"metadata writes are allowed and answer EROFS outside the write grants; "+net+"; a private /tmp")
		}
		writeNeeds(b, p)
		writeClause(b, string(plan.Enforced), "fds", "descriptors above 2 closed before exec", "")
		writeClause(b, string(plan.Enforced), "no_new_privs", "setuid/file capabilities cannot raise privileges", "")
	}
	switch {
	case p.ProfileText != "":
		writeClause(b, string(plan.Enforced), "sbpl", "sandbox-exec with the default policy's profile, built in-process", "")
	case p.Profile != "":
		writeClause(b, string(plan.Enforced), "sbpl", "sandbox-exec profile "+p.Profile, "")
	}
	if p.Job != nil {
		for _, c := range p.Job.Clauses {
			writeClause(b, string(c.Status), c.ID, c.What, c.How)
		}
		writeClause(b, string(plan.Enforced), "job", "the process starts suspended inside the job, which dies with the launcher", "")
	}
	for _, kv := range p.Env {
		name, _, _ := strings.Cut(kv, "=")
		b.Env = append(b.Env, name)
	}
	if p.Path != "" {
		b.Path, b.Argv = p.Path, p.Argv
		if p.Platform == platform.Linux {
			b.Hint = p.grantHint()
			b.IfFails = p.exitHints(1, os.Environ())
		}
	}
	switch {
	case refusal != nil:
		b.Verdict, b.Reason = "refuse", refusal.Error()
	case len(p.Degraded) > 0:
		b.Verdict, b.Reason = "run_degraded", degradedLine(p.Degraded)
	default:
		b.Verdict = "run"
	}
	return b
}

// writeNeeds says, for each part of the policy only namespaces enforce
// exactly, what it is on this run and what it would be on the other
// path, then which path the run takes and why.
func writeNeeds(b *DryRun, p *Plan) {
	if p.Manifest.Namespace == nil {
		return
	}
	var ids []string
	for _, n := range p.NSNeeds {
		ids = append(ids, n.ID)
		if slices.ContainsFunc(p.Manifest.Clauses, func(c plan.Clause) bool { return c.ID == n.ID }) {
			continue // the manifest's clause said it, with this run's status
		}
		switch {
		case p.Namespaced:
			writeClause(b, string(plan.Enforced), n.ID, n.What, "exact with namespaces: "+n.Exact+"; without them: "+n.Without)
		case n.Weaker:
			// p.Degraded lists it, with the reason.
		default:
			writeClause(b, string(plan.Enforced), n.ID, n.What, "stricter than the policy without namespaces: "+n.Without+"; exact with them: "+n.Exact)
		}
	}
	switch {
	case len(ids) == 0 && p.Namespaced:
		b.Route = "namespaced (--namespaces); no clause needs it: Landlock and seccomp alone are exact for this policy"
	case len(ids) == 0:
		b.Route = "fast (Landlock and seccomp); no clause needs namespaces"
	case p.Namespaced:
		b.Route = "namespaced; needs namespaces: " + strings.Join(ids, ", ")
	default:
		b.Route = "fast, " + p.NSUnavailable + "; needs namespaces: " + strings.Join(ids, ", ")
	}
}

func writeClause(b *DryRun, status, id, what, how string) {
	b.Clauses = append(b.Clauses, DryRunClause{Status: status, ID: id, What: what, How: how})
}

// WriteText prints the report as exec --dry-run does by default.
func (d *DryRun) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "tool %s on %s", d.Tool, d.Platform)
	if d.LandlockABI != nil {
		fmt.Fprintf(&b, " (kernel Landlock ABI %d, policy needs %d)", *d.LandlockABI, *d.PolicyMinABI)
	}
	b.WriteString("\n")
	for _, c := range d.Clauses {
		fmt.Fprintf(&b, "  %-11s %-26s %s", c.Status, c.ID, c.What)
		if c.How != "" {
			fmt.Fprintf(&b, " (%s)", c.How)
		}
		b.WriteString("\n")
	}
	if d.Route != "" {
		fmt.Fprintf(&b, "path: %s\n", d.Route)
	}
	if d.Hint != "" {
		fmt.Fprintf(&b, "%s\n", d.Hint)
	}
	for _, h := range d.IfFails {
		fmt.Fprintf(&b, "if it fails: %s\n", h)
	}
	fmt.Fprintf(&b, "env: %s\n", orNone(strings.Join(d.Env, " ")))
	if d.Path != "" {
		fmt.Fprintf(&b, "exec: %s %q\n", d.Path, d.Argv)
	}
	switch d.Verdict {
	case "refuse":
		fmt.Fprintf(&b, "would refuse: %s\n", d.Reason)
	case "run_degraded":
		fmt.Fprintf(&b, "would run degraded (--best-effort): %s\n", d.Reason)
	default:
		b.WriteString("would run\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// hasCooperativeNet reports whether the manifest's net rule clauses
// already say that hosts and paths are left to the tool's own check; the
// report adds that line itself when a manifest does not.
func hasCooperativeNet(cs []plan.Clause) bool {
	for _, c := range cs {
		if strings.HasPrefix(c.ID, "net[") && strings.Contains(c.How, "cooperativ") {
			return true
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func degradedLine(ds []Degradation) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.String()
	}
	return strings.Join(parts, "; ")
}

// WarnDegraded prints the one line --best-effort owes the user before
// running with clauses the kernel cannot enforce.
func WarnDegraded(w io.Writer, p *Plan) {
	if len(p.Degraded) == 0 {
		return
	}
	if p.NSUnavailable != "" {
		fmt.Fprintf(w, "jp-policy: warning: running tool %s without namespaces (%s), degraded: %s%s\n", p.Tool, p.NSUnavailable, degradedLine(p.Degraded), metadataNote(p.Manifest))
		return
	}
	fmt.Fprintf(w, "jp-policy: warning: running tool %s degraded on Landlock ABI %d: %s\n", p.Tool, p.ABI, degradedLine(p.Degraded))
}

// metadataNote names what fails on the fast path for a tool that writes:
// seccomp refuses metadata writes everywhere there, since Landlock cannot
// confine them to the write grants.
func metadataNote(m *landlock.Manifest) string {
	if m == nil || !slices.ContainsFunc(m.FS, func(r landlock.PathRule) bool { return slices.Contains(r.Access, "write_file") }) {
		return ""
	}
	return "; and chmod, chown, utime and xattr writes fail with EPERM even inside write grants (tar x, cp -a, rsync -a, npm install, python -m venv set modes or times; jp-policy doctor says how to enable user namespaces)"
}

// nsGrants names the Landlock grants the namespaced path applies
// (exec_ns_linux.go): bound_fs when every bound path exists, else
// masked_fs.
func (p *Plan) nsGrants() string {
	if p.Manifest.BoundFS != nil && allExist(p.Manifest.Bound) {
		return "bound_fs"
	}
	return "masked_fs"
}
