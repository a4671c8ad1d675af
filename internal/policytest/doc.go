// Package policytest generates random workspaces (directories, files and
// symlinks inside and outside the root, including dangling links and
// loops) and random policies over them, for property tests of the policy
// engine and of the `check` command. It is test support only.
package policytest
