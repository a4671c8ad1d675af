//go:build linux

package learn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// foreignABI is the SECCOMP_RET_DATA of a traced call of another ABI.
const foreignABI = 1

// kind is how the tracer reads one traced system call.
type kind uint8

const (
	kOpen kind = iota + 1
	kOpenat
	kOpenat2
	kCreat
	kExecve
	kExecveat
	kMkdir
	kMkdirat
	kMknod
	kMknodat
	kUnlink
	kUnlinkat
	kRmdir
	kRename
	kRenameat
	kRenameat2
	kLink
	kLinkat
	kSymlink
	kSymlinkat
	kTruncate
	kChmod
	kFchmodat
	kChown
	kLchown
	kFchownat
	kUtimes
	kUtimensat
	kConnect
	kSendto
	kSendmsg
	kSendmmsg
)

type call struct {
	nr   uint64
	kind kind
}

// commonCalls exist on both architectures.
var commonCalls = []call{
	{unix.SYS_OPENAT, kOpenat},
	{unix.SYS_OPENAT2, kOpenat2},
	{unix.SYS_EXECVE, kExecve},
	{unix.SYS_EXECVEAT, kExecveat},
	{unix.SYS_MKDIRAT, kMkdirat},
	{unix.SYS_MKNODAT, kMknodat},
	{unix.SYS_UNLINKAT, kUnlinkat},
	{unix.SYS_RENAMEAT, kRenameat},
	{unix.SYS_RENAMEAT2, kRenameat2},
	{unix.SYS_LINKAT, kLinkat},
	{unix.SYS_SYMLINKAT, kSymlinkat},
	{unix.SYS_TRUNCATE, kTruncate},
	{unix.SYS_FCHMODAT, kFchmodat},
	{unix.SYS_FCHOWNAT, kFchownat},
	{unix.SYS_UTIMENSAT, kUtimensat},
	{unix.SYS_CONNECT, kConnect},
	{unix.SYS_SENDTO, kSendto},
	{unix.SYS_SENDMSG, kSendmsg},
	{unix.SYS_SENDMMSG, kSendmmsg},
}

func callKinds() map[uint64]kind {
	m := make(map[uint64]kind, len(commonCalls)+len(archCalls))
	for _, c := range append(append([]call(nil), commonCalls...), archCalls...) {
		m[c.nr] = c.kind
	}
	return m
}

// Supported reports whether this build can observe a command.
func Supported() error {
	if auditArch == 0 {
		return fmt.Errorf("learn is built for linux/amd64 and linux/arm64, not linux/%s", runtime.GOARCH)
	}
	return nil
}

// DenialsEnv, set to "1" in the environment of the `jp-policy exec` that
// RunDenials starts, makes exec install TraceFilter on the thread that
// execs the tool, just before the tool's own filter: the tracer then stops
// at the tool's calls and at none of exec's own (reading its plan,
// manifest and pins). exec passes no such variable to the tool unless a
// rule names it; set by anyone else it installs a filter with no tracer,
// under which the traced calls fail with ENOSYS.
const DenialsEnv = "JP_POLICY_DENIALS_TRACE"

// TraceFilter is the seccomp program learn's tracer reads calls through.
func TraceFilter() ([]bpf.RawInstruction, error) {
	if err := Supported(); err != nil {
		return nil, err
	}
	return traceProgram(retTrace)
}

// seccomp filter actions (linux/seccomp.h).
const (
	retTrace     = 0x7ff00000 // SECCOMP_RET_TRACE: a ptrace stop (exec --denials)
	retUserNotif = 0x7fc00000 // SECCOMP_RET_USER_NOTIF: a notification (learn)
	retAllow     = 0x7fff0000
)

