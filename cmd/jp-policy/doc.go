// Command jp-policy checks, compiles and enforces the tool access policy
// of the JP assistant CLI. This package stays thin: it declares the flags,
// calls into the packages that own each job, and turns their results into
// exit codes. Each subcommand lives in its own cmd_<name>.go file.
package main
