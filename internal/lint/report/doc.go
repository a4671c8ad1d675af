// Package report renders lint findings for people and machines: the text
// form with source excerpts and carets, JSON Lines, SARIF 2.1.0 for code
// scanning, and GitHub Actions workflow commands. It never decides what a
// finding is; it only shows what package lint (or the loader) produced.
package report
