package policy

import (
	"strings"
	"unicode/utf8"

	"github.com/jp-policy/jp-policy/internal/platform"

	"golang.org/x/text/unicode/norm"
)

// caseInsensitive is true where the default file systems ignore case and
// Unicode normalisation (APFS on macOS, NTFS on Windows). There,
// "SECRET/key" opens secret/key, so rule keys and target keys are folded
// before matching; otherwise a deny rule on "secret" would be dodged by
// spelling it differently. On a case-sensitive volume of those systems
// the fold can make a rule cover a sibling that differs only in case,
// which is the lesser risk. Tests flip it.
var caseInsensitive = platform.Host == platform.Darwin || platform.Host == platform.Windows

// foldKey returns the matching form of a key: itself where the file
// system is case-sensitive, else NFC-normalised and lower-cased. Plain
// lower-case ASCII keys are returned without allocating.
func foldKey(s string) string {
	if !caseInsensitive {
		return s
	}
	plain := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c >= 'A' && c <= 'Z' {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return strings.ToLower(norm.NFC.String(s))
}

// hasFoldedPathPrefix is hasPathPrefix on folded paths.
func hasFoldedPathPrefix(p, prefix string) bool {
	return hasPathPrefix(foldKey(p), foldKey(prefix))
}
