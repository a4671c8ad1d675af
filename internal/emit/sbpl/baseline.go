package sbpl

import (
	"path"
	"path/filepath"
	"strconv"
	"strings"

	sbplan "github.com/jp-policy/jp-policy/internal/plan/sbpl"
)

// group is one named part of the macOS process-start baseline; each is a
// clause ("baseline.<name>") so `explain` can say why a path is reachable.
type group struct {
	id      string
	what    string
	entries []entry
}

// entry is one SBPL form of the baseline with why a program needs it and
// the working profile it is taken from, so every name in a profile has a
// precedent known to load and run (TestVocabulary checks the names).
type entry struct {
	rule string // one complete SBPL form
	why  string
	src  string
}

// Precedents the baseline cites. Each is a profile known to load and run
// real programs on current macOS.
const (
	srcCodex         = "Codex seatbelt_base_policy.sbpl"
	srcCodexPlatform = "Codex seatbelt_platform_defaults.sbpl, Apple's system.sb"
	srcCodexNet      = "Codex seatbelt_network_policy.sbpl"
	srcChromium      = "Chromium sandbox/policy/mac/common.sb"
	srcChromiumGPU   = "Chromium sandbox/policy/mac/gpu.sb"
	srcChromiumRend  = "Chromium sandbox/policy/mac/renderer.sb"
	srcXNU           = "xnu sys/ttycom.h: TIOCSTI is _IOW('t', 114, char)"
	srcJP            = "jp-policy"
)

// DefaultDeveloperDir is the developer directory assumed when the
// compiler could not ask `xcode-select -p` (compiling on Linux or
// Windows, or a Mac without the tools): where the Command Line Tools
// install.
const DefaultDeveloperDir = "/Library/Developer/CommandLineTools"

// CanonicalHome is a home directory as the profile names it (baseline.git):
// its links resolved, as the sandbox compares paths; "" when it is not
// absolute (HOME unset or relative), which leaves git's user config out.
func CanonicalHome(home string) string {
	if !filepath.IsAbs(home) {
		return ""
	}
	if real, err := filepath.EvalSymlinks(home); err == nil {
		return real
	}
	return filepath.Clean(home)
}

// TIOCSTI is the ioctl request number of TIOCSTI on macOS,
// _IOW('t', 114, char): IOC_IN | sizeof(char)<<16 | 't'<<8 | 114. The
// profile names it by number: sandbox-exec on macOS 14 does not bind the
// symbol ("unbound variable: TIOCSTI", openai/codex#45119).
const TIOCSTI uint32 = 0x80000000 | 1<<16 | 't'<<8 | 114

// systemExec lists where macOS keeps its own programs and libraries.
var systemExec = []string{"/bin", "/sbin", "/usr", "/System", "/Library/Apple"}

// sysctls are the sysctl names a process may read: the list Codex and
// Chromium give every sandboxed process (CPU and OS identification, page
// size, the host name, the load average, its own process table entries).
var sysctls = []string{
	"hw.activecpu", "hw.busfrequency_compat", "hw.byteorder", "hw.cacheconfig",
	"hw.cachelinesize_compat", "hw.cpufamily", "hw.cpufrequency", "hw.cpufrequency_compat",
	"hw.cputype", "hw.l1dcachesize_compat", "hw.l1icachesize_compat", "hw.l2cachesize_compat",
	"hw.l3cachesize_compat", "hw.logicalcpu", "hw.logicalcpu_max", "hw.machine", "hw.memsize",
	"hw.model", "hw.ncpu", "hw.nperflevels", "hw.packages", "hw.pagesize", "hw.pagesize_compat",
	"hw.physicalcpu", "hw.physicalcpu_max", "hw.tbfrequency_compat", "hw.vectorunit",
	"kern.argmax", "kern.hostname", "kern.maxfilesperproc", "kern.maxproc", "kern.osproductversion",
	"kern.osrelease", "kern.ostype", "kern.osvariant_status", "kern.osversion", "kern.secure_kernel",
	"kern.usrstack64", "kern.version", "machdep.cpu.brand_string", "sysctl.proc_cputype", "vm.loadavg",
}