// traceProgram is the observed command's seccomp filter: ret for every
// call the observer reads and for any call of a foreign architecture or
// ABI (so none slips past unseen; with SECCOMP_RET_TRACE it carries
// foreignABI), SECCOMP_RET_ALLOW for the rest.
func traceProgram(ret uint32) ([]bpf.RawInstruction, error) {
	calls := append(append([]call(nil), commonCalls...), archCalls...)
	// seccomp_data: nr (u32) at 0, arch (u32) at 4.
	// A call of another ABI is picked too (with data 1 for a ptrace
	// tracer; a notification carries the architecture and number): the
	// observer cannot read its arguments with this ABI's numbers, so it
	// reports the run as not fully observed.
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: auditArch, SkipTrue: 1},
		bpf.RetConstant{Val: ret | foreignABI},
		bpf.LoadAbsolute{Off: 0, Size: 4},
	}
	if x32Bit != 0 {
		prog = append(prog,
			bpf.JumpIf{Cond: bpf.JumpBitsNotSet, Val: x32Bit, SkipTrue: 1},
			bpf.RetConstant{Val: ret | foreignABI})
	}
	for i, c := range calls {
		// Jump to the shared ret after the list on a match.
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(c.nr), SkipTrue: uint8(len(calls) - i)})
	}
	prog = append(prog, bpf.RetConstant{Val: retAllow}, bpf.RetConstant{Val: ret})
	return bpf.Assemble(prog)
}

// Result is how an observed run ended.
type Result struct {
	// ExitCode is the command's status as a shell reports it: the code,
	// or 128+n for signal n.
	ExitCode int
	Obs      Observations
	// ForeignABI is set when the command made system calls of another
	// ABI (x32, or i386 through int 0x80), whose arguments learn does not
	// read: the proposal may then miss what those calls did.
	ForeignABI bool
}

// pending is a traced call between its entry and its exit.
type pending struct {
	kind  kind
	fa    []FileAccess // recorded if the call succeeds
	conn  *Connect
	dnsFD int  // connect to port 53: the socket is a resolver's
	exist bool // mkdir: EEXIST counts as the directory it would create
}

// tracer is the state of one observed run. Its methods run on one
// goroutine at a time: under ptrace (exec --denials) on the locked OS
// thread that started the command, as ptrace requests must come from the
// tracer thread; under learn on the goroutine that answers notifications.
type tracer struct {
	kinds   map[uint64]kind
	pending map[int]*pending
	known   map[int]bool // tids seen
	dnsFDs  map[[2]int]bool
	names   map[string]bool // DNS names queried
	obs     Observations
	dirs    map[string]string // directory as named -> canonical
	foreign bool              // a call of another ABI was made
	denials bool              // record refused calls, not successful ones
	ended   bool              // denials: the command exited, the rest is killed
	denied  map[denialKey]bool
	lookup  lookupFunc // resolves the names queried; nil: none is
}

// Run starts argv in dir with env, observed, and returns what it did
// once it and every process it started have ended.
func Run(argv []string, dir string, env []string) (*Result, error) {
	return run(argv, dir, env, false, net.DefaultResolver.LookupNetIP)
}

// RunDenials starts argv like Run but records the calls that failed for
// want of permission (EACCES, EPERM, EROFS: what Landlock, a read-only
// bind or a mask answers) in Obs.Denied and Obs.DeniedConnects, instead
// of the ones that succeeded: what `jp-policy exec --denials` reports.
func RunDenials(argv []string, dir string, env []string) (*Result, error) {
	return run(argv, dir, env, true, nil)
}

// lookupFunc resolves a name, as net.Resolver.LookupNetIP does.
type lookupFunc func(ctx context.Context, network, host string) ([]netip.Addr, error)

func run(argv []string, dir string, env []string, denials bool, lookup lookupFunc) (*Result, error) {
	if err := Supported(); err != nil {
		return nil, err
	}
	if len(argv) == 0 {
		return nil, errors.New("no command")
	}
	// Signals the terminal sends go to the command; the observer stays
	// to report what it did.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	bin, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	t := &tracer{
		denials: denials,
		lookup:  lookup,
		kinds:   callKinds(),
		pending: map[int]*pending{},
		known:   map[int]bool{},
		dnsFDs:  map[[2]int]bool{},
		names:   map[string]bool{},
		dirs:    map[string]string{},
		denied:  map[denialKey]bool{},
	}
	var code int
	if denials {
		code, err = t.runTraced(bin, argv, dir, env)
	} else {
		code, err = t.runNotify(bin, argv, dir, env)
	}
	if err != nil {
		return nil, err
	}
	// Only learn, which runs a command the user trusts, looks names up:
	// under exec --denials the command is a sandboxed tool, and a lookup
	// of a name it chose, made from out here, would carry data past a
	// sandbox that gives it no network (DNS exfiltration).
	if !t.denials && t.lookup != nil {
		t.resolveNames()
	}
	return &Result{ExitCode: code, Obs: t.obs, ForeignABI: t.foreign}, nil
}

