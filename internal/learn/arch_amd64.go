//go:build linux

package learn

import "golang.org/x/sys/unix"

const auditArch = 0xc000003e // AUDIT_ARCH_X86_64

// x32Bit marks x32 system calls, which share x86-64's audit
// architecture: the filter traces them so none goes unseen.
const x32Bit = 0x40000000

// Calls the old, path-only forms that arm64 does not have.
var archCalls = []call{
	{unix.SYS_OPEN, kOpen},
	{unix.SYS_CREAT, kCreat},
	{unix.SYS_MKDIR, kMkdir},
	{unix.SYS_MKNOD, kMknod},
	{unix.SYS_UNLINK, kUnlink},
	{unix.SYS_RMDIR, kRmdir},
	{unix.SYS_RENAME, kRename},
	{unix.SYS_LINK, kLink},
	{unix.SYS_SYMLINK, kSymlink},
	{unix.SYS_CHMOD, kChmod},
	{unix.SYS_CHOWN, kChown},
	{unix.SYS_LCHOWN, kLchown},
	{unix.SYS_UTIMES, kUtimes},
	{unix.SYS_UTIME, kUtimes},
}
