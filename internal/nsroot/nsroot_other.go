//go:build !linux

package nsroot

import (
	"errors"
	"os"
	"runtime"
)

// Child is never created off Linux.
type Child struct {
	Pid          int
	Listeners    []*os.File
	Files        map[string]*os.File
	Placeholders []string
}

// Available is false: namespaces are Linux-only.
func Available() (bool, string) {
	return false, "namespaces are Linux-only (this is " + runtime.GOOS + ")"
}

// Start refuses with an error matching ErrUnavailable.
func Start(*Spec) (*Child, error) {
	_, reason := Available()
	return nil, &UnavailableError{Reason: reason}
}

// Run refuses like Start.
func Run(s *Spec) (int, error) {
	_, err := Start(s)
	return 0, err
}

// Wait is never reached: Start always fails here.
func (c *Child) Wait() (int, error) { return 0, errors.New("nsroot: no child off Linux") }

// Stage2Main returns: there is no stage 2 off Linux.
func Stage2Main() {}

// SendFile fails: there is no stage 2 off Linux.
func SendFile(string, *os.File) error { return errors.New("nsroot.SendFile outside stage 2") }
func (c *Child) Kill()                {}
