package grantdiff

import (
	"github.com/jp-policy/jp-policy/internal/termstyle"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// otherScheme and otherHost stand for every scheme and host no rule
// names; otherSeg for every path segment no prefix names.
const (
	otherScheme = "jp-policy-other"
	otherHost   = "other.jp-policy-diff.test"
	otherSeg    = "jp-policy-other"
)

func sameNet(a, b []policy.NetRule) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// netProbes builds one URL per class of requests the two rule lists can
// tell apart. A rule matches on exact host, exact scheme, exact port (or,
// without one, the scheme's default port), and a segment prefix of the
// path. So the classes are: each rule host and one other host; each rule
// scheme, plus for each default port (80, 443, 21) one scheme no rule
// names that has it, plus one scheme without a default port; per scheme,
// each rule port, no port (the default), and one other port; each rule
// prefix and one path below it, plus "/" and one other top-level path.
// (A scheme's explicit default port decides as no port does, and another
// scheme's default port as any other port, unless a rule names it.)
func netProbes(rules []policy.NetRule) []string {
	hosts := map[string]bool{}
	named := map[string]bool{}
	ports := map[int]bool{-1: true}
	paths := map[string]bool{"/": true, "/" + otherSeg: true}
	for _, r := range rules {
		if h, err := policy.NormalizeHost(r.Host); err == nil {
			hosts[h] = true
		}
		if r.Scheme != nil {
			named[strings.ToLower(*r.Scheme)] = true
		}
		if r.Port != nil {
			ports[int(*r.Port)] = true
		}
		if r.PathPrefix != nil {
			p := cleanPath(*r.PathPrefix)
			paths[p] = true
			paths[strings.TrimSuffix(p, "/")+"/"+otherSeg] = true
		}
	}
	schemes := map[string]bool{otherScheme: true}
	for s := range named {
		schemes[s] = true
	}
	for _, byPort := range [][]string{{"http", "ws"}, {"https", "wss"}, {"ftp"}} {
		for _, s := range byPort {
			if !named[s] {
				schemes[s] = true
				break
			}
		}
	}
	other := 65000
	for ports[other] {
		other++
	}
	ports[other] = true
	oh := otherHost
	for hosts[oh] {
		oh = "x" + oh
	}
	hosts[oh] = true

	var out []string
	for _, h := range sortedKeys(hosts) {
		hp := h
		if strings.IndexByte(h, ':') >= 0 {
			hp = "[" + h + "]"
		}
		for _, s := range sortedKeys(schemes) {
			for _, p := range sortedInts(ports) {
				hostport := hp
				if p >= 0 {
					hostport = hp + ":" + strconv.Itoa(p)
				}
				for _, path := range sortedKeys(paths) {
					out = append(out, s+"://"+hostport+path)
				}
			}
		}
	}
	return out
}

func cleanPath(p string) string {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	var keep []string
	for _, s := range segs {
		if s != "" && s != "." {
			keep = append(keep, s)
		}
	}
	return "/" + strings.Join(keep, "/")
}

// diffNet decides every probe on both sides with the evaluator.
func diffNet(evalRoot string, old, new []policy.NetRule) (*Change, error) {
	if sameNet(old, new) {
		return nil, nil
	}
	oc, err := policy.NewChecker(evalRoot, &policy.AccessPolicy{Net: old})
	if err != nil {
		return nil, err
	}
	nc, err := policy.NewChecker(evalRoot, &policy.AccessPolicy{Net: new})
	if err != nil {
		return nil, err
	}
	probes := netProbes(append(append([]policy.NetRule(nil), old...), new...))
	type acc struct{ all, hit []string }
	gained, lost := map[string]*acc{}, map[string]*acc{}
	var hosts []string
	for _, u := range probes {
		od, nd := oc.CheckNet(u), nc.CheckNet(u)
		if _, bad := od.Err.(*policy.InputError); bad {
			continue // not a request (the same URL is malformed on both sides)
		}
		h := hostOf(u)
		if gained[h] == nil {
			gained[h], lost[h] = &acc{}, &acc{}
			hosts = append(hosts, h)
		}
		gained[h].all = append(gained[h].all, u)
		lost[h].all = append(lost[h].all, u)
		if nd.Allowed && !od.Allowed {
			gained[h].hit = append(gained[h].hit, u)
		}
		if od.Allowed && !nd.Allowed {
			lost[h].hit = append(lost[h].hit, u)
		}
	}
	items := func(m map[string]*acc) []Item {
		var out []Item
		for _, h := range hosts {
			a := m[h]
			if len(a.hit) == 0 {
				continue
			}
			name := h
			if strings.HasSuffix(h, otherHost) {
				name = "any other host"
			}
			if len(a.hit) == len(a.all) {
				out = append(out, Item{What: "connect (any scheme, port and path)", On: []string{name}})
				continue
			}
			out = append(out, Item{What: "connect", On: compressURLs(a.all, a.hit)})
		}
		return out
	}
	c := &Change{Clause: ClauseNet, Before: describeNet(old), After: describeNet(new), Gained: items(gained), Lost: items(lost)}
	if len(c.Gained) == 0 && len(c.Lost) == 0 {
		return nil, nil
	}
	return classify(c), nil
}

// compressURLs renders the probes that changed for one host in as few
// words as the classes allow: "host:port/path (any scheme)" when every
// scheme changed there, "host:port (any scheme and path)" when every
// probe on that port did; probes of the placeholder scheme and paths only
// stand for "any", so they are not listed on their own.
func compressURLs(all, hit []string) []string {
	type key struct{ hostport, path string }
	split := func(u string) (scheme string, k key) {
		before, after, _ := strings.Cut(u, "://")
		rest := after
		j := strings.IndexByte(rest, '/')
		return before, key{rest[:j], rest[j:]}
	}
	allN, hitN := map[key]int{}, map[key]int{}
	portAll, portHit := map[string]int{}, map[string]int{}
	for _, u := range all {
		_, k := split(u)
		allN[k]++
		portAll[k.hostport]++
	}
	hitSet := map[string]bool{}
	for _, u := range hit {
		_, k := split(u)
		hitN[k]++
		portHit[k.hostport]++
		hitSet[u] = true
	}
	var out []string
	done := map[string]bool{}
	for _, u := range hit {
		scheme, k := split(u)
		switch {
		case portHit[k.hostport] == portAll[k.hostport]:
			if !done[k.hostport] {
				done[k.hostport] = true
				out = append(out, k.hostport+" (any scheme and path)")
			}
		case hitN[k] == allN[k]:
			if !done[k.hostport+k.path] && !strings.HasSuffix(k.path, otherSeg) {
				done[k.hostport+k.path] = true
				out = append(out, k.hostport+k.path+" (any scheme)")
			}
		case scheme != otherScheme && !strings.HasSuffix(k.path, otherSeg):
			// https://h:443/p says no more than https://h/p.
			if def, ok := policy.DefaultPort(scheme); ok {
				if short, found := strings.CutSuffix(k.hostport, ":"+strconv.Itoa(int(def))); found && hitSet[scheme+"://"+short+k.path] {
					continue
				}
			}
			out = append(out, u)
		}
	}
	if len(out) == 0 {
		out = hit
	}
	return out
}

func hostOf(u string) string {
	rest := u[strings.Index(u, "://")+3:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	if strings.HasPrefix(rest, "[") {
		return rest[1:strings.IndexByte(rest, ']')]
	}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// describeNet renders one side's net rules in order.
func describeNet(rules []policy.NetRule) string {
	if len(rules) == 0 {
		return "unrestricted"
	}
	if len(rules) == 1 && rules[0].Host == policy.DenyNetHost && !rules[0].Allow {
		return "denied (no network)"
	}
	parts := make([]string, 0, len(rules))
	for _, r := range rules {
		if r.Host == policy.DenyNetHost && !r.Allow {
			continue
		}
		verb := "deny"
		if r.Allow {
			verb = "allow"
		}
		parts = append(parts, verb+" "+termstyle.Code(policy.DescribeNetRule(r)))
	}
	return strings.Join(parts, "; ")
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedInts(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
