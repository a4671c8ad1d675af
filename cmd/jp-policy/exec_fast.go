package main

import "github.com/jp-policy/jp-policy/internal/launcher"

// parseExecFast parses `jp-policy exec` arguments without kong
// (launcher.ParseArgs); false leaves the
// line to kong, the one source of help and error messages.
func parseExecFast(args []string) (*ExecCmd, bool) {
	a, ok := launcher.ParseArgs(args)
	if !ok {
		return nil, false
	}
	return &ExecCmd{
		Workspace: a.Workspace, Policy: a.Policy, Default: a.Default, Tool: a.Tool,
		BestEffort: a.BestEffort, RequireABI: a.RequireABI, DryRun: a.DryRun,
		Format: "text", // kong's default; --format goes to kong
		Masks:  a.Masks, Namespaces: a.Namespaces, NoNamespaces: a.NoNamespaces,
		LogNet: a.LogNet, Command: a.Command,
	}, true
}
