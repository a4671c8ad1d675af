// Package sbpl owns the macOS emitter: it renders a tool's compiled policy
// as a sandbox-exec (Seatbelt, SBPL) profile following RFD 075's mapping,
// with the named process-start baseline, narrower rules carved out of
// broader ones with require-not, TCP ports for net rules, and a clause
// list saying what macOS enforces, degrades or leaves to the tool's own
// check. Quote is the one place SBPL strings are escaped.
package sbpl
