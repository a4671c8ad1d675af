package main

import (
	"fmt"
	"os"
	"runtime"

	"github.com/jp-policy/jp-policy/internal/doctor"
	"github.com/jp-policy/jp-policy/internal/launcher"
	"github.com/jp-policy/jp-policy/internal/nsroot"
	"github.com/jp-policy/jp-policy/internal/seccomp"
)

// DoctorCmd is `jp-policy doctor`: which kernel features exec uses are
// missing here, what fails without them, and how to enable them.
type DoctorCmd struct {
	AppArmor bool `name:"apparmor" help:"Print the AppArmor profile that lets jp-policy create user namespaces (Ubuntu 23.10+), for: jp-policy doctor --apparmor | sudo tee /etc/apparmor.d/jp-policy >/dev/null && sudo apparmor_parser -r /etc/apparmor.d/jp-policy"`
}

// Run prints the report; exit 1 when a feature is missing.
func (c *DoctorCmd) Run(g *Globals) error {
	f := doctor.Facts{OS: runtime.GOOS, LandlockABI: launcher.KernelABI(), Seccomp: seccomp.Available()}
	f.UserNS, f.UserNSWhy = nsroot.Available()
	if self, err := os.Executable(); err == nil {
		f.Binaries = append(f.Binaries, self)
	}
	if c.AppArmor {
		fmt.Fprint(g.Stdout, doctor.Profile(f.Binaries))
		return nil
	}
	if !doctor.Write(g.Stdout, doctor.Report(f)) {
		return fail(exitFail, nil)
	}
	return nil
}
