// Package sbpl holds what the macOS plan shares between the profile
// compile writes (internal/emit/sbpl) and the launcher that loads it: the
// parameters the launcher defines with sandbox-exec -D.
package sbpl
