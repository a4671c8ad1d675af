package netproxy

import (
	"encoding/json"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// LogEntry is one line of the decision log (JSON, one object a line).
type LogEntry struct {
	Time time.Time `json:"time"`
	// Client is the client's address as the listener saw it.
	Client string `json:"client"`
	// Kind is "http" (forwarded request), "connect" (HTTP CONNECT) or
	// "socks5".
	Kind string `json:"kind"`
	// Method is the HTTP method of a forwarded request.
	Method string `json:"method,omitempty"`
	// Scheme as decided ("" for a SOCKS port that is no scheme's default).
	Scheme string `json:"scheme"`
	// Host as the client sent it; Canonical as the policy matched it
	// (and as it was dialled), "" when it did not parse.
	Host      string `json:"host"`
	Canonical string `json:"canonical,omitempty"`
	Port      int    `json:"port"`
	// Path is the request path (plain HTTP only).
	Path    string `json:"path,omitempty"`
	Allowed bool   `json:"allowed"`
	// Rule is the deciding rule in `check --json` wire form, null when
	// none matched or net is unrestricted.
	Rule any `json:"rule"`
	// Reason is the refusal message (with the hint, if any).
	Reason string `json:"reason,omitempty"`
	// Addr is set on the second line of a request whose allowed name
	// resolved only to addresses the rule does not grant: the first such
	// address (see policy.CheckResolvedAddr).
	Addr string `json:"addr,omitempty"`
}

// logAddrRefusal logs a request refused at dial time: e is the allowed
// decision's entry, now refused for the address the name resolved to.
func (s *Server) logAddrRefusal(e LogEntry, ae *policy.AddrError) {
	e.Addr = ae.Addr.String()
	s.logDecision(e, policy.Decision{Err: ae})
}

func (s *Server) logDecision(e LogEntry, d policy.Decision) {
	if s.cfg.Log == nil {
		return
	}
	e.Time = time.Now().UTC()
	e.Allowed = d.Allowed
	e.Rule = d.Rule
	if d.Err != nil {
		e.Reason = reason(d)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	b = append(b, '\n')
	s.logMu.Lock()
	defer s.logMu.Unlock()
	s.cfg.Log.Write(b)
}

// reason is the refusal message with its hint, on one line.
func reason(d policy.Decision) string {
	msg := d.Err.Error()
	if de, ok := d.Err.(*policy.DeniedError); ok && de.Hint != "" {
		msg += "; " + de.Hint
	}
	if ae, ok := d.Err.(*policy.AddrError); ok {
		msg += "; " + ae.Hint()
	}
	return msg
}
