// Package suggest owns "did you mean" suggestions: which known names are
// close enough to a misspelt one to be worth offering. Every message in
// jp-policy that names an unknown key, tool or rule uses it, so they all
// suggest the same way.
package suggest
