package landlock

import (
	"strings"

	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"

	"github.com/jp-policy/jp-policy/internal/plan"
)

// baselineGroup is one named part of the system baseline: the grants any
// ordinary program needs before it does anything the policy is about
// (load its libraries, look up its user, resolve a name, verify TLS, read
// the time zone, write to /dev/null).
type baselineGroup struct {
	id    string // clause ID, "baseline.<name>"
	what  string
	paths []baselinePath
}

type baselinePath struct {
	path     string
	rights   ll.Rights
	optional bool
}

var (
	rx     = ll.RReadFile | ll.RReadDir | ll.RExecute
	rdir   = ll.RReadFile | ll.RReadDir
	rfile  = ll.RReadFile
	devRW  = ll.RReadFile | ll.RWriteFile | ll.RTruncate
	ttyRW  = ll.RReadFile | ll.RWriteFile | ll.RIoctlDev
	devRO  = ll.RReadFile
	procRO = ll.RReadFile | ll.RReadDir
	shmRW  = ll.RReadFile | ll.RWriteFile | ll.RReadDir | ll.RMakeReg | ll.RRemoveFile | ll.RTruncate
)

// baseline is the Linux system baseline. /usr is the one path every
// distribution has; the rest differ (merged /usr, multilib, NixOS, musl),
// so they are optional and skipped when absent at launch.
var baseline = []baselineGroup{
	{"baseline.runtime", "read and execute the system's programs and libraries", []baselinePath{
		{"/usr", rx, false},
		{"/bin", rx, true},
		{"/sbin", rx, true},
		{"/lib", rx, true},
		{"/lib32", rx, true},
		{"/lib64", rx, true},
		{"/libx32", rx, true},
	}},
	{"baseline.loader", "the dynamic loader's configuration", []baselinePath{
		{"/etc/ld.so.cache", rfile, true},
		{"/etc/ld.so.conf", rfile, true},
		{"/etc/ld.so.conf.d", rdir, true},
		{"/etc/ld.so.preload", rfile, true},
	}},
	{"baseline.nss", "user, group, host and service lookups (name service switch, DNS resolver)", []baselinePath{
		{"/etc/nsswitch.conf", rfile, true},
		{"/etc/passwd", rfile, true},
		{"/etc/group", rfile, true},
		{"/etc/host.conf", rfile, true},
		{"/etc/hosts", rfile, true},
		{"/etc/resolv.conf", rfile, true},
		{"/etc/gai.conf", rfile, true},
		{"/etc/services", rfile, true},
		{"/etc/protocols", rfile, true},
	}},
	{"baseline.tls", "the system's TLS trust store", []baselinePath{
		{"/etc/ssl", rdir, true},
		{"/etc/pki", rdir, true},
		{"/etc/ca-certificates", rdir, true},
		{"/etc/ca-certificates.conf", rfile, true},
	}},
	{"baseline.locale", "time zone and locale settings", []baselinePath{
		{"/etc/localtime", rfile, true},
		{"/etc/timezone", rfile, true},
		{"/etc/locale.conf", rfile, true},
		{"/etc/default/locale", rfile, true},
		{"/etc/mime.types", rfile, true},
	}},
	// Not here: /etc/pip.conf, /etc/xdg/pip and /etc/npmrc, which often
	// hold a registry's credentials (index-url with a token, _authToken).
	// A tool that needs one gets it through a mount, as for any file
	// outside the workspace.
	{"baseline.tools", "system-wide configuration of common developer tools and the distribution's identity (git reads /etc/gitconfig and treats a denial as fatal; pip reads /etc/debian_version and crashes on EACCES, which Landlock gives where the file was meant to be missing)", []baselinePath{
		{"/etc/gitconfig", rfile, true},
		{"/etc/os-release", rfile, true},
		{"/etc/lsb-release", rfile, true},
		{"/etc/debian_version", rfile, true},
		{"/etc/ssh/ssh_config", rfile, true},
		{"/etc/ssh/ssh_config.d", rdir, true},
	}},
	{"baseline.dev", "the standard character devices (/dev/tty with terminal ioctls)", []baselinePath{
		{"/dev/null", devRW, false},
		{"/dev/zero", devRO, true},
		{"/dev/full", devRW, true},
		{"/dev/random", devRO, true},
		{"/dev/urandom", devRO, true},
		{"/dev/tty", ttyRW, true},
	}},
	{"baseline.shm", "POSIX shared memory and semaphores in /dev/shm (Python's multiprocessing locks, sem_open)", []baselinePath{
		{"/dev/shm", shmRW, true},
	}},
	{"baseline.proc", "the process's own /proc entry, the CPU list, and the CPU, memory and scheduler statistics runtimes size themselves from (/proc/cpuinfo, /proc/stat, /proc/meminfo: Node's os.cpus(), worker pools)", []baselinePath{
		{"/proc/self", procRO, true},
		{"/proc/cpuinfo", rfile, true},
		{"/proc/stat", rfile, true},
		{"/proc/meminfo", rfile, true},
		{"/sys/devices/system/cpu", rdir, true},
	}},
}

// baselineRules returns the baseline grants, grouped and ordered as
// declared so the manifest reads like the table in docs/enforcement.md.
func baselineRules() []ll.PathRule {
	var out []ll.PathRule
	for _, g := range baseline {
		for _, p := range g.paths {
			out = append(out, ll.PathRule{Path: p.path, Access: p.rights.Names(), Clause: g.id, Optional: p.optional})
		}
	}
	return out
}

func baselineClauses() []plan.Clause {
	var out []plan.Clause
	for _, g := range baseline {
		var r ll.Rights
		for _, p := range g.paths {
			r |= p.rights
		}
		c := plan.Clause{ID: g.id, What: g.what, Status: plan.Enforced, MinABI: r.MinABI()}
		switch g.id {
		case "baseline.proc":
			c.Status = plan.Degraded
			c.How = "/proc/self is resolved by the launcher, so it names the tool's own process; processes the tool starts cannot read their own /proc entry"
		case "baseline.shm":
			c.Status = plan.Degraded
			c.How = "/dev/shm is shared with the host: the tool can read and write other same-user processes' POSIX shared memory there; the namespaced path gives it a private one"
		case "baseline.dev":
			c.How = "/dev/tty ioctls need ABI 5; below it device ioctls are not restricted at all"
		}
		out = append(out, c)
	}
	return out
}

// BaselineRights is the union of the baseline's rights on the absolute
// path p: those of every baseline entry that is p or a directory above
// it. learn asks it so that it proposes nothing the baseline grants.
func BaselineRights(p string) ll.Rights {
	var r ll.Rights
	for _, g := range baseline {
		for _, b := range g.paths {
			if p == b.path || strings.HasPrefix(p, b.path+"/") {
				r |= b.rights
			}
		}
	}
	return r
}
