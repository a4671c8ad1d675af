// Package shquote quotes words for a POSIX shell, for the commands
// jp-policy prints for the user to run (`jp-policy mount …`,
// `jp-policy approvals …`).
package shquote

import "strings"

// Quote returns s as one shell word: unchanged when it holds only
// characters no shell treats specially, else in single quotes. A leading
// ~ is left unquoted in a plain word; jp-policy expands a quoted ~/dir
// itself, so either form means the home directory to it.
func Quote(s string) string {
	plain := strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:=~+,@%", r))
	}) < 0
	if plain && s != "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