// runTraced runs `jp-policy exec` (argv, found at bin) under ptrace for
// exec --denials, and returns its exit status once it and every process
// it started have ended. exec installs the trace filter itself on the
// thread that execs the tool (DenialsEnv), so the tracer stops at the
// tool's calls and at none of exec's own.
func (t *tracer) runTraced(bin string, argv []string, dir string, env []string) (int, error) {
	// ptrace requests must come from the thread that started the command.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pid, err := syscall.ForkExec(bin, argv, &syscall.ProcAttr{
		Dir:   dir,
		Env:   append(slices.Clone(env), DenialsEnv+"=1"),
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Ptrace: true},
	})
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", argv[0], err)
	}
	t.known[pid] = true
	// exec stops at its own execve (PTRACE_TRACEME).
	var ws unix.WaitStatus
	if _, err := wait4(pid, &ws); err != nil {
		return 0, err
	}
	if !ws.Stopped() {
		return 0, fmt.Errorf("the observed command did not start (status %v)", ws)
	}
	opts := unix.PTRACE_O_TRACESECCOMP | unix.PTRACE_O_TRACEFORK | unix.PTRACE_O_TRACEVFORK |
		unix.PTRACE_O_TRACECLONE | unix.PTRACE_O_TRACEEXEC | unix.PTRACE_O_TRACESYSGOOD | unix.PTRACE_O_EXITKILL
	if err := unix.PtraceSetOptions(pid, opts); err != nil {
		unix.Kill(pid, unix.SIGKILL)
		return 0, fmt.Errorf("ptrace(PTRACE_SETOPTIONS): %w", err)
	}
	if err := unix.PtraceCont(pid, 0); err != nil {
		unix.Kill(pid, unix.SIGKILL)
		return 0, fmt.Errorf("ptrace(PTRACE_CONT): %w", err)
	}
	code := -1
	for {
		tid, err := wait4(-1, &ws)
		if errors.Is(err, unix.ECHILD) {
			break
		}
		if err != nil {
			unix.Kill(pid, unix.SIGKILL)
			return 0, err
		}
		switch {
		case ws.Exited() || ws.Signaled():
			delete(t.pending, tid)
			delete(t.known, tid)
			if tid == pid {
				if ws.Exited() {
					code = ws.ExitStatus()
				} else {
					code = 128 + int(ws.Signal())
				}
				if t.denials {
					// Under exec --denials the command is a sandboxed
					// tool: a process it leaves running would hold the
					// report, and whoever waits for exec, for as long
					// as it likes (plain exec returns when the command
					// exits). Its calls are traced, so it cannot go on
					// without the tracer: it ends with the command.
					t.ended = true
					for k := range t.known {
						unix.Kill(k, unix.SIGKILL)
					}
				}
			}
		case ws.Stopped() && t.ended:
			// Started as the command ended (its fork event came late).
			unix.Kill(tid, unix.SIGKILL)
		case ws.Stopped():
			t.stop(tid, ws)
		}
	}
	if code < 0 {
		return 0, errors.New("lost the observed command's exit status")
	}
	return code, nil
}

func wait4(pid int, ws *unix.WaitStatus) (int, error) {
	for {
		tid, err := unix.Wait4(pid, ws, unix.WALL, nil)
		if err == unix.EINTR {
			continue
		}
		return tid, err
	}
}

