package launcher

import (
	"errors"
	"io"

	"github.com/jp-policy/jp-policy/internal/netproxy"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// proxyFor is the filtering proxy for a tool's net rules: every request
// is decided by package policy, the same engine as `jp-policy check net`,
// and names are resolved here, outside the sandbox.
func proxyFor(root string, rules []policy.NetRule, log io.Writer) (*netproxy.Server, error) {
	if len(rules) == 0 {
		// An empty net list reads as unrestricted (RFD 076); a tool on
		// this path has ports in its manifest, so no rules means the plan
		// lost them: serve nothing rather than everything.
		return nil, errors.New("the tool's net rules are missing from the plan")
	}
	k, err := policy.NewChecker(root, &policy.AccessPolicy{Net: rules})
	if err != nil {
		return nil, err
	}
	return netproxy.New(netproxy.Config{Decide: k.CheckNetEndpoint, Log: log})
}
