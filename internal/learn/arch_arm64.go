//go:build linux

package learn

const auditArch = 0xc00000b7 // AUDIT_ARCH_AARCH64

const x32Bit = 0 // no second ABI on arm64

// arm64 has only the *at forms.
var archCalls []call
