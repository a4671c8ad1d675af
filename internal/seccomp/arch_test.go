package seccomp

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestArchTablesMatchXSys checks both system-call tables against the
// numbers golang.org/x/sys generated from the kernel headers, read from
// the module cache (so arm64's table is checked on an amd64 machine too).
func TestArchTablesMatchXSys(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "golang.org/x/sys").Output()
	if err != nil || len(strings.TrimSpace(string(out))) == 0 {
		t.Skipf("cannot find golang.org/x/sys in the module cache: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "unix")
	line := regexp.MustCompile(`(?m)^\s*SYS_([A-Z0-9_]+)\s*=\s*(\d+)`)
	for _, arch := range arches {
		src, err := os.ReadFile(filepath.Join(dir, "zsysnum_linux_"+arch.Name+".go"))
		if err != nil {
			t.Skipf("x/sys source not in the module cache: %v", err)
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
