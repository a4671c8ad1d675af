package grantdiff

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/policy"
	"github.com/jp-policy/jp-policy/internal/policytest"
)

var (
	fsNames    = []string{"a", "b", "src", ".jp", ".git"}
	netHosts   = []string{"a.example", "b.example"}
	urlHosts   = []string{"a.example", "b.example", "c.example"}
	urlSchemes = []string{"http", "https", "ftp", "git", "ws", "zz"}
	urlPorts   = []string{"", ":80", ":443", ":8080", ":21", ":9"}
	urlPaths   = []string{"/", "/x", "/x/y", "/x/y/z", "/xy", "/y"}
	envLits    = []string{"A", "AB", "ABC", "B", "HOME"}
	envNames   = []string{"A", "AB", "ABC", "ABD", "B", "BA", "HOME", "PATH", "Z", "LC_ALL"}
	cfgSegs    = []string{"a", "b", "c"}
	cfgTargets = []string{"a", "b", "c", "d"}
)

func randPath(r *rand.Rand, names []string, depth int) string {
	n := 1 + r.Intn(depth)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = names[r.Intn(len(names))]
	}
	return strings.Join(parts, "/")
}

func randPolicy(r *rand.Rand) policy.AccessPolicy {
	var p policy.AccessPolicy
	for i, n := 0, r.Intn(5); i < n; i++ {
		path := randPath(r, fsNames, 3)
		if r.Intn(4) == 0 {
			path = ""
		}
		p.FS = append(p.FS, policy.FsRule{LexicalPath: path, Read: policytest.RandTri(r), Write: policytest.RandTri(r), Create: policytest.RandTri(r),
			Update: policytest.RandTri(r), Delete: policytest.RandTri(r), Execute: policytest.RandTri(r)})
	}
	for i, n := 0, r.Intn(4); i < n; i++ {
		nr := policy.NetRule{Host: netHosts[r.Intn(len(netHosts))], Allow: r.Intn(3) > 0}
		switch r.Intn(4) {
		case 1:
			nr.Scheme = new("https")
		case 2:
			nr.Scheme = new("http")
		case 3:
			nr.Scheme = new("git")
			nr.Port = u16(9)
		}
		if nr.Port == nil && r.Intn(3) == 0 {
			nr.Port = new([]uint16{80, 443, 8080}[r.Intn(3)])
		}
		if r.Intn(2) == 0 {
			nr.PathPrefix = new([]string{"/", "/x", "/x/y"}[r.Intn(3)])
		}
		p.Net = append(p.Net, nr)
	}
	for i, n := 0, r.Intn(4); i < n; i++ {
		name := envLits[r.Intn(len(envLits))]
		if r.Intn(2) == 0 {
			name += "*"
		}
		p.Env = append(p.Env, policy.EnvRule{Name: name, Read: r.Intn(3) > 0})
	}
	for i, n := 0, r.Intn(4); i < n; i++ {
		segs := make([]string, 1+r.Intn(3))
		for j := range segs {
			segs[j] = cfgSegs[r.Intn(len(cfgSegs))]
			if r.Intn(4) == 0 {
				segs[j] = "*"
			}
		}
		cr := policy.ConfigRule{Path: strings.Join(segs, "."), Read: r.Intn(2) == 0, Delete: r.Intn(2) == 0}
		if r.Intn(2) == 0 {
			cr.Write = policy.ConfigWriteAllow
		}
		if r.Intn(2) == 0 {
			cr.Apply = policy.ApplyUnattended
		}
		p.Config = append(p.Config, cr)
	}
	return p
}

// mutate returns a copy of p with one small edit (a rule dropped, a
// capability or allow flipped, a prefix marker added or removed, a rule
// from another random policy added), so that b is often close to a and
// the unwidened case is exercised at its edges.
func mutate(r *rand.Rand, p policy.AccessPolicy) policy.AccessPolicy {
	q := policy.AccessPolicy{
		FS:     append([]policy.FsRule(nil), p.FS...),
		Net:    append([]policy.NetRule(nil), p.Net...),
		Env:    append([]policy.EnvRule(nil), p.Env...),
		Config: append([]policy.ConfigRule(nil), p.Config...),
	}
	other := randPolicy(r)
	switch r.Intn(8) {
	case 0:
		if len(q.FS) > 0 {
			i := r.Intn(len(q.FS))
			q.FS = append(q.FS[:i], q.FS[i+1:]...)
		}
	case 1:
		if len(q.FS) > 0 {
			i := r.Intn(len(q.FS))
			q.FS[i].Write, q.FS[i].Read = policytest.RandTri(r), policytest.RandTri(r)
		}
	case 2:
		if len(q.Net) > 0 {
			i := r.Intn(len(q.Net))
			q.Net[i].Allow = !q.Net[i].Allow
		}
	case 3:
		if len(q.Net) > 0 {
			i := r.Intn(len(q.Net))
			q.Net = append(q.Net[:i], q.Net[i+1:]...)
		}
	case 4:
		if len(q.Env) > 0 {
			i := r.Intn(len(q.Env))
			if n, ok := strings.CutSuffix(q.Env[i].Name, "*"); ok {
				q.Env[i].Name = n
			} else {
				q.Env[i].Name += "*"
			}
		}
	case 5:
		if len(q.Env) > 0 {
			i := r.Intn(len(q.Env))
			q.Env[i].Read = !q.Env[i].Read
		}
	case 6:
		if len(q.Config) > 0 {
			i := r.Intn(len(q.Config))
			q.Config[i].Read, q.Config[i].Delete = !q.Config[i].Read, r.Intn(2) == 0
			if r.Intn(2) == 0 {
				q.Config[i].Apply = ""
			}
		}
	case 7:
		q.FS = append(q.FS, other.FS...)
		q.Net = append(q.Net, other.Net...)
		q.Env = append(q.Env, other.Env...)
		q.Config = append(q.Config, other.Config...)
	}
	return q
}

