package execplan

import "testing"

// TestIsEnvConfigInput: every JP_CFG_ variable through which JP's
// from_envs can reach conversation.tools or config_load_paths is a
// staleness input (jp_config lib.rs PartialAppConfig::assign), including
// JP_CFG_ itself, whose empty key is the config root.
func TestIsEnvConfigInput(t *testing.T) {
	tests := map[string]bool{
		"JP_CFG_":                            true, // ':{"conversation": {"tools": ...}}'
		"JP_CFG_CONVERSATION":                true,
		"JP_CFG_conversation_tools_x_run":    true,
		"JP_CFG_CONVERSATION__TOOLS__X__RUN": true,
		"JP_CFG_CONFIG_LOAD_PATHS":           true,
		"JP_CFG_STYLE_REASONING_DISPLAY":     false,
		"JP_CFG_ASSISTANT_MODEL_ID":          false,
		"jp_cfg_CONVERSATION":                false, // JP strips the prefix case-sensitively
		"JP_CFGCONVERSATION":                 false,
	}
	for name, want := range tests {
		if got := IsEnvConfigInput(name); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
