package landlock

import (
	"github.com/jp-policy/jp-policy/internal/emit"
	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// RightsOf maps a capability set to Landlock rights. Refer is added only
// when the rule may both create and delete: a rename or cross-directory
// link is a create at the destination plus a delete at the source, and
// the kernel still refuses any refer that would give the moved file more
// rights in its new place.
func RightsOf(c emit.Caps) ll.Rights {
	var r ll.Rights
	for _, k := range policy.Capabilities {
		if c.Has(k) {
			r |= ll.CapabilityRights[k]
		}
	}
	if c.Has(policy.Create) && c.Has(policy.Delete) {
		r |= ll.RRefer
	}
	return r
}
