package sbpl

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	sbplan "github.com/jp-policy/jp-policy/internal/plan/sbpl"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Write sub-operations for policies that grant only part of create,
// update and delete; a rule granting all three gets file-write*.
var (
	createOps = []string{"file-write-create"}
	updateOps = []string{"file-write-data", "file-write-times", "file-write-mode", "file-write-xattr", "file-write-flags"}
	deleteOps = []string{"file-write-unlink"}
)

// Build renders the sandbox-exec profile for one tool and the clause list
// saying how macOS enforces each part of its policy. The output is a pure
// function of t: no timestamps, no map order, nothing read from disk.
//
// The profile starts with Base's text, which is the same for every tool
// with the same developer directory: the artifact stores it once
// (sbplan.BaseFile) and each tool's file holds the rest (BuildWith's
// caller strips the base).
func Build(t emit.Tool) ([]byte, []plan.Clause, error) {
	devDir := t.DeveloperDir
	if devDir == "" {
		devDir = DefaultDeveloperDir
	}
	return BuildWith(t, NewBase(devDir))
}

// Base is the start of every profile for one developer directory: the
// version, the default deny and the baseline groups that do not depend
// on the tool.
type Base struct {
	DeveloperDir string
	Text         []byte
	clauses      []plan.Clause
}

// Clauses are the clauses of the base's groups, which every profile built
// on it starts with.
func (b *Base) Clauses() []plan.Clause { return slices.Clone(b.clauses) }

// NewBase renders the base for devDir.
func NewBase(devDir string) *Base {
	var b bytes.Buffer
	b.WriteString("(version 1)\n(deny default)\n")
	cl := writeGroups(&b, nil, staticBaseline(devDir))
	return &Base{DeveloperDir: devDir, Text: b.Bytes(), clauses: cl}
}

// BuildWith is Build with the base already rendered (a compile renders
// it once for all tools); base must be NewBase of the tool's developer
// directory.
func BuildWith(t emit.Tool, base *Base) ([]byte, []plan.Clause, error) {
	devDir := t.DeveloperDir
	if devDir == "" {
		devDir = DefaultDeveloperDir
	}
	if base.DeveloperDir != devDir {
		return nil, nil, fmt.Errorf("internal error: the profile base is for %s, not %s", base.DeveloperDir, devDir)
	}
	all, err := t.AbsRules()
	if err != nil {
		return nil, nil, err
	}
	live := emit.Live(all)
	var b bytes.Buffer
	b.Grow(len(base.Text) + 4096)
	b.Write(base.Text)
	cl := append([]plan.Clause(nil), base.clauses...)

	fmt.Fprintf(&b, "\n;; jp-policy sandbox profile for tool %s\n", comment(t.Name))
	cl = writeGroups(&b, cl, toolBaseline(t.Home, outsideOf(t.Root, all)))
	if anc := ancestors(t.Root, all); len(anc) > 0 {
		b.WriteString("\n;; baseline.ancestors: stat the directories leading to granted paths\n")
		b.WriteString("(allow file-read-metadata")
		for _, a := range anc {
			b.WriteString(" (literal " + Quote(a) + ")")
		}
		b.WriteString(")\n")
		cl = append(cl, plan.Clause{ID: "baseline.ancestors", What: "metadata of the directories leading to granted paths",
			Status: plan.Degraded, How: "path resolution needs to stat each ancestor, so their names and attributes (not their listings or contents) are readable even where no rule grants read"})
	}

	fsCl := map[int]plan.Clause{}
	for _, r := range all {
		c, forms := fsRule(r, live)
		fsCl[r.Index] = c
		if len(forms) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n;; %s %s\n", c.ID, comment(c.What))
		for _, f := range forms {
			b.WriteString(f + "\n")
		}
	}
	for i := range t.Access.FS {
		cl = append(cl, fsCl[i])
	}

	cl = append(cl, netSection(&b, t.Access.Net)...)
	cl = writeGroups(&b, cl, lateBaseline())
	cl = append(cl,
		plan.Clause{ID: "env", What: "environment allowlist (RFD 075 minimal set plus env rules)", Status: plan.Enforced,
			How: "the launcher builds sandbox-exec's environment; per-command envs for programs the tool starts itself are cooperative"},
		commandsClause(t.Access.Commands),
	)
	return b.Bytes(), cl, nil
}