var sysctlPrefixes = []string{"hw.optional.", "hw.perflevel", "kern.proc.pgrp.", "kern.proc.pid."}

// gitUserFiles are git's per-user configuration files, relative to the
// home directory (git-config(1), gitattributes(5), gitignore(5) with
// XDG_CONFIG_HOME unset).
var gitUserFiles = []string{".gitconfig", ".config/git/config", ".config/git/attributes", ".config/git/ignore"}

// services are the Mach services every program may look up.
var services = []entry{
	{`(global-name "com.apple.system.opendirectoryd.libinfo")`, "libc's user and group lookups (getpwuid)", srcChromium},
	{`(global-name "com.apple.system.opendirectoryd.membership")`, "group membership checks (getgrouplist, access checks in Security)", srcChromiumRend},
	{`(global-name "com.apple.system.logger")`, "the system log (asl)", srcChromium},
	{`(global-name "com.apple.logd")`, "the unified log (os_log)", srcChromium},
	{`(global-name "com.apple.system.notification_center")`, "notify(3): time zone and configuration change notices", srcCodexPlatform},
	{`(global-name "com.apple.cfprefsd.agent")`, "CFPreferences, read by every Foundation program", srcChromiumGPU},
	{`(global-name "com.apple.cfprefsd.daemon")`, "CFPreferences' system domain", srcChromiumGPU},
	{`(global-name "com.apple.bsd.dirhelper")`, "confstr(_CS_DARWIN_USER_TEMP_DIR) and the per-user cache directory", srcCodexNet},
	{`(global-name "com.apple.trustd")`, "TLS certificate evaluation (system trustd)", srcCodexPlatform},
	{`(global-name "com.apple.trustd.agent")`, "TLS certificate evaluation (user trustd)", srcCodexNet},
	{`(global-name "com.apple.SecurityServer")`, "Security framework's keychain-less trust queries", srcCodexNet},
}

// The baseline is what any program needs to start on macOS under
// (deny default), given the host facts the compiler found: dyld reads
// the shared cache and system libraries, libc asks opendirectoryd for the
// user record, Security asks trustd to verify TLS, the xcrun shims run
// tools from the developer directory, and everything logs. Reads outside
// these and the tool's grants stay denied: Codex and Chromium both read
// the whole disk; this baseline reads only what starting a program needs.
// Functions, not package-level values: their strings are built with
// quoted paths, which would be init work at every jp-policy start. It
// comes in two parts: staticBaseline, the same for every tool of a host
// (stored once in the artifact, Base), and toolBaseline.