// stop handles one ptrace stop of tid and resumes it.
func (t *tracer) stop(tid int, ws unix.WaitStatus) {
	sig := ws.StopSignal()
	resume := func(s int) {
		if t.pending[tid] != nil {
			unix.PtraceSyscall(tid, s)
		} else {
			unix.PtraceCont(tid, s)
		}
	}
	if !t.known[tid] {
		// A new thread or process, auto-attached; its first stop is the
		// SIGSTOP ptrace sends it (which may come before its parent's
		// event).
		t.known[tid] = true
		if sig == unix.SIGSTOP {
			resume(0)
			return
		}
	}
	switch {
	case sig == unix.SIGTRAP|0x80:
		// Syscall-exit stop of a call we are reading.
		t.exit(tid)
		unix.PtraceCont(tid, 0)
	case sig == unix.SIGTRAP && ws.TrapCause() == unix.PTRACE_EVENT_SECCOMP:
		if info, ok := syscallInfo(tid); ok && info.op == unix.PTRACE_SYSCALL_INFO_SECCOMP {
			if info.retData == foreignABI {
				t.foreign = true
			} else {
				if p := t.enter(tid, info.nr, info.args); p != nil {
					t.pending[tid] = p
				}
			}
		}
		if t.pending[tid] != nil {
			unix.PtraceSyscall(tid, 0)
		} else {
			unix.PtraceCont(tid, 0)
		}
	case sig == unix.SIGTRAP && ws.TrapCause() == unix.PTRACE_EVENT_EXEC:
		// A thread other than the leader that execs takes the leader's
		// id: its call in flight moves with it.
		if former, err := unix.PtraceGetEventMsg(tid); err == nil && int(former) != tid {
			if p := t.pending[int(former)]; p != nil {
				t.pending[tid] = p
				delete(t.pending, int(former))
			}
		}
		resume(0)
	case sig == unix.SIGTRAP && ws.TrapCause() > 0:
		// Fork, vfork, clone: the new task is attached already.
		if child, err := unix.PtraceGetEventMsg(tid); err == nil {
			if !t.known[int(child)] {
				// Its SIGSTOP is still to come.
				t.known[int(child)] = false
			}
		}
		resume(0)
	case sig == unix.SIGSTOP && !t.known[tid]:
		resume(0)
	default:
		// A signal for the command: deliver it.
		resume(int(sig))
	}
}

// ptraceSyscallInfo is struct ptrace_syscall_info (linux/ptrace.h) at a
// seccomp stop or a syscall-exit stop, the two stops the tracer reads.
type ptraceSyscallInfo struct {
	Op   uint8
	_    [3]uint8
	Arch uint32
	IP   uint64
	SP   uint64
	// The union: seccomp {nr, args[6], ret_data} or exit {rval, is_error}.
	U [8]uint64
}

// stopInfo is what the tracer reads of a stop's system call.
type stopInfo struct {
	op      uint8
	nr      uint64
	args    [6]uint64
	retData uint32
	rval    int64
}

// syscallInfo reads tid's system call at its stop with one request
// (PTRACE_GET_SYSCALL_INFO): the number, the arguments and the filter's
// SECCOMP_RET_DATA at a seccomp stop, the result at a syscall-exit stop.
// false when the thread is gone.
func syscallInfo(tid int) (stopInfo, bool) {
	var raw ptraceSyscallInfo
	_, _, errno := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_GET_SYSCALL_INFO, uintptr(tid),
		unsafe.Sizeof(raw), uintptr(unsafe.Pointer(&raw)), 0, 0)
	if errno != 0 {
		return stopInfo{}, false
	}
	in := stopInfo{op: raw.Op}
	switch raw.Op {
	case unix.PTRACE_SYSCALL_INFO_SECCOMP:
		in.nr = raw.U[0]
		copy(in.args[:], raw.U[1:7])
		in.retData = uint32(raw.U[7])
	case unix.PTRACE_SYSCALL_INFO_EXIT:
		in.rval = int64(raw.U[0])
	}
	return in, true
}

