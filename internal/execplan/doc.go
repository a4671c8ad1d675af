// Package execplan is the part of the compiled artifact that exec reads
// before anything else, shared by compile (which writes it) and exec
// (which verifies it): the pin file outside the workspace and its tool
// table, the staleness inputs and their check, the per-tool exec plan
// (what exec needs of the tool, binding the pin to its manifests and the
// shared files they are completed with), and the decided Linux
// sandbox the namespaced path hands to its stage 2. Package artifact
// re-exports it for compile.
package execplan
