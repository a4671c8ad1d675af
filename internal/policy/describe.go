package policy

// DescribeNetRule renders a net rule as the URL pattern check and explain
// show ([scheme://]host[:port][path_prefix]), for callers that word
// grants, such as the grant diff.
func DescribeNetRule(r NetRule) string { return describeNetRule(r) }