// enter reads a traced call at its entry and returns what its outcome
// decides; nil when there is nothing to record whatever the outcome.
func (t *tracer) enter(tid int, nr uint64, a [6]uint64) *pending {
	k, ok := t.kinds[nr]
	if !ok {
		return nil
	}
	p := &pending{kind: k, dnsFD: -1}
	fd := func(i int) int { return int(int32(a[i])) }
	path := func(dirfd int, i int) (string, bool) {
		s, err := readString(tid, a[i])
		if err != nil || s == "" {
			return "", false
		}
		return t.abs(tid, dirfd, s), true
	}
	at := unix.AT_FDCWD
	switch k {
	case kOpen, kOpenat, kOpenat2, kCreat:
		var name string
		var ok bool
		var flags uint64
		switch k {
		case kOpen:
			name, ok = path(at, 0)
			flags = a[1]
		case kCreat:
			name, ok = path(at, 0)
			flags = unix.O_CREAT | unix.O_WRONLY | unix.O_TRUNC
		case kOpenat:
			name, ok = path(fd(0), 1)
			flags = a[2]
		case kOpenat2:
			name, ok = path(fd(0), 1)
			flags = readU64(tid, a[2])
		}
		if !ok {
			return nil
		}
		p.fa = openAccesses(t, name, flags)
	case kExecve:
		if name, ok := path(at, 0); ok {
			p.fa = []FileAccess{{t.canon(name, true), OpExecute | OpRead}}
		}
	case kExecveat:
		if name, ok := path(fd(0), 1); ok {
			p.fa = []FileAccess{{t.canon(name, a[4]&unix.AT_SYMLINK_NOFOLLOW == 0), OpExecute | OpRead}}
		}
	case kMkdir, kMknod, kSymlink:
		i := 0
		if k == kSymlink {
			i = 1
		}
		if name, ok := path(at, i); ok {
			p.fa = []FileAccess{{t.canon(name, false), OpCreate}}
		}
		p.exist = k == kMkdir
	case kMkdirat, kMknodat:
		if name, ok := path(fd(0), 1); ok {
			p.fa = []FileAccess{{t.canon(name, false), OpCreate}}
		}
		p.exist = k == kMkdirat
	case kSymlinkat:
		if name, ok := path(fd(1), 2); ok {
			p.fa = []FileAccess{{t.canon(name, false), OpCreate}}
		}
	case kUnlink, kRmdir:
		if name, ok := path(at, 0); ok {
			p.fa = []FileAccess{{t.canon(name, false), OpDelete}}
		}
	case kUnlinkat:
		if name, ok := path(fd(0), 1); ok {
			p.fa = []FileAccess{{t.canon(name, false), OpDelete}}
		}
	case kRename, kRenameat, kRenameat2, kLink, kLinkat:
		var from, to string
		var ok1, ok2 bool
		if k == kRename || k == kLink {
			from, ok1 = path(at, 0)
			to, ok2 = path(at, 1)
		} else {
			from, ok1 = path(fd(0), 1)
			to, ok2 = path(fd(2), 3)
		}
		if !ok1 || !ok2 {
			return nil
		}
		dst := t.canon(to, false)
		toOp := OpCreate
		if exists(dst, false) {
			// Replacing an entry removes the old one.
			toOp |= OpDelete | OpUpdate
		}
		p.fa = []FileAccess{{dst, toOp}}
		if k == kRename || k == kRenameat || k == kRenameat2 {
			p.fa = append(p.fa, FileAccess{t.canon(from, false), OpDelete})
		} else {
			p.fa = append(p.fa, FileAccess{t.canon(from, false), OpRead})
		}
	case kTruncate, kChmod, kChown, kUtimes:
		if name, ok := path(at, 0); ok {
			p.fa = []FileAccess{{t.canon(name, true), OpUpdate}}
		}
	case kLchown:
		if name, ok := path(at, 0); ok {
			p.fa = []FileAccess{{t.canon(name, false), OpUpdate}}
		}
	case kFchmodat, kFchownat, kUtimensat:
		if a[1] == 0 {
			return nil // utimensat(fd, NULL, ...): the descriptor's file, opened before
		}
		// fchmodat(2) has no flags argument: it always follows.
		follow := true
		switch k {
		case kUtimensat:
			follow = a[3]&unix.AT_SYMLINK_NOFOLLOW == 0
		case kFchownat:
			follow = a[4]&unix.AT_SYMLINK_NOFOLLOW == 0
		}
		if name, ok := path(fd(0), 1); ok {
			p.fa = []FileAccess{{t.canon(name, follow), OpUpdate}}
		}
	case kConnect:
		p.conn, p.dnsFD = t.sockaddr(tid, a[1], a[2])
		if p.dnsFD == 1 {
			p.dnsFD = fd(0)
			p.conn = nil
		}
	case kSendto, kSendmsg, kSendmmsg:
		if !t.denials {
			t.dnsQuery(tid, k, fd(0), a)
		}
		return nil
	}
	if p.conn == nil && p.dnsFD < 0 && systemRead(p.fa) {
		// The loader's and the system's own files, read: exec's
		// baseline grants them to every tool, so neither learn nor
		// --denials has anything to say, and the call's exit is not
		// worth a second stop (every dynamically linked program opens
		// a dozen of them).
		return nil
	}
	if p.fa != nil || p.conn != nil || p.dnsFD >= 0 {
		return p
	}
	return nil
}

