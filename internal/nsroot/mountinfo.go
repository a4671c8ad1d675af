package nsroot

import (
	"strings"
)

// parseMountinfo returns the mount points listed in /proc/self/mountinfo
// (the fifth field of each line, octal escapes undone), in file order —
// a parent before the mounts on top of it. Malformed lines are skipped:
// the caller uses the list only to find more mounts to make read-only.
func parseMountinfo(b []byte) []string {
	var out []string
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || !strings.HasPrefix(f[4], "/") {
			continue
		}
		out = append(out, unescapeMountinfo(f[4]))
	}
	return out
}

// unescapeMountinfo undoes the kernel's \ooo escapes (space, tab,
// newline, backslash); anything else is kept as written.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			v := (int(s[i+1]-'0')<<6 | int(s[i+2]-'0')<<3 | int(s[i+3]-'0'))
			if v <= 0xff {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// submounts returns the mount points strictly beneath top.
func submounts(mounts []string, top string) []string {
	prefix := strings.TrimSuffix(top, "/") + "/"
	var out []string
	for _, m := range mounts {
		if strings.HasPrefix(m, prefix) && m != top {
			out = append(out, m)
		}
	}
	return out
}