// TestPropertyNoWideningMeansNoNewDecision: diff(a, a) is empty, and when
// diff(a, b) says nothing widened, every request b allows a allows too,
// on random requests the probe sets were not built from.
func TestPropertyNoWideningMeansNoNewDecision(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	root := t.TempDir()
	iters := 3000
	if testing.Short() {
		iters = 300
	}
	unwidened := 0
	for it := 0; it < iters; it++ {
		a, b := randPolicy(r), randPolicy(r)
		if r.Intn(4) > 0 {
			b = mutate(r, a)
		}
		if policy.Validate(&a) != nil || policy.Validate(&b) != nil {
			continue
		}
		same, err := compareAt(root, one(a), one(a))
		if err != nil {
			t.Fatal(err)
		}
		if !same.Empty() {
			t.Fatalf("diff(a, a) not empty:\n%s", same.Text())
		}
		d, err := compareAt(root, one(a), one(b))
		if err != nil {
			t.Fatal(err)
		}
		if d.Widened() {
			continue
		}
		unwidened++
		ca, err := policy.NewChecker(root, &a)
		if err != nil {
			t.Fatal(err)
		}
		cb, err := policy.NewChecker(root, &b)
		if err != nil {
			t.Fatal(err)
		}
		fail := func(what string) {
			t.Fatalf("diff says nothing widened, but %s is allowed by b and not by a\na=%+v\nb=%+v\n%s", what, a, b, d.Text())
		}
		for range 40 {
			in := randPath(r, append(fsNames, "z"), 4)
			for _, cp := range policy.Capabilities {
				if cb.CheckFS(cp, in).Allowed && !ca.CheckFS(cp, in).Allowed {
					fail(cp.String() + " on " + in)
				}
			}
			u := urlSchemes[r.Intn(len(urlSchemes))] + "://" + urlHosts[r.Intn(len(urlHosts))] + urlPorts[r.Intn(len(urlPorts))] + urlPaths[r.Intn(len(urlPaths))]
			if cb.CheckNet(u).Allowed && !ca.CheckNet(u).Allowed {
				fail(u)
			}
			// The environment as exec passes it: the rules, and the
			// minimal set where no rule decides (envAllowed).
			n := envNames[r.Intn(len(envNames))]
			if envAllowed(b.Env, n) && !envAllowed(a.Env, n) {
				fail("env " + n)
			}
			cfg := strings.ReplaceAll(randPath(r, cfgTargets, 4), "/", ".")
			for _, op := range configOps {
				db, da := cb.CheckConfig(op, cfg), ca.CheckConfig(op, cfg)
				if db.Allowed && !da.Allowed {
					fail(op + " on config " + cfg)
				}
				if db.Allowed && op != policy.ConfigRead && applyOf(db) == policy.ApplyUnattended && applyOf(da) != policy.ApplyUnattended {
					fail(op + " unattended on config " + cfg)
				}
			}
		}
	}
	if unwidened < iters/10 {
		t.Fatalf("only %d of %d pairs were unwidened; the property is barely exercised", unwidened, iters)
	}
}

// TestPropertyWidenedIsWitnessed: a reported fs widening names a target
// the new side allows and the old side does not.
func TestPropertyWidenedIsWitnessed(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	root := t.TempDir()
	for range 500 {
		a, b := randPolicy(r), randPolicy(r)
		a.Net, a.Env, a.Config, b.Net, b.Env, b.Config = nil, nil, nil, nil, nil, nil
		d, err := compareAt(root, one(a), one(b))
		if err != nil {
			t.Fatal(err)
		}
		ca, _ := policy.NewChecker(root, &a)
		cb, _ := policy.NewChecker(root, &b)
		for _, c := range d.Changes {
			for _, g := range c.Gained {
				for _, on := range g.On {
					ok := false
					for _, cp := range policy.Capabilities {
						if cb.CheckFS(cp, on).Allowed && !ca.CheckFS(cp, on).Allowed {
							ok = true
						}
					}
					if !ok {
						t.Fatalf("gained %q on %q, but no capability differs there\n%s", g.What, on, d.Text())
					}
				}
			}
		}
	}
}

var _ = artifact.FormatVersion
