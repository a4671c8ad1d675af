package policy

import "testing"

func TestSensitiveConfigLeaf(t *testing.T) {
	for path, want := range map[string]bool{
		"conversation.tools.x.access":               true,
		"conversation.tools.x.access.fs":            true,
		"conversation.tools.x.access.config.0.path": true,
		"conversation.tools.x":                      false, // covers it, but a leaf here writes no access
		"conversation.tools.x.accessory":            false,
		"conversation.tools":                        false,
		"assistant.model":                           false,
	} {
		if _, got := SensitiveConfigLeaf(path); got != want {
			t.Errorf("SensitiveConfigLeaf(%q) = %v, want %v", path, got, want)
		}
	}
}
