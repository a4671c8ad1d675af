package seccomp

import (
	"fmt"
)

// Inet says which Internet sockets a tool may create.
type Inet string

const (
	// InetNone: no AF_INET/AF_INET6 socket at all (a tool without net
	// rules). The empty string reads as InetNone, so a manifest that
	// forgets the field fails closed.
	InetNone Inet = "none"
	// InetTCP: TCP only (protocol 0 or IPPROTO_TCP; never MPTCP or SCTP).
	InetTCP Inet = "tcp"
	// InetTCPUDP: TCP, and UDP (protocol 0 or IPPROTO_UDP) so the tool can
	// resolve names itself; used only where no proxy resolves for it.
	InetTCPUDP Inet = "tcp+udp"
)

// Spec is the configurable part of the filter, as a Linux manifest
// carries it. Every field is phrased as an allowance, so the zero value
// is the most restrictive filter: a field a manifest lacks denies.
type Spec struct {
	Inet Inet `json:"inet"`
	// Listen allows listen(2): only with a TCP bind grant, or inside a
	// private network namespace (nothing outside can connect).
	Listen bool `json:"listen"`
	// Unix allows socket(AF_UNIX, ...). Only where the tool's filesystem
	// holds nothing but its grants and its network namespace is private,
	// so outside socket paths and abstract names do not exist for it.
	// socketpair(AF_UNIX) of stream and seqpacket sockets is always
	// allowed; datagram pairs only with Unix (a datagram socket can
	// sendto(2) any socket path).
	Unix bool `json:"unix"`
	// Metadata allows chmod, chown, utime and xattr writes. Landlock has
	// no right for them, so they are allowed only where read-only mounts
	// confine them to the write grants (EROFS elsewhere).
	Metadata bool `json:"metadata"`
	// XattrRead allows reading extended attributes by path (getxattr,
	// listxattr and their l/at forms). Landlock does not check them, so
	// outside the namespaced path (where paths outside the grants do not
	// exist) they answer as if the file had none; the descriptor forms,
	// which need a file Landlock let the tool open, always work.
	XattrRead bool `json:"xattr_read"`
}

// Validate refuses a spec this launcher does not understand.
func (s Spec) Validate() error {
	switch s.Inet {
	case "", InetNone, InetTCP, InetTCPUDP:
		return nil
	}
	return fmt.Errorf("seccomp: unknown inet mode %q", s.Inet)
}

func (s Spec) inet() Inet {
	if s.Inet == "" {
		return InetNone
	}
	return s.Inet
}

// Clause is one described part of the filter. Its Degree has one value
// more than plan.Status ("stricter"), which the Linux emitter maps to a
// plan.Clause; the plan imports this package (a manifest carries its
// Spec), so this package cannot use the plan's type.
type Clause struct {
	ID     string
	What   string
	Degree string // "enforced", "stricter" (denies more than the policy), "degraded"
	How    string
}

// Clauses describes what the filter built from s blocks, one clause per
// group, in a stable order.
func (s Spec) Clauses() []Clause {
	var cl []Clause
	switch s.inet() {
	case InetNone:
		cl = append(cl, Clause{"seccomp.sockets", "no Internet sockets (the tool has no net rule): socket(AF_INET/AF_INET6) fails with EPERM, and so does every family but AF_UNIX pairs", "enforced", ""})
	case InetTCP:
		cl = append(cl, Clause{"seccomp.sockets", "Internet sockets are TCP only (no MPTCP, SCTP, raw, packet or netlink sockets)", "enforced", ""})
	case InetTCPUDP:
		cl = append(cl, Clause{"seccomp.sockets", "Internet sockets are TCP, plus UDP for name resolution (no MPTCP, SCTP, raw, packet or netlink sockets)", "degraded",
			"UDP is not filtered by host or port, so DNS queries (and any UDP) reach any address; exact with the namespaced path, where a proxy resolves names"})
	}
	if s.Unix {
		cl = append(cl, Clause{"seccomp.unix", "Unix sockets are allowed: the tool's filesystem and network namespace are private, so only its own sockets exist", "enforced", ""})
	} else {
		cl = append(cl, Clause{"seccomp.unix", "no Unix sockets except stream and seqpacket socketpair(2): no connect or datagram to outside daemons (ssh-agent, docker, D-Bus, tmux, journald) and no abstract names", "enforced",
			"datagram pairs are refused too: a datagram socket can sendto(2) any socket path"})
	}
	cl = append(cl, Clause{"seccomp.fastopen", "no TCP Fast Open sends (MSG_FASTOPEN on sendto/sendmsg/sendmmsg), which would reach a port without connect(2)", "enforced", ""})
	if s.Listen {
		cl = append(cl, Clause{"seccomp.listen", "listen(2) is allowed (a bind grant, or a private network namespace)", "enforced", ""})
	} else {
		cl = append(cl, Clause{"seccomp.listen", "no listen(2): a socket cannot autobind a port that outside clients could reach", "enforced", ""})
	}
	cl = append(cl,
		Clause{"seccomp.tty", "no terminal input injection or takeover: ioctl TIOCSTI, TIOCLINUX and TIOCSPGRP fail, so the tool cannot type into the user's shell, nor a process it leaves behind make itself the terminal's foreground group", "enforced",
			"shells with job control inside the tool run without it"},
		Clause{"seccomp.keyring", "no kernel keyring (keyctl, add_key, request_key)", "enforced", ""},
		Clause{"seccomp.handles", "no file handles (name_to_handle_at, open_by_handle_at), which would open files by inode, around masks", "enforced", ""},
		Clause{"seccomp.other_process", "resource limits, priority, CPU affinity, scheduling and I/O priority only of the tool's own process (prlimit64, setpriority, sched_set*, ioprio_set, migrate_pages, move_pages with another pid fail)", "enforced",
			"a thread that pins or re-prioritises its own threads by thread id gets EPERM too"},
		Clause{"seccomp.kernel", "no new namespaces (unshare, setns, clone with CLONE_NEW*; clone3 answers ENOSYS so libc falls back to clone), no io_uring (its operations bypass this filter), bpf, perf_event_open, userfaultfd, kexec or module loading", "enforced",
			"programs that sandbox themselves with namespaces (bwrap, browsers) cannot do so inside"},
	)
	if s.Metadata {
		cl = append(cl, Clause{"seccomp.metadata", "chmod, chown, utime, xattr and file attribute flag writes are allowed; read-only mounts confine them to the write grants (EROFS elsewhere); set-user-ID and set-group-ID modes are refused", "enforced", ""})
	} else {
		cl = append(cl, Clause{"seccomp.metadata", "no metadata writes (chmod, chown, utime, xattr, file attribute flags) anywhere: Landlock has no right for them", "stricter",
			"refused inside write grants too (chmod +x, cp -p, tar's modes and times fail); only setting an open descriptor's times to now (utimensat(fd, NULL, NULL), what touch does) is allowed"})
	}
	if s.XattrRead {
		cl = append(cl, Clause{"seccomp.xattr_read", "extended attributes are readable by path: only the grants exist", "enforced", ""})
	} else {
		cl = append(cl, Clause{"seccomp.xattr_read", "extended attributes are read only through open descriptors: getxattr by path answers ENODATA and listxattr by path an empty list, so attributes of files outside the grants (user.xdg.origin.url with its tokens) stay hidden", "stricter",
			"inside the grants too: ls shows no ACL marks, getfattr by path shows nothing"})
	}
	cl = append(cl, Clause{"seccomp.arch", "system calls of foreign ABIs (i386 and x32 on amd64, AArch32 on arm64) fail with ENOSYS", "enforced", ""})
	return cl
}
