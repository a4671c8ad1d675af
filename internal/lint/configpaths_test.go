package lint

import "github.com/jp-policy/jp-policy/internal/policy"

// configMapPaths is policy's map-path table, for the docs test (the
// package itself asks policy when it needs it, so nothing is copied at
// init).
var configMapPaths = policy.ConfigMapPaths()
