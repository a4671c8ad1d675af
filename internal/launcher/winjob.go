package launcher

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/jp-policy/jp-policy/internal/plan/winjob"
)

func decodeWinJob(path string, b []byte) (*winjob.Manifest, error) {
	var j winjob.Manifest
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("%s: not a job-object manifest: %w; run `jp-policy compile`", path, err)
	}
	if j.Version != winjob.FormatVersion {
		return nil, &MismatchError{Manifest: path, What: fmt.Sprintf("manifest format %d, this jp-policy reads %d", j.Version, winjob.FormatVersion)}
	}
	return &j, nil
}

// Job object constants from winnt.h, kept here so the attribute builder
// is testable on any OS.
const (
	jobLimitActiveProcess      = 0x00000008
	jobLimitBreakawayOK        = 0x00000800
	jobLimitDieOnUnhandledExc  = 0x00000400
	jobLimitKillOnJobClose     = 0x00002000
	jobUILimitHandles          = 0x00000001
	jobUILimitReadClipboard    = 0x00000002
	jobUILimitWriteClipboard   = 0x00000004
	jobUILimitSystemParameters = 0x00000008
	jobUILimitDisplaySettings  = 0x00000010
	jobUILimitGlobalAtoms      = 0x00000020
	jobUILimitDesktop          = 0x00000040
	jobUILimitExitWindows      = 0x00000080
	createSuspended            = 0x00000004
	createUnicodeEnvironment   = 0x00000400
)

var uiLimitByName = map[string]uint32{
	winjob.UIHandles:          jobUILimitHandles,
	winjob.UIReadClipboard:    jobUILimitReadClipboard,
	winjob.UIWriteClipboard:   jobUILimitWriteClipboard,
	winjob.UISystemParameters: jobUILimitSystemParameters,
	winjob.UIDisplaySettings:  jobUILimitDisplaySettings,
	winjob.UIGlobalAtoms:      jobUILimitGlobalAtoms,
	winjob.UIDesktop:          jobUILimitDesktop,
	winjob.UIExitWindows:      jobUILimitExitWindows,
}

// JobAttrs is what the Windows launcher sets on the job object and passes
// to CreateProcess.
type JobAttrs struct {
	LimitFlags         uint32
	ActiveProcessLimit uint32
	UIRestrictions     uint32
	CreationFlags      uint32
	// CommandLine is argv quoted for CreateProcess.
	CommandLine string
	// EnvBlock is the UTF-16 environment block (sorted, NUL-separated,
	// double-NUL terminated).
	EnvBlock []uint16
}

// BuildJobAttrs turns a job-object manifest into the job's limits and the
// CreateProcess arguments. The job always kills its processes when the
// launcher's handle closes, whatever the manifest says, so a tool cannot
// outlive the launcher; and the process starts suspended so it is in the
// job before it runs a single instruction.
func BuildJobAttrs(j *winjob.Manifest, argv, env []string) (*JobAttrs, error) {
	a := &JobAttrs{
		LimitFlags:    jobLimitKillOnJobClose,
		CreationFlags: createSuspended | createUnicodeEnvironment,
	}
	if j.Limits.DieOnUnhandledException {
		a.LimitFlags |= jobLimitDieOnUnhandledExc
	}
	if j.Limits.BreakawayOK {
		a.LimitFlags |= jobLimitBreakawayOK
	}
	if j.Limits.ActiveProcessLimit > 0 {
		a.LimitFlags |= jobLimitActiveProcess
		a.ActiveProcessLimit = j.Limits.ActiveProcessLimit
	}
	for _, n := range j.UIRestrictions {
		bit, ok := uiLimitByName[n]
		if !ok {
			return nil, &UnknownRightError{Clause: "ui_restrictions", Kind: "job UI limit", Name: n}
		}
		a.UIRestrictions |= bit
	}
	a.CommandLine = windowsCommandLine(argv)
	block, err := envBlock(env)
	if err != nil {
		return nil, err
	}
	a.EnvBlock = block
	return a, nil
}

// windowsCommandLine quotes argv the way CommandLineToArgvW splits it, so
// the child sees the same arguments (the rules of syscall.EscapeArg).
func windowsCommandLine(argv []string) string {
	var b strings.Builder
	for i, arg := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(escapeArg(arg))
	}
	return b.String()
}

func escapeArg(s string) string {
	if s == "" {
		return `""`
	}
	if !strings.ContainsAny(s, " \t\n\v\"") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			slashes++
		case '"':
			for ; slashes > 0; slashes-- {
				b.WriteByte('\\')
			}
			b.WriteByte('\\')
		default:
			slashes = 0
		}
		b.WriteByte(c)
	}
	for ; slashes > 0; slashes-- {
		b.WriteByte('\\')
	}
	b.WriteByte('"')
	return b.String()
}

// envBlock builds a CREATE_UNICODE_ENVIRONMENT block. Windows wants it
// sorted case-insensitively; a NUL inside an entry would cut the block
// short and is refused.
func envBlock(env []string) ([]uint16, error) {
	sorted := append([]string(nil), env...)
	sort.SliceStable(sorted, func(i, j int) bool {
		return strings.ToUpper(envName(sorted[i])) < strings.ToUpper(envName(sorted[j]))
	})
	var out []uint16
	for _, kv := range sorted {
		if strings.IndexByte(kv, 0) >= 0 {
			return nil, fmt.Errorf("environment entry %q contains NUL", envName(kv))
		}
		out = append(out, utf16.Encode([]rune(kv))...)
		out = append(out, 0)
	}
	if len(out) == 0 {
		out = append(out, 0)
	}
	return append(out, 0), nil
}

func envName(kv string) string {
	// Windows keeps per-drive cwd entries like "=C:=C:\x"; their name
	// starts with '='.
	if i := strings.IndexByte(kv[min(1, len(kv)):], '='); i >= 0 {
		return kv[:i+min(1, len(kv))]
	}
	return kv
}
