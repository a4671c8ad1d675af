package termstyle

// Painter wraps words in ANSI colour when On, and returns them unchanged
// otherwise, so callers write one code path for both. Only status words
// are painted (ok, denied, enforced, ...), never paths or values a user
// might copy.
type Painter struct{ On bool }

const (
	ansiReset  = "\x1b[0m"
	ansiRed    = "\x1b[1;31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
)

func (p Painter) paint(code, s string) string {
	if !p.On || s == "" {
		return s
	}
	return code + s + ansiReset
}

// Good paints a word that means the answer is yes (allowed, ok,
// enforced).
func (p Painter) Good(s string) string { return p.paint(ansiGreen, s) }

// Bad paints a word that means no or broken (denied, BROKEN).
func (p Painter) Bad(s string) string { return p.paint(ansiRed, s) }

// Warn paints a word that means "works, but less than asked" (degraded,
// cooperative).
func (p Painter) Warn(s string) string { return p.paint(ansiYellow, s) }
