//go:build windows

package launcher

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// KernelABI is 0: Landlock is Linux-only.
func KernelABI() int { return 0 }

// Exec runs the planned command inside a job object and returns its exit
// code as a *ChildExit. Windows has no execve, so the
// launcher stays as the parent: the process is created suspended,
// assigned to the job, then resumed, so it never runs outside the job.
// Only the standard handles are inherited (an explicit handle list), so
// nothing else the launcher holds reaches the child.
func Exec(p *Plan) error {
	if p.Job == nil {
		return fmt.Errorf("tool %q has no job-object manifest; run `jp-policy compile`", p.Tool)
	}
	if len(p.NetRules) > 0 {
		// Cooperative: a job object cannot block sockets, so only the
		// proxy variables send the tool's HTTP clients through the
		// filtering proxy (the manifest's net.proxy clause says so).
		stop, err := startHostProxy(p)
		if err != nil {
			return fmt.Errorf("cannot serve the network proxy: %w", err)
		}
		defer stop()
	}
	attrs, err := BuildJobAttrs(p.Job, append([]string{p.Path}, p.Argv[1:]...), p.Env)
	if err != nil {
		return err
	}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("CreateJobObject: %w", err)
	}
	// Closing the last handle kills the job (KILL_ON_JOB_CLOSE); the
	// process exits before that in the normal path.
	defer windows.CloseHandle(job)
	var limits windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	limits.BasicLimitInformation.LimitFlags = attrs.LimitFlags
	limits.BasicLimitInformation.ActiveProcessLimit = attrs.ActiveProcessLimit
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&limits)), uint32(unsafe.Sizeof(limits))); err != nil {
		return fmt.Errorf("SetInformationJobObject(limits): %w", err)
	}
	if attrs.UIRestrictions != 0 {
		ui := windows.JOBOBJECT_BASIC_UI_RESTRICTIONS{UIRestrictionsClass: attrs.UIRestrictions}
		if _, err := windows.SetInformationJobObject(job, windows.JobObjectBasicUIRestrictions,
			uintptr(unsafe.Pointer(&ui)), uint32(unsafe.Sizeof(ui))); err != nil {
			return fmt.Errorf("SetInformationJobObject(ui): %w", err)
		}
	}

	std := []windows.Handle{
		windows.Handle(os.Stdin.Fd()), windows.Handle(os.Stdout.Fd()), windows.Handle(os.Stderr.Fd()),
	}
	var inherit []windows.Handle
	for _, h := range std {
		if h == 0 || h == windows.InvalidHandle {
			continue
		}
		if err := windows.SetHandleInformation(h, windows.HANDLE_FLAG_INHERIT, windows.HANDLE_FLAG_INHERIT); err == nil {
			inherit = append(inherit, h)
		}
	}
	al, err := windows.NewProcThreadAttributeList(1)
	if err != nil {
		return fmt.Errorf("NewProcThreadAttributeList: %w", err)
	}
	defer al.Delete()
	if len(inherit) > 0 {
		if err := al.Update(windows.PROC_THREAD_ATTRIBUTE_HANDLE_LIST,
			unsafe.Pointer(&inherit[0]), uintptr(len(inherit))*unsafe.Sizeof(inherit[0])); err != nil {
			return fmt.Errorf("handle list: %w", err)
		}
	}
	si := windows.StartupInfoEx{ProcThreadAttributeList: al.List()}
	si.Cb = uint32(unsafe.Sizeof(si))
	si.Flags = windows.STARTF_USESTDHANDLES
	si.StdInput, si.StdOutput, si.StdErr = std[0], std[1], std[2]

	app, err := windows.UTF16PtrFromString(p.Path)
	if err != nil {
		return err
	}
	cmdline, err := windows.UTF16PtrFromString(attrs.CommandLine)
	if err != nil {
		return err
	}
	var pi windows.ProcessInformation
	if err := windows.CreateProcess(app, cmdline, nil, nil, len(inherit) > 0,
		attrs.CreationFlags|windows.EXTENDED_STARTUPINFO_PRESENT,
		&attrs.EnvBlock[0], nil, &si.StartupInfo, &pi); err != nil {
		return &ExecError{Path: p.Path, Err: fmt.Errorf("CreateProcess: %w", err)}
	}
	defer windows.CloseHandle(pi.Thread)
	defer windows.CloseHandle(pi.Process)
	if err := windows.AssignProcessToJobObject(job, pi.Process); err != nil {
		windows.TerminateProcess(pi.Process, 1)
		return fmt.Errorf("AssignProcessToJobObject: %w", err)
	}
	if _, err := windows.ResumeThread(pi.Thread); err != nil {
		windows.TerminateProcess(pi.Process, 1)
		return fmt.Errorf("ResumeThread: %w", err)
	}
	if _, err := windows.WaitForSingleObject(pi.Process, windows.INFINITE); err != nil {
		return fmt.Errorf("WaitForSingleObject: %w", err)
	}
	var code uint32
	if err := windows.GetExitCodeProcess(pi.Process, &code); err != nil {
		return fmt.Errorf("GetExitCodeProcess: %w", err)
	}
	return &ChildExit{Code: int(code)}
}
