// Package learn proposes the least access a tool needs: it runs a command
// observed, records what the command did to files and which TCP endpoints
// it connected to, and turns those observations into
// `conversation.tools.<tool>.access` rules in JP's own config language
// (docs/learn.md).
//
// Observation is a seccomp filter (Linux only, no cgo, no root) that picks
// out the file and connect system calls and lets every other call go:
// reads, writes, futexes and mmaps of an ordinary build never reach the
// observer. learn installs it on a thread of its own that then starts the
// command, and answers each picked call as a seccomp user notification:
// it reads the arguments from the command's memory, resolves them against
// the calling thread's working directory or directory descriptor, judges
// from the file system whether the call will find its path, and lets the
// call go on as made. exec --denials needs each call's error, which a
// notification never reports: there exec installs the same filter with
// SECCOMP_RET_TRACE, and a ptrace tracer reads each call at its entry and
// its result at its exit.
//
// Learning is not a sandbox: the command runs with the user's own rights,
// as firejail's --build and aa-genprof run theirs. The user runs learn on
// a command they trust, and learn says so on stderr.
//
// The proposal (Propose) goes through package policy, the one evaluator:
// every observed access inside the workspace is checked against the
// proposed rules before they are printed, and a proposal that would not
// allow one of them is an error, never output.
package learn