// outsideOf is the filter that excludes the workspace and every rule's
// path (and an external rule's link), each as the literal and the
// subpath, as fsRule excludes narrower rules.
func outsideOf(root string, rules []emit.AbsRule) string {
	paths := []string{root}
	for _, r := range rules {
		paths = append(paths, r.Abs)
		if r.Link != "" {
			paths = append(paths, r.Link)
		}
	}
	sort.Strings(paths)
	paths = slices.Compact(paths)
	var out []string
	for i, p := range paths {
		if i > 0 && slices.ContainsFunc(paths[:i], func(a string) bool { return policy.Within(p, a) }) {
			continue // beneath a path already excluded
		}
		q := Quote(p)
		out = append(out, "(require-not (literal "+q+")) (require-not (subpath "+q+"))")
	}
	return strings.Join(out, " ")
}

// writeGroups renders baseline groups, each entry under a comment with
// its reason and precedent, and adds their clauses.
func writeGroups(b *bytes.Buffer, cl []plan.Clause, gs []group) []plan.Clause {
	for _, g := range gs {
		fmt.Fprintf(b, "\n;; %s: %s\n", g.id, comment(g.what))
		for _, e := range g.entries {
			fmt.Fprintf(b, ";; %s [%s]\n%s\n", comment(e.why), comment(e.src), e.rule)
		}
		c := plan.Clause{ID: g.id, What: g.what, Status: plan.Enforced}
		if g.id == "baseline.git" {
			c.Status = plan.Degraded
			c.How = "git's user configuration is readable outside the tool's grants: git dies on the sandbox's EPERM where it tolerates a missing file"
		}
		cl = append(cl, c)
	}
	return cl
}

// fsRule renders one rule: each allow covers the rule's path minus every
// narrower rule beneath it (require-not), and the narrower rules render
// their own allows, so every path gets exactly its winning rule's rights
// whatever order the sandbox evaluates rules in.
func fsRule(r emit.AbsRule, live []emit.AbsRule) (plan.Clause, []string) {
	caps := emit.CapsOf(r.Rule)
	what := fmt.Sprintf("%s: %s", display(r), caps)
	c := plan.Clause{ID: fmt.Sprintf("fs[%d]", r.Index), What: what, Status: plan.Enforced}
	if r.ShadowedBy >= 0 {
		c.How = fmt.Sprintf("shadowed by fs[%d] on the same path (the later rule wins)", r.ShadowedBy)
		return c, nil
	}
	filter := pathFilter(r.Abs, r.Kind)
	var excl []string
	var around []string
	for _, n := range emit.Outermost(live, r.Abs) {
		// Always subpath: a narrowed file may be replaced by a directory
		// later, and the policy narrows everything beneath it too. The
		// literal beside it is Codex's pairing: the narrowed path itself
		// must not be creatable through the broader rule even while it
		// does not exist.
		q := Quote(n.Abs)
		excl = append(excl, "(require-not (literal "+q+"))", "(require-not (subpath "+q+"))")
		around = append(around, fmt.Sprintf("fs[%d]", n.Index))
	}
	if len(excl) > 0 {
		filter = "(require-all " + filter + " " + strings.Join(excl, " ") + ")"
	}
	var ops []string
	if caps.Has(policy.Read) {
		ops = append(ops, "file-read*")
	}
	switch {
	case caps.Has(policy.Create) && caps.Has(policy.Update) && caps.Has(policy.Delete):
		ops = append(ops, "file-write*")
	default:
		var sub []string
		if caps.Has(policy.Create) {
			sub = append(sub, createOps...)
		}
		if caps.Has(policy.Update) {
			sub = append(sub, updateOps...)
		}
		if caps.Has(policy.Delete) {
			sub = append(sub, deleteOps...)
		}
		ops = append(ops, sub...)
		if len(sub) > 0 {
			c.How = "partial write mapped to SBPL sub-operations " + strings.Join(sub, ", ")
		}
	}
	if caps.Has(policy.Execute) {
		ops = append(ops, "process-exec", "file-map-executable")
	}
	var forms []string
	for _, op := range ops {
		forms = append(forms, fmt.Sprintf("(allow %s %s)", op, filter))
	}
	if r.Link != "" {
		// The workspace symlink itself must be readable for the path
		// through it to resolve (RFD D43: both the link and the target).
		forms = append(forms, fmt.Sprintf("(allow file-read* (literal %s))", Quote(r.Link)))
	}
	if len(around) > 0 {
		how := "narrower rules " + strings.Join(around, ", ") + " excluded with require-not"
		if c.How != "" {
			how = c.How + "; " + how
		}
		c.How = how
	}
	return c, forms
}

