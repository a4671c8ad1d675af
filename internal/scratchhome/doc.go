// Package scratchhome decides the HOME a sandboxed run gets: a fresh,
// writable directory of its own (inside the run's private TMPDIR), in
// which every grant that lies under the user's real home appears at its
// usual place as a symbolic link to the real path.
//
// Tools create dotfiles directly in HOME (nyc's ~/.node-spawn-wrap-*,
// shells' history, npm's and pip's first-run files); the real home is
// outside every grant, so those writes failed and no rule could allow
// them short of granting the whole home. With a scratch HOME they land in
// a directory that goes away with the run, and the caches and toolchains
// the user granted (~/.cache/go-build, ~/.npm, ~/.cargo) are still found
// where the tools look for them ($HOME/...), through the links, with
// exactly the rights their rules give: a link adds no right, the kernel
// checks the real path it resolves to.
//
// When a grant covers the real home itself (a rule on ~ or on one of its
// ancestors), the user gave the tool their home: HOME stays.
package scratchhome
