package launcher

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/emit/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Landlock access bits, from go-landlock's syscall package (whose
// constants build on every platform, so the planning code and its tests
// stay platform-neutral).
const (
	fsExecute    uint64 = llsyscall.AccessFSExecute
	fsWriteFile  uint64 = llsyscall.AccessFSWriteFile
	fsReadFile   uint64 = llsyscall.AccessFSReadFile
	fsReadDir    uint64 = llsyscall.AccessFSReadDir
	fsRemoveDir  uint64 = llsyscall.AccessFSRemoveDir
	fsRemoveFile uint64 = llsyscall.AccessFSRemoveFile
	fsMakeChar   uint64 = llsyscall.AccessFSMakeChar
	fsMakeDir    uint64 = llsyscall.AccessFSMakeDir
	fsMakeReg    uint64 = llsyscall.AccessFSMakeReg
	fsMakeSock   uint64 = llsyscall.AccessFSMakeSock
	fsMakeFifo   uint64 = llsyscall.AccessFSMakeFifo
	fsMakeBlock  uint64 = llsyscall.AccessFSMakeBlock
	fsMakeSym    uint64 = llsyscall.AccessFSMakeSym
	fsRefer      uint64 = llsyscall.AccessFSRefer    // ABI 2
	fsTruncate   uint64 = llsyscall.AccessFSTruncate // ABI 3
	fsIoctlDev   uint64 = llsyscall.AccessFSIoctlDev // ABI 5

	netBindTCP    uint64 = llsyscall.AccessNetBindTCP    // ABI 4
	netConnectTCP uint64 = llsyscall.AccessNetConnectTCP // ABI 4

	scopeAbstractUnix uint64 = llsyscall.ScopeAbstractUnixSocket // ABI 6
	scopeSignal       uint64 = llsyscall.ScopeSignal             // ABI 6
)

// fileRights are the only rights the kernel accepts on a rule whose path
// is not a directory (anything else is EINVAL).
const fileRights = fsExecute | fsWriteFile | fsReadFile | fsTruncate | fsIoctlDev

var rightByName = map[string]uint64{
	landlock.Execute:    fsExecute,
	landlock.WriteFile:  fsWriteFile,
	landlock.ReadFile:   fsReadFile,
	landlock.ReadDir:    fsReadDir,
	landlock.RemoveDir:  fsRemoveDir,
	landlock.RemoveFile: fsRemoveFile,
	landlock.MakeChar:   fsMakeChar,
	landlock.MakeDir:    fsMakeDir,
	landlock.MakeReg:    fsMakeReg,
	landlock.MakeSock:   fsMakeSock,
	landlock.MakeFifo:   fsMakeFifo,
	landlock.MakeBlock:  fsMakeBlock,
	landlock.MakeSym:    fsMakeSym,
	landlock.Refer:      fsRefer,
	landlock.Truncate:   fsTruncate,
	landlock.IoctlDev:   fsIoctlDev,
}

// scopeByName maps the manifest's scope names to Landlock scope bits.
var scopeByName = map[string]uint64{
	"signal":               scopeSignal,
	"abstract_unix_socket": scopeAbstractUnix,
}

// fsRightsFor returns the filesystem rights a kernel with the given ABI
// can handle. Rights a kernel does not know are neither handled nor
// denied by it, which is why a lower ABI degrades the clauses that need
// them.
func fsRightsFor(abi int) uint64 {
	var r uint64
	if abi >= 1 {
		r |= fsExecute | fsWriteFile | fsReadFile | fsReadDir | fsRemoveDir |
			fsRemoveFile | fsMakeChar | fsMakeDir | fsMakeReg | fsMakeSock |
			fsMakeFifo | fsMakeBlock | fsMakeSym
	}
	if abi >= 2 {
		r |= fsRefer
	}
	if abi >= 3 {
		r |= fsTruncate
	}
	if abi >= 5 {
		r |= fsIoctlDev
	}
	return r
}

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

// minABIForFS is the lowest ABI that knows every right in mask.
func minABIForFS(mask uint64) int {
	switch {
	case mask&fsIoctlDev != 0:
		return 5
	case mask&fsTruncate != 0:
		return 3
	case mask&fsRefer != 0:
		return 2
	case mask != 0:
		return 1
	}
	return 0
}

// UnknownRightError is returned for a manifest naming a right this
// launcher does not know: guessing would risk granting more than written.
type UnknownRightError struct {
	Clause string
	Kind   string // "access" or "scope"
	Name   string
}

func (e *UnknownRightError) Error() string {
	return fmt.Sprintf("manifest clause %s: unknown landlock %s %q; this jp-policy is older than the manifest, run `jp-policy compile` with it", e.Clause, e.Kind, e.Name)
}

func parseRights(clause string, names []string) (uint64, error) {
	var mask uint64
	for _, n := range names {
		bit, ok := rightByName[n]
		if !ok {
			return 0, &UnknownRightError{Clause: clause, Kind: "access", Name: n}
		}
		mask |= bit
	}
	return mask, nil
}
