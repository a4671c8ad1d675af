package nsroot

import (
	"slices"
	"strings"
	"testing"
)

const sampleMountinfo = `22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:2 - proc proc rw
24 22 0:5 / /dev rw,nosuid shared:3 - devtmpfs udev rw
25 24 0:22 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw
26 22 0:23 / /mnt/with\040space rw - tmpfs tmpfs rw
27 22 0:24 / /mnt/back\134slash rw - tmpfs tmpfs rw
bad line
`

func TestParseMountinfo(t *testing.T) {
	got := parseMountinfo([]byte(sampleMountinfo))
	want := []string{"/", "/proc", "/dev", "/dev/shm", "/mnt/with space", `/mnt/back\slash`}
	if !slices.Equal(got, want) {
		t.Errorf("parseMountinfo = %q, want %q", got, want)
	}
	for _, c := range []struct {
		top  string
		want []string
	}{
		{"/dev", []string{"/dev/shm"}},
		{"/", []string{"/proc", "/dev", "/dev/shm", "/mnt/with space", `/mnt/back\slash`}},
		{"/de", nil},
	} {
		if got := submounts(want, c.top); !slices.Equal(got, c.want) {
			t.Errorf("submounts(%q) = %q, want %q", c.top, got, c.want)
		}
	}
	if got := unescapeMountinfo(`a\04`); got != `a\04` {
		t.Errorf("a short escape was changed: %q", got)
	}
}

// FuzzParseMountinfo: never panics; every mount point is absolute, and
// one that needed no escape comes back as written.
func FuzzParseMountinfo(f *testing.F) {
	f.Add([]byte(sampleMountinfo))
	f.Add([]byte(`1 2 3 4 /\777\1 x`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, m := range parseMountinfo(b) {
			if !strings.HasPrefix(m, "/") {
				t.Fatalf("relative mount point %q", m)
			}
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) >= 5 && strings.HasPrefix(f[4], "/") && !strings.Contains(f[4], `\`) {
				if !slices.Contains(parseMountinfo(b), f[4]) {
					t.Fatalf("mount point %q lost", f[4])
				}
			}
		}
	})
}
