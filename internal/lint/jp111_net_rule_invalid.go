package lint

import (
	"fmt"
	"strings"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

var ruleJP111 = Rule{
	ID: "JP111", Name: "net-rule-invalid", Severity: diag.Error,
	Title: "A net rule whose host does not parse, or that holds a scheme, port or path in `host`",
	Description: "Net rules match parsed URLs component by component (RFD 076): `host` is one exact host name or IP literal, normalised through IDNA. " +
		"`https://api.example.com`, `api.example.com:8443` or `api.example.com/v1` in `host` can never match anything, and JP rejects an unparsable host at load. A bad `path_prefix` or port is reported here too.",
	Fix:   "Put only the host in `host`, and the rest in `scheme`, `port` and `path_prefix`.",
	check: checkNetRuleInvalid,
}

// toPolicyNet converts a rule as written into the wire shape the policy
// validator takes; ok is false when the port does not fit.
func toPolicyNet(r config.NetRule) (policy.NetRule, bool) {
	out := policy.NetRule{Host: r.Host, Scheme: r.Scheme, PathPrefix: r.PathPrefix}
	if r.Allow != nil {
		out.Allow = *r.Allow
	}
	if r.Port != nil {
		if *r.Port < 0 || *r.Port > 65535 {
			return out, false
		}
		v := uint16(*r.Port)
		out.Port = &v
	}
	return out, true
}

// hostHelp recognises the usual ways a URL ends up in `host`.
func hostHelp(h string) string {
	switch {
	case strings.Contains(h, "://"):
		scheme, rest, _ := strings.Cut(h, "://")
		return fmt.Sprintf("write host = %q and scheme = %q", strings.SplitN(strings.SplitN(rest, "/", 2)[0], ":", 2)[0], scheme)
	case strings.Contains(h, "/"):
		host, path, _ := strings.Cut(h, "/")
		return fmt.Sprintf("write host = %q and path_prefix = %q", host, "/"+path)
	case strings.Count(h, ":") == 1 && !strings.HasPrefix(h, "["):
		host, port, _ := strings.Cut(h, ":")
		return fmt.Sprintf("write host = %q and port = %s", host, port)
	}
	return "give a host name such as \"api.example.com\" or an IP address"
}

func checkNetRuleInvalid(p *pass) {
	for _, t := range p.st.sorted {
		if t.Access == nil {
			continue
		}
		for _, r := range t.Access.Net {
			if _, err := policy.NormalizeHost(r.Host); err != nil {
				p.report(p.valueOf(r.Keys, "host", r.Pos),
					fmt.Sprintf("net rule of tool %q: %v", t.Name, err), hostHelp(r.Host))
				continue
			}
			pr, ok := toPolicyNet(r)
			if !ok {
				p.report(p.valueOf(r.Keys, "port", r.Pos),
					fmt.Sprintf("net rule of tool %q: port %d is out of range", t.Name, *r.Port), "use a port from 1 to 65535")
				continue
			}
			if schemeWithoutPort(r) {
				continue // JP112
			}
			if err := policy.ValidateNetRule(pr); err != nil {
				key := "path_prefix"
				if r.PathPrefix == nil {
					key = "scheme"
				}
				p.report(p.valueOf(r.Keys, key, r.Pos), fmt.Sprintf("net rule of tool %q: %v", t.Name, err),
					"fix the value so the rule can match a URL")
			}
		}
	}
}

// schemeWithoutPort reports a rule that names a scheme with no default
// port and gives no port: it could never match.
func schemeWithoutPort(r config.NetRule) bool {
	if r.Scheme == nil || r.Port != nil {
		return false
	}
	_, ok := policy.DefaultPort(*r.Scheme)
	return !ok
}
