package launcher

import (
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Landlock filesystem access bits: package landlock's Rights, the one
// table of names, kernel bit positions and first ABIs that compile and
// exec share (TestRightsAreKernelBits checks them against go-landlock's
// constants). Network and scope bits come from go-landlock's syscall
// package, whose constants build on every platform, so the planning code
// and its tests stay platform-neutral.
const (
	fsExecute    = uint64(landlock.RExecute)
	fsWriteFile  = uint64(landlock.RWriteFile)
	fsReadFile   = uint64(landlock.RReadFile)
	fsReadDir    = uint64(landlock.RReadDir)
	fsRemoveFile = uint64(landlock.RRemoveFile)
	fsMakeReg    = uint64(landlock.RMakeReg)
	fsRefer      = uint64(landlock.RRefer)    // ABI 2
	fsTruncate   = uint64(landlock.RTruncate) // ABI 3

	netBindTCP    uint64 = llsyscall.AccessNetBindTCP    // ABI 4
	netConnectTCP uint64 = llsyscall.AccessNetConnectTCP // ABI 4

	scopeAbstractUnix uint64 = llsyscall.ScopeAbstractUnixSocket // ABI 6
	scopeSignal       uint64 = llsyscall.ScopeSignal             // ABI 6
)

// fileRights are the only rights the kernel accepts on a rule whose path
// is not a directory (anything else is EINVAL).
const fileRights = uint64(landlock.FileRights)

// fsRightsFor returns the filesystem rights a kernel with the given ABI
// can handle. Rights a kernel does not know are neither handled nor
// denied by it, which is why a lower ABI degrades the clauses that need
// them.
func fsRightsFor(abi int) uint64 { return uint64(landlock.RightsForABI(abi)) }

func netRightsFor(abi int) uint64 {
	if abi >= 4 {
		return netBindTCP | netConnectTCP
	}
	return 0
}

func scopesFor(abi int) uint64 {
	if abi >= 6 {
		return scopeSignal | scopeAbstractUnix
	}
	return 0
}

// minABIForFS is the lowest ABI that knows every right in mask (0 for
// none).
func minABIForFS(mask uint64) int {
	if mask == 0 {
		return 0
	}
	return landlock.Rights(mask).MinABI()
}

// UnknownRightError is returned for a manifest naming a right this
// launcher does not know.
type UnknownRightError = landlock.UnknownRightError

func parseRights(clause string, names []string) (uint64, error) {
	r, err := landlock.RuleRights(clause, names)
	return uint64(r), err
}
