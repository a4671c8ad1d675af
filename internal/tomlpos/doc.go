// Package tomlpos parses TOML and JSON config files into one generic tree in
// which every key and every value remembers the file, line and column it was
// written at. It is the only package that touches go-toml's unstable parser,
// so the rest of jp-policy can point diagnostics at the exact character a
// user typed without knowing which syntax the file used.
//
// The tree is deliberately untyped (tables, arrays, scalars): the config
// package decides what the keys mean, and the JSON Schema validator works on
// the plain Go values from Node.Value.
package tomlpos
