package configdelta

import (
	"errors"
	"slices"
	"sort"
	"strconv"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// RFD 078's rejection reasons this check can reach (user_rejected and
// confirmation_unavailable need a user).
const (
	ReasonInvalid      = "invalid_config"
	ReasonUnauthorized = "unauthorized_paths"
)

// Apply modes of a whole delta: the policy's two, and "none" for an
// outcome that changes nothing.
const ApplyNone = "none"

// LeafResult is one leaf and the engine's decision on it.
type LeafResult struct {
	Leaf
	Decision policy.Decision
	// Apply is the winning rule's apply mode when the leaf is allowed.
	Apply string
}

// Result is the verdict on a whole delta.
type Result struct {
	Allowed bool
	// Reason is "" when allowed, else ReasonInvalid or ReasonUnauthorized.
	Reason string
	// Apply is the delta's apply mode when allowed: "ask" if any leaf's
	// rule asks (RFD 078 batches one prompt for the whole delta),
	// "unattended" if none does, ApplyNone for an empty delta.
	Apply    string
	Leaves   []LeafResult
	Invalid  []*InvalidError
	Warnings []*InvalidError
}

// Check validates the outcome, enumerates its leaves and decides each with
// k.CheckConfig, the engine `jp-policy check config` uses. RFD 078
// validates before it authorizes, so any structural error makes the delta
// invalid whatever the rules say; the leaves are still decided, so a tool
// author sees both at once.
func Check(k *policy.Checker, o *Outcome, envelope []*InvalidError, aliases *Aliases) Result {
	leaves, invalid, warnings := Enumerate(o, aliases)
	r := Result{Invalid: append(slices.Clip(envelope), invalid...), Warnings: warnings}
	denied := 0
	for _, l := range leaves {
		lr := decide(k, l)
		if ie, ok := errors.AsType[*policy.InputError](lr.Decision.Err); ok {
			r.Invalid = append(r.Invalid, &InvalidError{Pos: l.Pos, Pointer: l.Pointer, Message: ie.Error()})
		}
		if !lr.Decision.Allowed {
			denied++
		}
		r.Leaves = append(r.Leaves, lr)
	}
	// One list in document order, whichever stage found each problem.
	sort.SliceStable(r.Invalid, func(i, j int) bool {
		a, b := r.Invalid[i].Pos, r.Invalid[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	switch {
	case len(r.Invalid) > 0:
		r.Reason = ReasonInvalid
	case denied > 0:
		r.Reason = ReasonUnauthorized
	default:
		r.Allowed = true
		r.Apply = ApplyNone
		for _, lr := range r.Leaves {
			if lr.Apply == policy.ApplyAsk || r.Apply == ApplyNone {
				r.Apply = lr.Apply
			}
		}
	}
	return r
}

// decide asks the engine about one leaf. The two load-time rules of RFD
// 078 (`write = true` does not reach a sensitive path, a '*' segment only
// stands for a map key) are not repeated here: policy.NewChecker refuses
// an access object that breaks them, for --access and compiled policies
// alike, so every checker this sees already keeps them.
func decide(k *policy.Checker, l Leaf) LeafResult {
	d := k.CheckConfig(l.Op, l.Path)
	d.Asked = l.Op + " on config " + strconv.Quote(l.Display())
	lr := LeafResult{Leaf: l, Decision: d}
	rule, ok := d.Rule.(policy.ConfigRule)
	if !d.Allowed || !ok {
		return lr
	}
	if l.Op == policy.ConfigDelete {
		if s, ok := policy.SensitiveConfigLeaf(l.Path); ok {
			// RFD 078 gates only writes there with insecure_allow; say
			// what a granted removal means.
			lr.Note = "under the sensitive path " + strconv.Quote(s) + ": removing access rules can widen what a tool may do, and RFD 078 does not require insecure_allow for delete"
		}
	}
	lr.Apply = rule.EffectiveApply()
	return lr
}
