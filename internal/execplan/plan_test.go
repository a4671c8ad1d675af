package execplan

import (
	"reflect"
	"testing"

	"github.com/jp-policy/jp-policy/internal/platform"
	"github.com/jp-policy/jp-policy/internal/policy"
)

func samplePlan() *Plan {
	p := &Plan{Tool: "t", Root: "/ws"}
	p.Enabled = true
	p.Access.Env = []policy.EnvRule{{Name: "TOKEN", Read: true}}
	p.Manifests = map[platform.Platform]string{platform.Linux: "landlock/t.json"}
	p.ManifestSHA256 = map[platform.Platform]string{platform.Linux: SHA256Hex([]byte("x"))}
	p.BaseSHA256 = map[platform.Platform]string{platform.Linux: SHA256Hex([]byte("y"))}
	return p
}

func TestPlanRoundTrip(t *testing.T) {
	p := samplePlan()
	got, err := Decode(Encode(p))
	if err != nil {
		t.Fatal(err)
	}
	p.Format = PlanFormat
	if !reflect.DeepEqual(got, p) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, p)
	}
}

// TestPlanRefusesForeign: a plan of another format, with unknown fields,
// trailing data or not JSON is ErrPlanSyntax.
func TestPlanRefusesForeign(t *testing.T) {
	good := Encode(samplePlan())
	for name, b := range map[string][]byte{
		"empty":         nil,
		"old format":    []byte("jp-policy exec plan 2\n"),
		"other format":  []byte(`{"format":2,"tool":"t"}`),
		"unknown field": []byte(`{"format":3,"tool":"t","fast":{}}`),
		"trailing":      append(append([]byte{}, good...), []byte("{}")...),
	} {
		if _, err := Decode(b); err != ErrPlanSyntax {
			t.Errorf("%s: err %v, want ErrPlanSyntax", name, err)
		}
	}
}

// FuzzDecodePlan: nothing panics, and whatever decodes re-encodes to a
// plan that decodes the same.
func FuzzDecodePlan(f *testing.F) {
	f.Add(Encode(samplePlan()))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Decode(Encode(p))
		if err != nil || !reflect.DeepEqual(again, p) {
			t.Fatalf("%+v re-decoded as %+v (%v)", p, again, err)
		}
	})
}
