// Package earlystack gives the main goroutine, before any other package
// initialiser runs, the stack it will end up needing, in one step. Import
// it for its side effect (a blank import) in a binary whose start-up cost
// matters; jp-policy and jp-policy-exec do.
//
// Why: a goroutine starts with a 2 KB stack and doubles it each time a
// call does not fit (4, 8, 16 KB...). Each of those small sizes comes
// from a per-size pool whose first use carves a fresh 32 KB span and
// writes a free-list link into every slot of it, and every growth copies
// the stack, reading stack maps out of the binary. On a VM where a page's
// first touch costs 20-35 µs, that was about 12 page faults of every
// jp-policy-exec run (docs/exec.md, "Where jp-policy-exec's faults go").
// A frame larger than 32 KB makes the runtime size the new stack for it
// directly (64 KB, taken from the heap like any large stack, so only the
// pages the stack reaches are ever touched), and nothing later needs a
// smaller pool.
//
// Why a package of its own: Go initialises packages in dependency order
// and, among those ready, by import path. A package that imports nothing
// runs its init right after the runtime's, before the standard library's
// initialisers grow the stack for the first time; the same call at the
// start of main came too late to save the first growth (8 faults of the
// 4 KB pool).
package earlystack
