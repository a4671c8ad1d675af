package policy

import (
	"encoding/json"
	"testing"
)

func TestCommandsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   AccessPolicy
		want string
	}{
		{"absent", AccessPolicy{}, `{"fs":[],"net":[],"env":[]}`},
		{"empty", AccessPolicy{Commands: map[string]CommandRule{}}, `{"fs":[],"net":[],"env":[],"commands":{}}`},
		{"one", AccessPolicy{Commands: map[string]CommandRule{"cargo": {}}}, `{"fs":[],"net":[],"env":[],"commands":{"cargo":{"args":null,"envs":null}}}`},
	} {
		b, err := json.Marshal(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, b, tc.want)
		}
		var back AccessPolicy
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if (back.Commands == nil) != (tc.in.Commands == nil) {
			t.Errorf("%s: round trip changed whether commands is restricted: %v -> %v", tc.name, tc.in.Commands, back.Commands)
		}
	}
}