// systemPrefixes hold the system's programs and libraries and kernel
// trees: read and executed by every program, granted by exec's baseline.
var systemPrefixes = []string{"/usr/", "/lib/", "/lib32/", "/lib64/", "/libx32/", "/bin/", "/sbin/", "/proc/", "/sys/", "/dev/"}

// systemRead reports accesses that only read or execute files under
// systemPrefixes, or the loader's cache.
func systemRead(fa []FileAccess) bool {
	if len(fa) == 0 {
		return false
	}
	for _, a := range fa {
		if a.Op&^(OpRead|OpExecute) != 0 {
			return false
		}
		if a.Path == "/etc/ld.so.cache" {
			continue
		}
		if !slices.ContainsFunc(systemPrefixes, func(p string) bool { return strings.HasPrefix(a.Path, p) }) {
			return false
		}
	}
	return true
}

// exit records tid's pending call by its result.
func (t *tracer) exit(tid int) {
	p := t.pending[tid]
	delete(t.pending, tid)
	if p == nil {
		return
	}
	info, ok := syscallInfo(tid)
	if !ok || info.op != unix.PTRACE_SYSCALL_INFO_EXIT {
		return
	}
	t.record(tid, p, info.rval)
}

// record keeps tid's call p by its result ret (0 or more, or -errno):
// under --denials if it was refused, otherwise if it succeeded.
func (t *tracer) record(tid int, p *pending, ret int64) {
	switch {
	case p.dnsFD >= 0:
		if ret == 0 || ret == -int64(unix.EINPROGRESS) {
			t.dnsFDs[[2]int{tid, p.dnsFD}] = true
		}
	case t.denials:
		hidden := ret == -int64(unix.ENOENT) && p.conn == nil && slices.ContainsFunc(p.fa, hiddenHere)
		if !refused(ret) && !hidden {
			return
		}
		if p.conn != nil {
			t.deny(tid, Denial{Connect: *p.conn, Errno: unix.Errno(-ret)})
			return
		}
		for _, fa := range p.fa {
			if fa.Op&OpCreate != 0 && exists(fa.Path, false) {
				// O_CREAT on a file that exists asks to write it.
				fa.Op &^= OpCreate
				fa.Op |= OpUpdate
			}
			t.deny(tid, Denial{File: fa, Errno: unix.Errno(-ret)})
		}
	case p.conn != nil:
		if ret == 0 || ret == -int64(unix.EINPROGRESS) {
			t.obs.Connects = append(t.obs.Connects, *p.conn)
		}
	default:
		// mkdir of a directory that exists fails with EEXIST, and a run
		// from a clean state would have created it (mkdir -p, makedirs).
		if ret >= 0 || (p.exist && ret == -int64(unix.EEXIST)) {
			t.obs.Files = append(t.obs.Files, p.fa...)
		}
	}
}

// deny keeps a refusal of tid's: once (the report names each once, with
// the first process refused it), and no more than MaxDenied distinct
// ones; the rest are counted.
func (t *tracer) deny(tid int, d Denial) {
	k := denialKey{d.File, d.Connect}
	if t.denied[k] {
		return
	}
	if len(t.denied) >= MaxDenied {
		t.obs.DeniedMore++
		return
	}
	t.denied[k] = true
	d.PID, d.Comm = t.process(tid)
	if d.File.Path == "" {
		t.obs.DeniedConnects = append(t.obs.DeniedConnects, d)
	} else {
		t.obs.Denied = append(t.obs.Denied, d)
	}
}

// denialKey is what makes two refusals the same.
type denialKey struct {
	file FileAccess
	conn Connect
}

