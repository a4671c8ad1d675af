//go:build !linux

package config

// processEnvBlock: elsewhere Go offers no view of duplicate entries (see
// docs/config.md: on macOS and Windows a duplicated JP_CFG_ variable is
// read as its first entry, JP reads its last).
func processEnvBlock() []byte { return nil }
