// Package earlyheap backs the part of the Go heap a short-lived jp-policy
// process is about to use with one transparent huge page, so the pages
// its work touches for the first time do not each take a page fault.
// Import it for its side effect (a blank import) in a binary whose
// start-up cost matters; jp-policy does.
//
// Why: a Go process's own work (parsing, maps, the objects of a lint run)
// touches about 900 KB of fresh heap after the runtime has started, one
// 4 KB page at a time, and every first touch is a page fault. On the
// machine the benchmarks run on, a fault costs 15-20 µs, so those ~225
// faults were the largest single cost of `jp-policy lint` (docs/lint.md,
// "Huge pages for the heap"). With the 2 MB around the allocator's
// current position collapsed into one huge page (madvise MADV_COLLAPSE)
// and the next 2 MB marked for huge pages (MADV_HUGEPAGE), the same work
// takes a handful of faults.
//
// What it costs and where it does nothing: the process's resident memory
// grows by up to 4 MB, which a command that exits within milliseconds can
// afford. Where the kernel has no transparent huge pages (other systems,
// or Linux with them set to "never"), or cannot find a free huge page at
// once, the calls fail and are ignored: the heap stays on 4 KB pages and
// behaves exactly as before. Nothing here changes what the program does,
// only which pages back its memory.
package earlyheap
