package policy

import (
	"errors"
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// CheckFS decides capability cp on a workspace-relative input path.
//
// Order: canonicalise (PathError on absolute, input_escape, dangling,
// loop, nul, too_long, io); pick the key (the canonical workspace-relative
// path when the target resolves inside, the lexical path when it resolves
// outside); find the most specific rule; refuse an outside target unless
// that rule is external and its approved target contains the canonical
// path (escape); then the rule's capability decides (denied otherwise).
// With no fs rules the tool is unrestricted but confined: only escapes
// are refused.
func (c *Checker) CheckFS(cp Capability, input string) Decision {
	if cp < Read || cp > Execute {
		return Decision{Err: &InputError{Resource: "fs", Input: input, Msg: "unknown capability"}, Asked: "unknown capability on fs " + strconv.Quote(input)}
	}
	asked := cp.String() + " on fs " + strconv.Quote(input)
	r, err := Canonicalize(c.root, input)
	if err != nil {
		return Decision{Err: err, Asked: asked}
	}
	d := Decision{Resolved: r.Abs, Asked: asked}
	unrestricted := c.p == nil || len(c.p.FS) == 0
	if !unrestricted {
		d.Grants = c.fsGrants(cp)
	}
	key := r.Rel
	if !r.Inside {
		key = r.Lexical
	}
	idx := -1
	if !unrestricted {
		idx = c.fsTrie.lookup(foldKey(key))
		if idx >= 0 {
			d.Rule = c.p.FS[idx]
		}
	}
	if !r.Inside {
		if idx < 0 || !c.externalContains(idx, r.Abs) {
			d.Err = c.escapeError(idx, r.Abs)
			return d
		}
	}
	if unrestricted {
		d.Allowed = true
		return d
	}
	if idx >= 0 && c.fsCaps[idx]&(1<<cp) != 0 {
		d.Allowed = true
		return d
	}
	de := &DeniedError{Resource: "fs", Capability: cp.String(), Target: displayPath(key), Grants: d.Grants}
	if idx >= 0 {
		de.Rule = strconv.Quote(displayPath(c.p.FS[idx].LexicalPath))
	}
	d.Err = de
	return d
}

// externalContains reports whether rule idx is an approved external rule
// whose approved target holds abs (RFD D43 nested-escape boundary).
func (c *Checker) externalContains(idx int, abs string) bool {
	r := c.p.FS[idx]
	if !r.External || r.ApprovedTarget == nil {
		return false
	}
	return hasFoldedPathPrefix(abs, filepath.Clean(*r.ApprovedTarget))
}

func (c *Checker) escapeError(idx int, abs string) error {
	msg := "path resolves outside the workspace"
	if idx >= 0 && c.p.FS[idx].External {
		r := c.p.FS[idx]
		if r.ApprovedTarget == nil {
			msg = "path resolves outside the workspace through external rule " + strconv.Quote(displayPath(r.LexicalPath)) + ", which has no approved target"
		} else {
			msg = "path resolves outside the approved target " + strconv.Quote(*r.ApprovedTarget) + " of external rule " + strconv.Quote(displayPath(r.LexicalPath))
		}
	}
	return &PathError{Kind: KindEscape, Path: abs, Msg: msg}
}

// fsGrants lists the paths whose rules grant cp, "." for the root.
func (c *Checker) fsGrants(cp Capability) []string { return c.fsGrantsBy[cp] }

// DecideFS is the hot path of CheckFS for a key that is already the
// canonical workspace-relative form (no I/O, no allocation): the index of
// the winning rule (-1 for none) and whether it grants cp. It does not
// apply the outside-the-workspace rules; keys are inside by definition.
func (c *Checker) DecideFS(cp Capability, key string) (rule int, allowed bool) {
	if c.p == nil || len(c.p.FS) == 0 {
		return -1, true
	}
	idx := c.fsTrie.lookup(foldKey(key))
	return idx, idx >= 0 && c.fsCaps[idx]&(1<<cp) != 0
}

// CheckNet decides a request to rawURL (RFD 076 network rules). The URL
// is parsed (userinfo is never the host), its host IDNA-normalised; a rule
// matches on exact host, exact scheme when set, exact port when set or
// else the scheme's default port, and a segment-aware path prefix. The
// most specific rule decides (scheme + port + path segments, ties to the
// last). An empty net list is unrestricted.
func (c *Checker) CheckNet(rawURL string) Decision {
	t, err := parseNetTarget(rawURL)
	if err != nil {
		return Decision{Err: &InputError{Resource: "net", Input: rawURL, Msg: err.Error()}, Asked: "connect to " + strconv.Quote(rawURL)}
	}
	return c.decideNet(&t)
}

// decideNet runs the rule matching of CheckNet and CheckNetEndpoint on a
// parsed target. When the path is not visible (t.noPath), a rule with a
// path prefix cannot be told apart from the rest of the host, so the
// request is decided as if for every path: a path-scoped allow rule does
// not grant it, and a path-scoped deny rule that covers the host and port
// refuses it (fail closed), whatever scheme the rule names: a tunnel to
// the port carries whatever protocol the tool speaks over it, the rule's
// included.
func (c *Checker) decideNet(t *netTarget) Decision {
	asked := "connect to " + strconv.Quote(t.String())
	if c.p == nil || len(c.p.Net) == 0 {
		return Decision{Allowed: true, Asked: asked}
	}
	best, bestSpec := -1, -1
	blocker, pathAllow := -1, -1
	for i := range c.net {
		r := &c.net[i]
		if t.noPath && len(r.segs) > 0 {
			if !c.p.Net[i].Allow {
				if r.coversPort(t) && (blocker < 0 || r.spec >= c.net[blocker].spec) {
					blocker = i
				}
			} else if r.matchesEndpoint(t) && pathAllow < 0 {
				pathAllow = i
			}
			continue
		}
		if r.matches(t) && r.spec >= bestSpec {
			best, bestSpec = i, r.spec
		}
	}
	d := Decision{Asked: asked}
	for _, r := range c.p.Net {
		if r.Allow {
			d.Grants = append(d.Grants, describeNetRule(r))
		}
	}
	if best >= 0 {
		d.Rule = c.p.Net[best]
		if c.p.Net[best].Allow && blocker < 0 {
			d.Allowed = true
			return d
		}
	}
	de := &DeniedError{Resource: "net", Capability: "connect", Target: t.String(), Grants: d.Grants}
	switch {
	case best >= 0 && c.p.Net[best].Allow:
		// Allowed for some paths, but a deny rule scopes part of the host
		// and the path cannot be seen.
		d.Rule = c.p.Net[blocker]
		de.Rule = strconv.Quote(describeNetRule(c.p.Net[blocker]))
		de.Hint = "the path is not visible through a tunnel (CONNECT or SOCKS), and rule " + de.Rule + " denies part of this host, so the whole tunnel is refused; use plain http:// through the HTTP proxy, or drop the path-scoped deny rule"
	case best >= 0:
		de.Rule = strconv.Quote(describeNetRule(c.p.Net[best]))
	case pathAllow >= 0:
		de.Hint = "rule " + strconv.Quote(describeNetRule(c.p.Net[pathAllow])) + " allows only some paths, which a tunnel (CONNECT or SOCKS) cannot see; a tunnel needs a rule without path_prefix"
	}
	d.Err = de
	return d
}

// CheckNetEndpoint decides a connection as a proxy sees it, without a URL
// to parse: scheme ("" when unknown, e.g. SOCKS to a port that is no
// scheme's default; then only rules without a scheme can match), host (as
// the client spelled it; normalised exactly as CheckNet does), port (-1
// for the scheme's default) and path (the decoded request path for plain
// HTTP, "" when the path is not visible, as for CONNECT and SOCKS; see
// decideNet for how a hidden path is decided). For a URL with a scheme it
// agrees with CheckNet on the same scheme, host, port and path.
func (c *Checker) CheckNetEndpoint(scheme, host string, port int, reqPath string) Decision {
	t, err := endpointTarget(scheme, host, port, reqPath)
	if err != nil {
		in := endpointInput(scheme, host, port, reqPath)
		return Decision{Err: &InputError{Resource: "net", Input: in, Msg: err.Error()}, Asked: "connect to " + strconv.Quote(in)}
	}
	return c.decideNet(&t)
}

func endpointInput(scheme, host string, port int, reqPath string) string {
	s := host
	if strings.IndexByte(s, ':') >= 0 && !strings.HasPrefix(s, "[") {
		s = "[" + s + "]"
	}
	if port >= 0 {
		s += ":" + strconv.Itoa(port)
	}
	if scheme != "" {
		s = scheme + "://" + s
	}
	return s + reqPath
}

func endpointTarget(scheme, host string, port int, reqPath string) (netTarget, error) {
	if scheme != "" && !validScheme(scheme) {
		return netTarget{}, fmt.Errorf("scheme %q is not a URL scheme", scheme)
	}
	if port > 65535 || port < -1 {
		return netTarget{}, fmt.Errorf("port %d is not a TCP port", port)
	}
	if scheme == "" && port < 0 {
		return netTarget{}, errors.New("a connection without a scheme needs a port")
	}
	h, err := NormalizeHost(host)
	if err != nil {
		return netTarget{}, err
	}
	t := netTarget{scheme: strings.ToLower(scheme), host: h, port: port}
	def, hasDef := DefaultPort(t.scheme)
	if port >= 0 {
		t.onDefault = hasDef && uint16(port) == def
	} else {
		if hasDef {
			t.port = int(def)
		}
		t.onDefault = true
	}
	if reqPath == "" {
		t.noPath = true
	} else {
		t.path = path.Clean("/" + reqPath)
	}
	return t, nil
}

func (t netTarget) String() string {
	h := t.host
	if strings.IndexByte(h, ':') >= 0 {
		h = "[" + h + "]"
	}
	s := h
	if t.scheme != "" {
		s = t.scheme + "://" + h
	}
	if t.port >= 0 {
		s += ":" + strconv.Itoa(t.port)
	}
	return s + t.path
}

// CheckEnv decides whether the variable name may be read (RFD 076
// environment rules, see MatchEnv). An empty env list is unrestricted.
func (c *Checker) CheckEnv(name string) Decision {
	if err := validateEnvTarget(name); err != nil {
		return Decision{Err: &InputError{Resource: "env", Input: name, Msg: err.Error()}, Asked: "read of env " + strconv.Quote(name)}
	}
	asked := "read of env " + strconv.Quote(name)
	if c.p == nil || len(c.p.Env) == 0 {
		return Decision{Allowed: true, Asked: asked}
	}
	d := Decision{Asked: asked}
	for _, r := range c.p.Env {
		if r.Read {
			d.Grants = append(d.Grants, r.Name)
		}
	}
	rule, ok := MatchEnv(c.p.Env, name)
	if rule != nil {
		d.Rule = *rule
	}
	if ok {
		d.Allowed = true
		return d
	}
	de := &DeniedError{Resource: "env", Capability: "read", Target: name, Grants: d.Grants}
	if rule != nil {
		de.Rule = strconv.Quote(rule.Name)
	}
	d.Err = de
	return d
}

// CheckConfig decides op (read, write or delete) on a dot-separated
// config path (RFD 078). Config is default-deny even for an unrestricted
// tool: no rules means no config access.
func (c *Checker) CheckConfig(op, path string) Decision {
	asked := op + " on config " + strconv.Quote(path)
	if err := validateConfigOp(op); err != nil {
		return Decision{Err: &InputError{Resource: "config", Input: path, Msg: err.Error()}, Asked: asked}
	}
	if err := ValidateConfigPath(path); err != nil || strings.IndexByte(path, '*') >= 0 {
		msg := "a config path to check cannot contain '*'"
		if err != nil {
			msg = err.Error()
		}
		return Decision{Err: &InputError{Resource: "config", Input: path, Msg: msg}, Asked: asked}
	}
	var rules []ConfigRule
	if c.p != nil {
		rules = c.p.Config
	}
	d := Decision{Asked: asked}
	for _, r := range rules {
		if r.GrantsOp(op) {
			d.Grants = append(d.Grants, r.Path)
		}
	}
	idx := MatchConfig(rules, path)
	if idx >= 0 {
		d.Rule = configRuleWire(rules[idx])
		if rules[idx].GrantsOp(op) {
			d.Allowed = true
			return d
		}
	}
	de := &DeniedError{Resource: "config", Capability: op, Target: path, Grants: d.Grants}
	if idx >= 0 {
		de.Rule = strconv.Quote(rules[idx].Path)
	}
	d.Err = de
	return d
}

// CheckCommand decides whether argv may be spawned (RFD 075 commands).
// argv[0] is also resolved through PATH and symlinks so a rule keyed by
// absolute path or by the real program's name can match.
func (c *Checker) CheckCommand(argv []string) Decision {
	if len(argv) == 0 || argv[0] == "" {
		return Decision{Err: &InputError{Resource: "command", Input: "", Msg: "no program given"}, Asked: "run of an empty command"}
	}
	asked := "run of " + strconv.Quote(strings.Join(argv, " "))
	for _, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return Decision{Err: &InputError{Resource: "command", Input: argv[0], Msg: "an argument contains a NUL byte"}, Asked: asked}
		}
	}
	if c.p == nil || c.p.Commands == nil {
		return Decision{Allowed: true, Asked: asked}
	}
	resolved := ResolveProgram(argv[0])
	d := Decision{Grants: commandKeys(c.p.Commands), Asked: asked}
	program, ok := MatchCommand(c.p.Commands, argv, resolved)
	if program != "" {
		d.Rule = CommandMatch{Program: program, CommandRule: c.p.Commands[program]}
	}
	if ok {
		d.Allowed = true
		return d
	}
	de := &DeniedError{Resource: "command", Capability: "run", Target: strings.Join(argv, " "), Grants: d.Grants}
	if program != "" {
		de.Rule = strconv.Quote(program)
		var ps []string
		for _, p := range c.p.Commands[program].Args {
			ps = append(ps, strconv.Quote(strings.Join(p, " ")))
		}
		de.Hint = "the whole argument list must match one of " + program + "'s args patterns (only a final \"**\" matches any rest): " + strings.Join(ps, ", ")
		if len(ps) == 0 {
			de.Hint = program + " has an empty args list, which allows no invocation"
		}
	}
	d.Err = de
	return d
}

// ResolveProgram returns the absolute, symlink-free path exec would run
// for name ("" when PATH has none).
func ResolveProgram(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}