// staticBaseline is the part of the baseline that is the same for every
// tool of a host.
func staticBaseline(devDir string) []group {
	var sys strings.Builder
	for _, n := range sysctls {
		sys.WriteString(" (sysctl-name " + Quote(n) + ")")
	}
	for _, n := range sysctlPrefixes {
		sys.WriteString(" (sysctl-name-prefix " + Quote(n) + ")")
	}
	var svc strings.Builder
	for _, s := range services {
		svc.WriteString("\n  " + s.rule + " ; " + s.why + " [" + s.src + "]")
	}
	dev := Quote(devDir)
	return []group{
		{"baseline.process", "fork, inspect and signal processes of the same sandbox; read CPU and OS sysctls; POSIX semaphores; host statistics", []entry{
			{`(allow process-fork)`, "shells and build tools fork", srcCodex},
			{`(allow process-info* (target same-sandbox))`, "ps, wait and rusage of the tool's own processes only", srcCodex},
			{`(allow signal (target same-sandbox))`, "job control within the tool; no signal reaches other processes", srcCodex},
			{`(allow sysctl-read` + sys.String() + `)`, "CPU count, page size, OS version (Go, Python, Node and the JVM read them at start)", srcCodex + ", " + srcChromium},
			{`(allow sysctl-write (sysctl-name "kern.grade_cputype"))`, "the JVM reads CPU information through a sysctl the kernel counts as a write", srcCodex},
			{`(allow mach-host*)`, "host_processor_info: Node's os.cpus() and libuv's thread pool sizing", srcCodex},
			{`(allow ipc-posix-sem)`, "sem_open: Python's multiprocessing locks", srcCodex},
			{`(allow user-preference-read)`, "CFPreferences reads (locale, number formats) of Foundation programs", srcCodex + ", " + srcChromium},
		}},
		{"baseline.runtime", "read, map and execute the system's programs and libraries (dyld shared cache included)", []entry{
			{`(allow file-read* ` + subpaths(systemExec) + ` (subpath "/private/var/db/dyld") (subpath "/System/Volumes/Preboot/Cryptexes"))`, "dyld loads the system libraries and the shared cache; the cryptexes hold Safari's and the OS's split-out libraries", srcChromium},
			{`(allow file-map-executable ` + subpaths(systemExec) + ` (subpath "/System/Volumes/Preboot/Cryptexes"))`, "mapping system libraries executable", srcCodexPlatform + ", " + srcChromium},
			{`(allow process-exec ` + subpaths(systemExec) + `)`, "the system's programs (sh, env, ls, the xcrun shims in /usr/bin)", srcCodex},
		}},
		{"baseline.developer", "the developer directory the xcrun shims (/usr/bin/git, python3, make, clang) run tools from: " + comment(devDir), []entry{
			{`(allow file-read* (subpath "/private/var/select"))`, "the shims read the selected developer directory from /var/select", srcJP},
			{`(allow file-read* (subpath ` + dev + `))`, "the tools and libraries the shims run", srcJP},
			{`(allow file-map-executable (subpath ` + dev + `))`, "their libraries are mapped executable", srcJP},
			{`(allow process-exec (subpath ` + dev + `))`, "the shims exec the real tool there", srcJP},
		}},
		{"baseline.paths", "resolve /etc, /tmp and /var (links into /private) and read the root directory", []entry{
			{`(allow file-read-metadata (literal "/etc") (literal "/tmp") (literal "/var"))`, "the links must be readable for any path through them to resolve (curl's /etc/ssl/cert.pem, /var/select)", srcCodexPlatform},
			{`(allow file-read* (literal "/"))`, "getcwd and realpath read the root directory itself (not what is beneath it)", srcCodexPlatform},
		}},
		{"baseline.etc", "user, host, service, time zone, TLS and git configuration under /private/etc", []entry{
			{`(allow file-read* (literal "/private/etc/passwd") (literal "/private/etc/group") (literal "/private/etc/hosts") (literal "/private/etc/services") (literal "/private/etc/protocols"))`, "libc's fallbacks when opendirectoryd does not answer", srcCodexPlatform + ", " + srcChromium},
			{`(allow file-read* (literal "/private/etc/localtime") (subpath "/private/var/db/timezone"))`, "the local time zone (localtime links into the time zone database)", srcChromium},
			{`(allow file-read* (subpath "/private/etc/ssl"))`, "the CA bundle curl and OpenSSL read (/etc/ssl/cert.pem)", srcJP},
			{`(allow file-read* (literal "/private/etc/gitconfig"))`, "git treats anything but 'no such file' on its system config as fatal", srcJP},
		}},
		{"baseline.dev", "the standard character devices and the terminal (ioctls except input injection)", []entry{
			{`(allow file-read* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/random") (literal "/dev/urandom") (literal "/dev/tty") (literal "/dev/dtracehelper"))`, "the standard devices", srcCodexPlatform},
			{`(allow file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/dtracehelper"))`, "writes to the null device, the terminal, and dyld's dtrace registration", srcCodexPlatform},
			{`(allow file-read* (subpath "/dev/fd"))`, "the descriptor file system: process substitution, /dev/stdin", srcCodexPlatform},
			{`(allow file-write-data (subpath "/dev/fd"))`, "writes through /dev/fd (/dev/stdout, /dev/stderr)", srcCodexPlatform},
			{`(allow file-ioctl (literal "/dev/tty") (literal "/dev/dtracehelper"))`, "terminal modes, window size; dyld registers its probes with an ioctl", srcChromium},
			{`(allow file-read-data (regex #"^/dev/ttys[0-9]+$"))`, "the terminal the tool inherited, by name (tty, isatty)", srcCodex},
			{`(allow file-write-data (regex #"^/dev/ttys[0-9]+$"))`, "writes to the inherited terminal", srcCodex},
			{`(allow file-ioctl (regex #"^/dev/ttys[0-9]+$"))`, "terminal ioctls on the inherited terminal (tcgetattr, window size)", srcCodex},
		}},
		{"baseline.services", "the system services libc, Foundation and Security use: user lookup, logging, notifications, preferences, temporary directories, TLS trust", []entry{
			{`(allow mach-lookup` + svc.String() + "\n)", "one line per service, each with its reason and precedent", srcChromium + ", " + srcCodexPlatform},
		}},
	}
}

