package configdelta

import (
	"testing"

	"github.com/jp-policy/jp-policy/internal/policy"
)

var rfdOutcome = []byte(`{
  "type": "success",
  "content": "Model changed to sonnet, cleared stale parameters.",
  "config": {"assistant": {"model": {"id": "sonnet"}}},
  "unset": ["assistant.model.parameters.temperature", "conversation.attachments[\"stale-file.md\"]"]
}`)

func benchChecker(b *testing.B) *policy.Checker {
	k, err := policy.NewChecker(b.TempDir(), &policy.AccessPolicy{Config: []policy.ConfigRule{
		{Path: "assistant.model", Write: policy.ConfigWriteAllow, Delete: true, Apply: "ask"},
		{Path: "conversation.attachments", Delete: true, Apply: "unattended"},
	}})
	if err != nil {
		b.Fatal(err)
	}
	return k
}

// BenchmarkCheckRFDOutcome is the whole pipeline on RFD 078's example:
// parse, validate (including the config schema), enumerate, decide.
func BenchmarkCheckRFDOutcome(b *testing.B) {
	k := benchChecker(b)
	b.ReportAllocs()
	for b.Loop() {
		o, env, err := ParseOutcome("o.json", rfdOutcome)
		if err != nil {
			b.Fatal(err)
		}
		if r := Check(k, o, env, nil); !r.Allowed {
			b.Fatal("denied")
		}
	}
}

// BenchmarkFloorCheckConfig4 is the floor: the four CheckConfig calls the
// example needs, with no parsing or validation. Compare the two in one
// run: go test -bench . ./internal/configdelta/
func BenchmarkFloorCheckConfig4(b *testing.B) {
	k := benchChecker(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range [][2]string{{"write", "assistant.model.id.provider"}, {"write", "assistant.model.id.name"},
			{"delete", "assistant.model.parameters.temperature"}, {"delete", "conversation.attachments"}} {
			if !k.CheckConfig(q[0], q[1]).Allowed {
				b.Fatal("denied")
			}
		}
	}
}
