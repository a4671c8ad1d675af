package seccomp

import "sort"

func sortedNames(a *Arch) []string {
	out := make([]string, 0, len(a.Nr))
	for n := range a.Nr {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