// toolBaseline is the part of the baseline that depends on the tool and
// the user's home. outside is a filter that excludes the workspace and
// every grant ("" when there is nothing to exclude): the entries whose
// paths come from the run or the user (the scratch directory, the
// program, git's user config) reach nothing the policy speaks about, so
// inside the workspace and the grants the policy alone decides.
func toolBaseline(home, outside string) []group {
	only := func(f string) string {
		if outside == "" {
			return f
		}
		return "(require-all " + f + " " + outside + ")"
	}
	param := func(name string) string { return `(param "` + name + `")` }
	prog := only(`(literal `+param(sbplan.ProgramParam)+`)`) + " " + only(`(literal `+param(sbplan.ProgramRealParam)+`)`)
	tmp := only(`(subpath ` + param(sbplan.TmpDirParam) + `)`)
	gs := []group{
		{"baseline.tmp", "a private scratch directory for this run, passed as TMPDIR", []entry{
			{`(allow file-read* ` + tmp + `)`, "here-documents, Python's tempfile, compilers", srcCodex},
			{`(allow file-write* ` + tmp + `)`, "the tool creates and removes its temporary files", srcCodex},
		}},
		{"baseline.program", "the program the launcher starts (checked against the tool's commands) when it lives outside the workspace and the grants; inside them the fs rules decide", []entry{
			{`(allow file-read* ` + prog + `)`, "the program and the link leading to it", srcChromium},
			{`(allow file-map-executable ` + prog + `)`, "dyld maps the program's own image", srcChromium},
			{`(allow process-exec ` + prog + `)`, "the program itself (a Homebrew or user-installed tool outside the system directories)", srcChromium},
		}},
	}
	if home != "" {
		var files []string
		for _, f := range gitUserFiles {
			files = append(files, only(`(literal `+Quote(path.Join(home, f))+`)`))
		}
		gs = append(gs, group{"baseline.git", "git's user configuration (read only)", []entry{
			{`(allow file-read* ` + strings.Join(files, " ") + `)`, "git treats EPERM on its user config as fatal (it tolerates only 'no such file' and EACCES, which macOS's sandbox does not return) and warns on every command about its user attributes and ignore files", srcJP},
		}})
	}
	return gs
}

// lateBaseline comes after every allow of the profile, because SBPL lets
// the last matching rule win: the Unix socket denial is then lifted only
// for the log socket, and the TIOCSTI denial beats every file-ioctl allow.
func lateBaseline() []group {
	return []group{
		{"baseline.unix", "no outbound connection to any Unix socket (ssh-agent, docker, launchd services by path), the system log's excepted; names are resolved by the filtering proxy, not by the tool", []entry{
			{`(deny network-outbound (remote unix-socket))`, "already denied by (deny default); explicit so no later allow can open them by accident", srcJP},
			{`(allow network-outbound (literal "/private/var/run/syslog"))`, "syslog(3) writes to the log socket", srcChromium + ", " + srcCodexPlatform},
		}},
		{"baseline.terminal", "no terminal input injection (TIOCSTI), whatever file-ioctl allows", []entry{
			{`(deny file-ioctl (ioctl-command ` + strconv.FormatUint(uint64(TIOCSTI), 10) + `))`, "TIOCSTI pushes bytes into the terminal's input queue, which the user's shell runs after the tool exits; named by number, as macOS 14's sandbox-exec has no TIOCSTI symbol", srcXNU},
		}},
	}
}

func subpaths(ps []string) string {
	var s strings.Builder
	for i, p := range ps {
		if i > 0 {
			s.WriteString(" ")
		}
		s.WriteString("(subpath " + Quote(p) + ")")
	}
	return s.String()
}
