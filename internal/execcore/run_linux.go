//go:build linux

package execcore

import (
	"os"
	"os/exec"
	"runtime"
	"slices"

	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/rulematch"
	"github.com/jp-policy/jp-policy/internal/seccomp"
)

// run is the fast path: the tool's compiled plan applied as it is, on a
// locked thread, ending in execve. Every decision was taken by compile
// (package landlock's manifest, turned into bits by the exec plan
// emitter) or is the policy evaluator's (rulematch); run only checks that
// this machine and this moment match what compile assumed, and hands
// over when they do not.
func run(o *Options) (locked bool, err error) {
	s, path, env, err := prepare(o)
	if err != nil {
		return false, err
	}
	if err := SetCloexecAbove2(); err != nil {
		return false, handOff(err)
	}
	DetachTerminal()
	runtime.LockOSThread()
	// Never unlocked: a restricted thread must not go back to the
	// scheduler's pool (Try runs the full path on another).
	return true, ExecLocked(s, path, o.Argv, env)
}

// prepare is everything the fast path decides before it touches the
// process: the sandbox, the program and its environment (and the run's
// private TMPDIR, created).
func prepare(o *Options) (s *Sandbox, path string, env []string, err error) {
	if o.Tool == "" || len(o.Argv) == 0 {
		return nil, "", nil, handOffMsg("no tool or no command")
	}
	pl, _, err := load(o)
	if err != nil {
		return nil, "", nil, err
	}
	f := pl.Fast
	abi := KernelABI()
	if abi < f.NeedABI || len(f.HandledFS) == 0 {
		return nil, "", nil, handOffMsg("the kernel's Landlock ABI cannot enforce every clause")
	}
	for _, p := range f.Sockets {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return nil, "", nil, handOffMsg("a granted path is a Unix socket: the namespaced path is the exact one")
		}
	}
	path, err = exec.LookPath(o.Argv[0])
	if err != nil {
		return nil, "", nil, handOff(err)
	}
	var rule *rulematch.CommandRule
	if f.Commands != nil {
		key, ok := rulematch.MatchCommand(f.Commands, o.Argv, path, rulematch.ResolveProgram)
		if !ok {
			return nil, "", nil, handOffMsg("the command is not allowed")
		}
		r := f.Commands[key]
		rule = &r
	}
	env = FilterEnv(o.Environ, Env{Minimal: f.EnvMinimal, Rules: f.EnvRules}, rule)
	env = WithTerm(env, o.Environ, f.EnvRules)
	if err := seccomp.Available(); err != nil {
		return nil, "", nil, handOff(err)
	}
	filter := f.Filter
	if f.FilterArch != runtime.GOARCH || len(filter) == 0 {
		arch, err := seccomp.ArchFor(runtime.GOARCH)
		if err != nil {
			return nil, "", nil, handOff(err)
		}
		if filter, err = seccomp.Build(f.Seccomp, arch); err != nil {
			return nil, "", nil, handOff(err)
		}
	}
	tmp, err := FastTmpDir(TmpRoot(), pl.Root)
	if err != nil {
		return nil, "", nil, handOff(err)
	}
	env = WithVar(env, "TMPDIR", tmp)
	s = &Sandbox{
		ABI:        abi,
		HandledFS:  f.HandledFS[min(abi, len(f.HandledFS)-1)],
		Baseline:   f.Baseline,
		FS:         append(slices.Clip(f.FS), execplan.Rule{Path: tmp, Access: f.TmpAccess, Clause: "tmpdir"}),
		ConnectTCP: f.ConnectTCP,
		BindTCP:    f.BindTCP,
		Scoped:     f.Scoped, // NeedABI >= 6 when there are scopes
		Filter:     filter,
	}
	if f.NetRestrict {
		s.HandledNet = netBindTCP | netConnectTCP // NeedABI >= 4
	}
	return s, path, env, nil
}