func pathFilter(abs string, k plan.PathKind) string {
	if k == plan.KindFile {
		return "(literal " + Quote(abs) + ")"
	}
	// A missing path may become a directory: subpath covers both.
	return "(subpath " + Quote(abs) + ")"
}

func display(r emit.AbsRule) string {
	p := r.Rule.LexicalPath
	if p == "" {
		p = "."
	}
	if r.Link != "" {
		return p + " -> " + r.Abs
	}
	return p
}

// ancestors lists every proper ancestor of the root and of each rule's
// paths, sorted.
func ancestors(root string, rules []emit.AbsRule) []string {
	seen := map[string]bool{}
	add := func(p string) {
		for d := filepath.Dir(p); ; d = filepath.Dir(d) {
			seen[d] = true
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	add(root)
	for _, r := range rules {
		add(r.Abs)
		if r.Link != "" {
			add(r.Link)
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func netSection(b *bytes.Buffer, rules []policy.NetRule) []plan.Clause {
	np := emit.PlanNet(rules)
	c := plan.Clause{ID: "net", Status: plan.Enforced}
	if len(np.Ports) == 0 {
		c.What = "all network access denied"
		b.WriteString("\n;; net: no port is open\n(deny network*)\n")
	} else {
		// Sandbox-runtime's macOS approach: the tool reaches only the
		// launcher's filtering proxy, which decides each request by host,
		// scheme, port and path and resolves names itself. The port is
		// chosen at exec time and given as a parameter (sandbox-exec -D);
		// a launcher that does not define it makes the profile fail to
		// load, so nothing runs. SBPL takes only "*" or "localhost" as the
		// host: a client that dials the IPv4-mapped ::ffff:127.0.0.1 (the
		// JVM's dual-stack sockets) cannot be allowed without allowing
		// every address on the port (openai/codex#42925), so it is not.
		fmt.Fprintf(b, "\n;; net: outbound TCP only to jp-policy's filtering proxy on localhost\n(allow network-outbound (remote tcp (string-append \"localhost:\" (param \"%s\"))))\n", sbplan.ProxyPortParam)
		c.What = "outbound TCP only to jp-policy's filtering proxy on localhost (port given at exec time), which decides every request by host, scheme, port and (plain http) path and resolves names itself"
	}
	out := []plan.Clause{c,
		{ID: "net.inbound", What: "listening and inbound connections denied", Status: plan.Enforced},
		{ID: "net.udp", What: "UDP denied (name resolution goes through mDNSResponder)", Status: plan.Enforced},
	}
	if len(np.Ports) > 0 {
		out[2].What = "UDP and DNS denied (the proxy resolves names)"
		out[0].How = "a client that dials the proxy as the IPv4-mapped address ::ffff:127.0.0.1 (the JVM's dual-stack sockets) is refused: SBPL names loopback only as \"localhost\", which does not match it"
	}
	for _, r := range np.Rules {
		st, how := plan.Enforced, "decided by the launcher's filtering proxy, the only destination the profile allows"
		if r.Rule.Allow && r.Rule.PathPrefix != nil {
			st, how = plan.Degraded, "the path prefix is checked for plain http only: an https CONNECT tunnel shows no path, so the proxy refuses https to it"
		}
		out = append(out, plan.Clause{ID: fmt.Sprintf("net[%d]", r.Index), What: emit.DescribeNet(r.Rule), Status: st, How: how})
	}
	return out
}

func commandsClause(cmds map[string]policy.CommandRule) plan.Clause {
	return emit.CommandsClause(cmds, "the launcher checks the program it starts; the profile allows process-exec from the system directories, so programs the tool starts itself are checked only cooperatively")
}
