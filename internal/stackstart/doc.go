// Package stackstart moves the main goroutine to a 64 kB stack before any
// other package of jp-policy initialises. Import it (blank) from a main
// package only.
//
// A goroutine starts on a 2 kB stack and the runtime doubles it by
// copying whenever a function needs more: a jp-policy start went 2 → 4
// (package inits) → 8 (kong compiling a regexp at init) → 16 kB (config
// validation), and each step took a fresh 32 kB span for that stack size,
// writing a free-list link on each of its pages, and read the stack map
// of every function on the stack to copy it. On a machine where a page
// fault costs ~35 µs that was ~30 page faults of a ~420-fault lint
// (docs/lint.md). A stack of 32 kB or more comes from the heap without
// such a span and, like any stack, costs a page only when used: so one
// early jump to 64 kB, while the stack holds two frames, replaces the
// three copies.
//
// It imports nothing, so it is among the first packages initialised
// (Go initialises, among the packages whose imports are done, the one
// with the lexically smallest path first), before the inits that grew the
// stack. TestStackStartInitsFirst (cmd/jp-policy) checks the order.
package stackstart
