package suggest

import (
	"reflect"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"read", "read", 0},
		{"raed", "read", 2},
		{"extrnal", "external", 1},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	keys := []string{"path", "external", "read", "write", "create", "update", "delete", "execute"}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"extrenal", []string{"external"}},
		{"writ", []string{"write"}},
		{"zzzzzzzz", []string{}},
		{"read", []string{}}, // an exact match is not a suggestion
		{"fs_raed_file", nil},
	} {
		got := Closest(tc.name, keys)
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Closest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := Closest("fs_raed_file", []string{"fs_read_file", "fs_list_files"}); !reflect.DeepEqual(got, []string{"fs_read_file"}) {
		t.Errorf("tool names: got %q", got)
	}
}
