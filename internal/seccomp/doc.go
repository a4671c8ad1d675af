// Package seccomp owns jp-policy's system-call filter: the Spec that a
// Linux manifest carries (what a tool's policy allows of sockets, listen
// and metadata writes), the fixed denials every tool gets (terminal input
// injection, the kernel keyring, file handles, other processes' limits and
// scheduling, namespace creation, io_uring and other kernel attack
// surface), the clauses that describe them, the classic-BPF program that
// enforces them for amd64 and arm64, and its installation on one thread.
//
// Why hand-assembled: the filter is a deny list over an allow-by-default
// program, so two properties matter more than convenience, and the pure-Go
// library we measured against (github.com/elastic/go-seccomp-bpf) has
// neither: (1) a system call from a foreign audit architecture (i386 via
// int 0x80, x32 on amd64) must be refused, where the library jumps to the
// policy's default action (allow, for a deny list); (2) arguments the
// kernel reads as 32-bit ints (socket domain, ioctl request, pid_t) must
// be compared on their low 32 bits only, where the library compares all 64
// bits, so TIOCSTI with garbage in the upper half would pass. The program
// is small (see Build), is assembled with golang.org/x/net/bpf, and is
// kept honest by a differential fuzz test against a plain Go reference
// evaluator run through x/net/bpf's VM, and by kernel tests.
package seccomp
