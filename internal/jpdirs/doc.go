// Package jpdirs owns JP's directory rules as jp-policy reads them: where
// JP keeps the user-global config (GlobalConfigDir) and per-user data
// (UserDataDir), how it finds the workspace root (FindRoot) and its id
// (WorkspaceID, `.jp/.id`), the per-user storage directory of a
// workspace (UserWorkspaceDir, where approvals.json lives), and which
// conventional config file names it tries (Extensions, DotJPFiles,
// DirsDown), and how a typed `~` path is expanded (ExpandHome, for
// mount targets and attachment URIs).
//
// It is a leaf: the config loader, the approvals store and the exec
// launcher all need these rules, and only the loader needs the loader.
package jpdirs
