// Package lint owns jp-policy's rule catalogue: every check `jp-policy
// lint` runs over a merged JP config, the stable ID, severity and
// documentation of each (the loader's JP0xx findings included, so the
// catalogue is complete), and `# jp-policy: ignore` suppression.
//
// Each rule lives in its own file and registers itself from init. Rules
// never decide access on their own: path binding, host, env-name, config-
// path and argument validation are asked of package policy, so lint and
// the compiler cannot disagree about what a rule means.
//
// Rendering findings (text, JSON, SARIF, GitHub annotations) lives in the
// sub-package lint/report.
package lint
