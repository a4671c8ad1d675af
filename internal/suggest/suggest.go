package suggest

import "sort"

// Closest returns the candidates within a small edit distance of name,
// best first (ties alphabetically). The threshold grows with the length
// of the name so that short names only match near-identical ones.
func Closest(name string, candidates []string) []string {
	type cand struct {
		n string
		d int
	}
	limit := max(1, min(3, len(name)/3))
	var cs []cand
	for _, n := range candidates {
		if n == name {
			continue
		}
		if d := Distance(name, n); d <= limit {
			cs = append(cs, cand{n, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].n < cs[j].n
	})
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.n
	}
	return out
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
