package seccomp

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/enforcetest"
)

// TestArchTablesMatchXSys checks both system-call tables against the
// numbers golang.org/x/sys generated from the kernel headers, read from
// the module cache (so arm64's table is checked on an amd64 machine too).
func TestArchTablesMatchXSys(t *testing.T) {
	mod, err := xsysDir()
	if err != nil {
		enforcetest.Skipf(t, "cannot find golang.org/x/sys's source: %v", err)
	}
	dir := filepath.Join(mod, "unix")
	line := regexp.MustCompile(`(?m)^\s*SYS_([A-Z0-9_]+)\s*=\s*(\d+)`)
	for _, arch := range arches {
		src, err := os.ReadFile(filepath.Join(dir, "zsysnum_linux_"+arch.Name+".go"))
		if err != nil {
			enforcetest.Skipf(t, "x/sys source not in the module cache: %v", err)
		}
		want := map[string]uint32{}
		for _, m := range line.FindAllStringSubmatch(string(src), -1) {
			n, _ := strconv.Atoi(m[2])
			want[strings.ToLower(m[1])] = uint32(n)
		}
		seen := map[string]bool{}
		for _, c := range arch.Calls {
			name, nr := c.Name, c.Nr
			if seen[name] {
				t.Errorf("%s: %s is listed twice", arch.Name, name)
			}
			seen[name] = true
			if w, ok := want[name]; !ok || w != nr {
				t.Errorf("%s: %s is %d here, x/sys says %d (present: %v)", arch.Name, name, nr, w, ok)
			}
		}
		// Every call the filter names exists in our table where the
		// architecture has it.
		for _, n := range append(append([]string{}, metadataCalls...), deniedCalls...) {
			if _, inXSys := want[n]; inXSys {
				if _, ok := arch.Number(n); !ok {
					t.Errorf("%s: %s exists on this ABI but is missing from the table", arch.Name, n)
				}
			}
		}
	}
}

// xsysDir is the directory of the golang.org/x/sys version go.mod
// requires. go list names it when a build has downloaded it; a test run
// on a system whose packages need none of its source (or after the cache
// was trimmed) downloads it first, as go build would.
func xsysDir() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "golang.org/x/sys").Output()
	if dir := strings.TrimSpace(string(out)); err == nil && dir != "" {
		return dir, nil
	}
	out, err = exec.Command("go", "mod", "download", "-json", "golang.org/x/sys").Output()
	if err != nil {
		return "", fmt.Errorf("go mod download golang.org/x/sys: %v", err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download golang.org/x/sys: %v %s", err, m.Error)
	}
	return m.Dir, nil
}
