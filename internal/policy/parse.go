package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ParseAccess reads an access object exactly as a JP tool receives it
// (`{"fs": [...], "net": [...], "env": [...]}` plus the `commands` and
// `config` extensions), or `null` for an unrestricted tool (nil result).
//
// It is stricter than JP's serde defaults on purpose: unknown keys and
// missing required keys (lexical_path, host, name, path) are errors,
// because a typo there would otherwise widen access silently (a missing
// lexical_path would read as the workspace root). The result is validated
// like NewChecker validates.
func ParseAccess(data []byte) (*AccessPolicy, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, errors.New("access: empty input (write null for an unrestricted tool)")
	}
	if bytes.Equal(data, []byte("null")) {
		return nil, nil
	}
	var shape struct {
		FS     []map[string]json.RawMessage `json:"fs"`
		Net    []map[string]json.RawMessage `json:"net"`
		Env    []map[string]json.RawMessage `json:"env"`
		Config []map[string]json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal(data, &shape); err != nil {
		return nil, fmt.Errorf("access: %w", err)
	}
	for _, req := range []struct {
		section string
		key     string
		rules   []map[string]json.RawMessage
	}{{"fs", "lexical_path", shape.FS}, {"net", "host", shape.Net}, {"env", "name", shape.Env}, {"config", "path", shape.Config}} {
		for i, r := range req.rules {
			if r == nil {
				return nil, fmt.Errorf("access.%s[%d]: a rule must be an object", req.section, i)
			}
			if v, ok := r[req.key]; !ok || bytes.Equal(v, []byte("null")) {
				return nil, fmt.Errorf("access.%s[%d]: %q is required", req.section, i, req.key)
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p AccessPolicy
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("access: %w", err)
	}
	if dec.More() {
		return nil, errors.New("access: trailing data after the access object")
	}
	if err := Validate(&p); err != nil {
		return nil, err
	}
	return &p, nil
}
