// Package termstyle holds the output conventions every jp-policy command
// shares, so that they are decided in one place: whether to colour
// (--color auto|always|never with NO_COLOR, FORCE_COLOR and TERM=dumb),
// how wide the terminal is (for wrapped lines), a writer that wraps long
// lines with a hanging indent, how a machine-readable (--format json)
// result is written, and the one escaping of text that came from config
// before it reaches a terminal or a report (Safe, Code, Inline,
// SafeLines).
//
// It knows nothing about policies: commands pass it their writers and
// their results. Renderers that colour (internal/lint/report) take the
// boolean Colorize decides, rather than deciding for themselves.
package termstyle
