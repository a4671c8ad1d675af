package artifact

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/execplan"
)

// Why a lock: compile swaps the new artifact directory in and then
// rewrites the pin, two steps. An exec that reads between them finds new
// files and old hashes and refused the run as tampered ("changed after
// `jp-policy compile` wrote it ... check what changed it"), and two
// compiles at once (JP runs tool calls in parallel, and each exec
// recompiles a stale artifact) moved each other's staging directory
// away. So every compile holds the pin's lock exclusively from staging
// to pinning, and a reader that finds a mismatch looks again holding it
// shared, which waits for a compile in progress.

// LockPin takes the lock of the pin of (root, artifactPath): exclusive
// for a writer, shared for a reader. It returns the function that
// releases it. Where there is no lock (Windows, or a data directory that
// cannot hold the lock file) it returns at once with a no-op: the lock
// only removes false alarms, the pin check itself does not depend on it.
func LockPin(dataDir, root, artifactPath string, exclusive bool) (unlock func()) {
	unlock, _ = lockPin(dataDir, root, artifactPath, exclusive)
	return unlock
}

// LockPinExclusive is LockPin for a writer that needs to know whether it
// holds the lock: only a compile that does may remove what other
// compiles left behind (a killed compile's staging directory), since no
// other compile of this artifact can be running.
func LockPinExclusive(dataDir, root, artifactPath string) (unlock func(), held bool) {
	return lockPin(dataDir, root, artifactPath, true)
}

func lockPin(dataDir, root, artifactPath string, exclusive bool) (unlock func(), held bool) {
	path := strings.TrimSuffix(execplan.PinFile(dataDir, root, artifactPath), ".json") + ".lock"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return func() {}, false
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return func() {}, false
	}
	if !flock(f, exclusive) {
		f.Close()
		return func() {}, false
	}
	return func() { f.Close() }, true // closing the descriptor releases the lock
}
