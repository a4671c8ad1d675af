package sbpl

import "strings"

// group is one named part of the macOS process-start baseline; each is a
// clause ("baseline.<name>") so `explain` can say why a path is reachable.
type group struct {
	id    string
	what  string
	rules []string // complete SBPL forms
}

// systemExec lists where macOS keeps its own programs and libraries.
var systemExec = []string{"/bin", "/sbin", "/usr", "/System", "/Library/Apple"}

// baseline is what any program needs to start on macOS under
// (deny default): dyld reads the shared cache and system libraries, libc
// asks opendirectoryd for the user record, Security asks trustd to verify
// TLS, and everything logs. A function, not a package-level value: its
// strings are built with subpaths, which would be init work at every
// jp-policy start on every OS.
func baseline() []group {
	return []group{
		{"baseline.process", "fork, inspect and signal processes of the same sandbox; read sysctls", []string{
			`(allow process-fork)`,
			`(allow process-info* (target same-sandbox))`,
			`(allow signal (target same-sandbox))`,
			`(allow sysctl-read)`,
		}},
		{"baseline.runtime", "read, map and execute the system's programs and libraries (dyld shared cache included)", []string{
			`(allow file-read* ` + subpaths(systemExec) + ` (subpath "/private/var/db/dyld") (subpath "/System/Volumes/Preboot/Cryptexes"))`,
			`(allow file-map-executable ` + subpaths(systemExec) + ` (subpath "/System/Volumes/Preboot/Cryptexes"))`,
			`(allow process-exec ` + subpaths(systemExec) + `)`,
		}},
		{"baseline.services", "the system services libc and Security use: user lookup, logging, notifications, TLS trust", []string{
			`(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo") (global-name "com.apple.system.logger") (global-name "com.apple.logd") (global-name "com.apple.system.notification_center") (global-name "com.apple.trustd.agent") (global-name "com.apple.SecurityServer"))`,
		}},
		{"baseline.etc", "user, host, service, time zone and TLS configuration under /private/etc", []string{
			`(allow file-read* (literal "/private/etc/passwd") (literal "/private/etc/group") (literal "/private/etc/hosts") (literal "/private/etc/services") (literal "/private/etc/protocols") (literal "/private/etc/localtime") (subpath "/private/var/db/timezone") (subpath "/private/etc/ssl"))`,
		}},
		{"baseline.dev", "the standard character devices; /dev/tty with terminal ioctls except input injection (TIOCSTI)", []string{
			`(allow file-read* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/random") (literal "/dev/urandom") (literal "/dev/tty") (subpath "/dev/fd"))`,
			`(allow file-write-data (literal "/dev/null") (literal "/dev/tty"))`,
			`(allow file-ioctl (literal "/dev/tty"))`,
			// TIOCSTI pushes bytes into the terminal's input queue, so the
			// user's shell would run them after the tool exits. A later rule
			// wins in SBPL, and no later rule allows file-ioctl. Apple's own
			// profiles name ioctls symbolically in ioctl-command filters.
			`(deny file-ioctl (ioctl-command TIOCSTI))`,
		}},
		{"baseline.unix", "no outbound connections to Unix sockets (ssh-agent, docker, launchd services by path) except the name resolver's when the tool has net rules", []string{
			`(deny network-outbound (remote unix-socket))`,
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
