// Package nsroot runs a command bubblewrap-style on Linux: in new user,
// mount and IPC namespaces (and a network namespace on request), in a
// root built on a tmpfs from the paths it is given, unprivileged, without
// cgo or an external binary. Other platforms get a stub whose Available
// is false and whose Start fails with ErrUnavailable.
//
// # Processes
//
// Start (the parent, i.e. jp-policy exec) re-executes /proc/self/exe with
// argv[1] = a private marker, via clone(CLONE_NEWUSER|CLONE_NEWNS|
// CLONE_NEWIPC|CLONE_NEWPID[|CLONE_NEWNET]). The binary's main calls
// Stage2Main first thing; in that re-exec it builds the root, applies the
// launcher's Finalize hook and forks the command. The caller's uid and
// gid are mapped 1:1 (files keep their owner, the command's id(1) is
// unchanged; setgroups is denied, as it must be for an unprivileged map).
// Stage 2 is given CAP_SYS_ADMIN, CAP_NET_ADMIN and CAP_SETPCAP in its
// namespace as ambient capabilities (an unprivileged uid would lose them
// at the re-exec) and drops every capability, the bounding set included,
// and sets no_new_privs before the command runs: a command with
// CAP_SYS_ADMIN in its namespace could unmount a mask.
//
// # The PID namespace and its init
//
// Stage 2 is pid 1 of a new PID namespace and stays there as its init.
// It forks the command from the thread that dropped its capabilities and
// on which the Finalize hook applied Landlock and seccomp, so the command
// inherits exactly that thread's credentials and filter; before the fork
// every other thread of stage 2 drops its capabilities too and stage 2
// becomes non-dumpable, so the command (same uid) can neither ptrace it
// nor read its /proc/1 files. Then stage 2 ignores the catchable signals
// (as init it gets only those it handles, and the Go runtime's handlers
// would make it exit on ^C), closes its standard streams and its socket,
// reaps whatever is reparented to it, and when the command exits, exits
// with the command's status (the code, or 128+n for signal n). The kernel
// then kills every process left in the namespace, at any depth, before
// the parent's wait4 reports stage 2's exit: when Wait returns, nothing
// the command started is running. Pdeathsig (SIGKILL) on stage 2 does the
// same if the parent dies.
//
// /proc is a procfs of that namespace, mounted with hidepid=2: it lists
// the processes the reader may ptrace, i.e. the command and what it
// starts (stage 2, not dumpable, is listed only to a caller whose gid is
// 0, and its files stay closed), and /proc/self names whoever reads it,
// so a child of the command reads its own entry (ps, /proc/self/fd,
// /proc/cpuinfo).
// Mounting it needs a fully visible procfs on the host; where the kernel
// refuses (a container masking parts of /proc), Start fails with an error
// matching ErrUnavailable, as it does where user namespaces are refused.
//
// The spec goes to stage 2 as fd 3, a pipe the parent writes once and
// closes, in a small length-prefixed binary form (spec.go, fuzzed).
// Stage 2 answers over a SOCK_SEQPACKET socketpair (fd 4, close-on-exec):
// listeners and files handed back with SCM_RIGHTS, placeholders it
// created, an error with the step that failed, and "ready" with a pidfd
// of the command once its execve succeeded; then stage 2 closes the
// socket. Start returns only once the command runs, or with a *SetupError
// (or ErrUnavailable) and nothing left running — like os/exec's Start.
// A descriptor that arrives with a message that does not keep one is
// closed.
//
// Stdio is inherited. There is no setsid and no setpgid: the command
// stays in the caller's session and foreground process group, so it
// keeps the controlling terminal and job control works (^Z stops parent
// and command together; stage 2, the init, ignores it). The parent
// forwards SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 and SIGALRM to the command
// through its pidfd; SIGINT, SIGQUIT and SIGWINCH only when it is not in
// the terminal's foreground group (otherwise the terminal already
// delivered them to the command). Wait reports the exit status as a shell
// does. While the command runs, the parent is an idle Go process blocked
// in wait4 (it must wait to hand the exit status back and to forward
// signals), and stage 2 an idle one blocked in wait4 inside the
// namespace.
//
// # The root
//
// Stage 2 makes its mount tree private, clones every bind source's mount
// tree (open_tree, recursively) before anything is mounted, makes each
// read-only clone read-only while still detached (mount_setattr), mounts
// a tmpfs over /tmp as the new root and attaches the clones there with
// move_mount, shallowest destination first (tmpfs mounts are ordered
// with them). Destinations are opened with openat2(RESOLVE_BENEATH|
// RESOLVE_NO_SYMLINKS) beneath the new root, so a symlink can never send
// a mount elsewhere; missing mount points are created (directories, or
// empty files for file binds) in the root tmpfs. Binds are read-only
// unless RW, submounts included: mount_setattr(AT_RECURSIVE,
// MOUNT_ATTR_RDONLY) where the kernel has it (5.12), otherwise each mount
// of the tree is remounted MS_BIND|MS_REMOUNT|MS_RDONLY restating the
// nosuid/nodev/noexec/atime flags it has (as bubblewrap does: those are
// locked on mounts from the host and a remount clearing them fails).
// Chmod, chown, utime and setxattr on a read-only bind fail with EROFS.
//
// Masks: an empty read-only mode-000 tmpfs over a directory, a read-only
// bind of an empty mode-000 file over anything else. A masked path that
// does not exist gets a placeholder — its missing parent directories and
// an empty file, created on the host through the read-write bind that
// holds it — and the mask over that, so the command can neither create it
// nor remove or rename the mount point. Placeholders are reported
// (Child.Placeholders) and left in place: removing one would lift the
// mask of a concurrent run. None is needed, and none is made, where the
// command could not create the path either: under a read-only bind, on
// the root tmpfs (made read-only at the end), or under a directory it
// cannot write and does not own. Where it owns such a directory (it could
// chmod it), creation fails and Start refuses. A mask whose path goes
// through a symlink in the new root is refused.
//
// /dev (Spec.Dev) is a tmpfs with null, zero, full, random, urandom and
// tty bound from the host, the /proc/self/fd links, a private /dev/shm,
// and when the command's stdio is a terminal a new devpts instance with
// /dev/ptmx, so it can open pseudo-terminals without seeing the host's;
// then it is made read-only. /proc (Spec.Proc) is the PID namespace's
// own procfs, read-only (above). Nothing else exists: an outside Unix socket path is not there to
// connect to, and with Spec.Net the host's abstract sockets (which
// belong to the network namespace) are unreachable too.
//
// Finally the root tmpfs is made read-only, stage 2 pivots into it
// (pivot_root(".", ".") and a lazy unmount of the old root), changes to
// Spec.Workdir, brings lo up and opens Spec.Listen sockets (in the new
// network namespace), hands them back, drops capabilities, calls the
// launcher's Finalize hook (Landlock, seccomp) on the thread that then
// forks the command. A stage 2 without a Finalize hook linked refuses to
// run the command (fail closed: namespaces without Landlock and seccomp
// are not the sandbox the caller asked for).
//
// # Availability
//
// Available reads user.max_user_namespaces, Debian's
// kernel.unprivileged_userns_clone and Ubuntu's
// kernel.apparmor_restrict_unprivileged_userns; it never forks. A refusal
// it cannot see (a container's seccomp profile, AppArmor removing the
// capabilities of a confined program's namespace) makes Start fail with
// an error matching ErrUnavailable before anything ran, so the caller
// can still fall back. SetUnavailableForTest forces "unavailable" (tests of
// the fallback only; no environment variable does it). Kernel needs: open_tree/move_mount (5.2)
// and openat2 (5.6); mount_setattr (5.12) is optional.
//
// # Known limits
//
// A mount pins a dentry, not a name: renaming a writable ancestor of a
// mask moves the mask with it, after which the name can be created
// again. The launcher's Landlock layer must withhold rename/remove on the
// ancestors of masks for masks to be exact against a hostile command.
// A root caller's command runs as uid 0 without capabilities, so it
// cannot read other users' files it could read unsandboxed. ttyname(3)
// of the caller's terminal fails inside (the new devpts does not list
// it); the terminal itself works through the inherited descriptors and
// /dev/tty.
package nsroot
