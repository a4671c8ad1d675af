// Package gitsnap materialises a git revision of a workspace into a
// temporary directory, so the config of that revision can be compiled in
// memory (`jp-policy diff --from REV --to REV`) without touching the
// working tree. It runs `git archive` and extracts the tar stream itself,
// refusing entries that would land outside the directory.
package gitsnap
