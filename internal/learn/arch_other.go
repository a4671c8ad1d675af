//go:build linux && !amd64 && !arm64

package learn

// Learning is built for amd64 and arm64; elsewhere Run refuses.
const auditArch = 0
const x32Bit = 0

var archCalls []call
