package config

import (
	"bytes"
	"slices"
	"strings"
)

// envDuplicates lists the names starting with prefix that occur more than
// once in an environment block (NUL-separated NAME=VALUE entries, as
// /proc/self/environ holds it). Go's os.Environ and os.Getenv keep only
// the first entry of a name (syscall copyenv); JP's from_envs iterates
// std::env::vars_os, which yields every entry, and assigns each in turn,
// so the last one wins there. A duplicate is therefore read differently
// by the two, and jp-policy refuses it rather than guess.
func envDuplicates(block []byte, prefix string) []string {
	var names, dups []string
	for entry := range bytes.SplitSeq(block, []byte{0}) {
		name, _, _ := bytes.Cut(entry, []byte{'='})
		if !bytes.HasPrefix(name, []byte(prefix)) {
			continue
		}
		s := string(name)
		if slices.Contains(names, s) {
			if !slices.Contains(dups, s) {
				dups = append(dups, s)
			}
			continue
		}
		names = append(names, s)
	}
	slices.SortFunc(dups, strings.Compare)
	return dups
}
