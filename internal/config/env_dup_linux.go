package config

import "os"

// processEnvBlock is the environment the process was started with,
// duplicates included (os.Environ drops them); nil when unreadable.
func processEnvBlock() []byte {
	b, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		return nil
	}
	return b
}
