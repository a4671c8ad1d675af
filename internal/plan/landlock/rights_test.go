package landlock

import (
	"reflect"
	"testing"
)

func TestRightsRoundTripAndABI(t *testing.T) {
	tests := []struct {
		r   Rights
		abi int
	}{
		{0, 1}, {RReadFile | RReadDir, 1}, {RRefer, 2}, {RTruncate | RRefer, 3}, {RIoctlDev, 5},
	}
	for _, tt := range tests {
		back, unknown := ParseRights(tt.r.Names())
		if back != tt.r || len(unknown) != 0 {
			t.Errorf("round trip of %v gave %v (unknown %v)", tt.r.Names(), back.Names(), unknown)
		}
		if got := tt.r.MinABI(); got != tt.abi {
			t.Errorf("MinABI(%v) = %d, want %d", tt.r.Names(), got, tt.abi)
		}
	}
	if _, unknown := ParseRights([]string{"read_file", "fly"}); !reflect.DeepEqual(unknown, []string{"fly"}) {
		t.Errorf("unknown = %v", unknown)
	}
}
