package seccomp

import "sort"

func sortedNames(a *Arch) []string {
	out := make([]string, 0, len(a.Calls))
	for _, c := range a.Calls {
		out = append(out, c.Name)
	}
	sort.Strings(out)
	return out
}
