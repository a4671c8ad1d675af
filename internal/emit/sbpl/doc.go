// Package sbpl owns the macOS emitter: it renders a tool's compiled policy
// as a sandbox-exec (Seatbelt, SBPL) profile following RFD 075's mapping,
// with the named process-start baseline (baseline.go: every entry with its
// reason and the working profile it comes from), narrower rules carved out
// of broader ones with require-not, the launcher's filtering proxy as the
// only network destination, and a clause list saying what macOS enforces,
// degrades or leaves to the tool's own check.
//
// Build is a pure function of its input: the host facts a profile needs
// (the developer directory, the home) come in the emit.Tool, found by the
// compiler; what only a run knows (the scratch directory, the program,
// the proxy's port) is a profile parameter the launcher defines with
// sandbox-exec -D. Every operation, filter and modifier the profiles use
// is on TestVocabulary's list of names with a working precedent, since an
// unknown one makes sandbox-exec refuse the whole profile. Quote is the
// one place SBPL strings are escaped.
package sbpl