// openAccesses is what open(2) of name with flags asks for. O_PATH opens
// read nothing; a write to a file that exists updates it, one that does
// not creates it.
func openAccesses(t *tracer, name string, flags uint64) []FileAccess {
	if flags&unix.O_PATH != 0 {
		return nil
	}
	follow := flags&unix.O_NOFOLLOW == 0 && flags&(unix.O_CREAT|unix.O_EXCL) != unix.O_CREAT|unix.O_EXCL
	c := t.canon(name, follow)
	var op Op
	acc := flags & unix.O_ACCMODE
	if acc == unix.O_RDONLY || acc == unix.O_RDWR {
		op |= OpRead
	}
	if acc == unix.O_WRONLY || acc == unix.O_RDWR || flags&unix.O_TRUNC != 0 {
		op |= OpUpdate
	}
	// O_CREAT says the program creates the file when it is missing, as it
	// will be on a run from a clean state: the proposal must not depend on
	// whether an earlier run left it behind.
	if flags&unix.O_CREAT != 0 {
		op |= OpCreate
	}
	if op == 0 {
		return nil
	}
	return []FileAccess{{c, op}}
}

func exists(p string, follow bool) bool {
	var st unix.Stat_t
	if follow {
		return unix.Stat(p, &st) == nil
	}
	return unix.Lstat(p, &st) == nil
}

// abs makes name absolute against the calling thread's working directory
// or dirfd, lexically.
func (t *tracer) abs(tid, dirfd int, name string) string {
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	var base string
	var err error
	if dirfd == unix.AT_FDCWD {
		base, err = os.Readlink("/proc/" + strconv.Itoa(tid) + "/cwd")
	} else {
		base, err = os.Readlink("/proc/" + strconv.Itoa(tid) + "/fd/" + strconv.Itoa(dirfd))
	}
	if err != nil || !filepath.IsAbs(base) {
		return ""
	}
	return filepath.Join(base, name)
}

// readString reads a NUL-terminated string at addr in tid's memory, a
// page at a time so that a string ending near an unmapped page is read.
func readString(tid int, addr uint64) (string, error) {
	if addr == 0 {
		return "", errors.New("NULL")
	}
	const max = unix.PathMax
	var out []byte
	buf := make([]byte, 4096)
	for len(out) < max {
		n := 4096 - int(addr%4096)
		local := []unix.Iovec{{Base: &buf[0]}}
		local[0].SetLen(n)
		remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: n}}
		got, err := unix.ProcessVMReadv(tid, local, remote, 0)
		if err != nil {
			return "", err
		}
		for i := range got {
			if buf[i] == 0 {
				return string(append(out, buf[:i]...)), nil
			}
		}
		out = append(out, buf[:got]...)
		addr += uint64(got)
	}
	return "", errors.New("string too long")
}

func readBytes(tid int, addr uint64, n int) ([]byte, bool) {
	if addr == 0 || n <= 0 || n > 1<<16 {
		return nil, false
	}
	buf := make([]byte, n)
	local := []unix.Iovec{{Base: &buf[0]}}
	local[0].SetLen(n)
	got, err := unix.ProcessVMReadv(tid, local, []unix.RemoteIovec{{Base: uintptr(addr), Len: n}}, 0)
	if err != nil || got != n {
		return nil, false
	}
	return buf, true
}

func readU64(tid int, addr uint64) uint64 {
	b, ok := readBytes(tid, addr, 8)
	if !ok {
		return 0
	}
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// refused reports a system call result that means "not permitted".
func refused(ret int64) bool {
	return ret == -int64(unix.EACCES) || ret == -int64(unix.EPERM) || ret == -int64(unix.EROFS)
}

// process names tid's process: its thread group id and its command name.
func (t *tracer) process(tid int) (int, string) {
	comm, _ := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/comm")
	pid := tid
	if st, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status"); err == nil {
		for line := range strings.SplitSeq(string(st), "\n") {
			if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
				if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					pid = n
				}
			}
		}
	}
	return pid, strings.TrimSpace(string(comm))
}

// hiddenHere reports an access that failed with ENOENT although its path
// (or, to create it, its directory) exists here, outside the sandbox: the
// namespaced path leaves out what no grant reaches, so a refusal there
// reads "no such file".
func hiddenHere(fa FileAccess) bool {
	if exists(fa.Path, false) {
		return true
	}
	if fa.Op&OpCreate != 0 {
		var st unix.Stat_t
		return unix.Stat(filepath.Dir(fa.Path), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
	}
	return false
}
