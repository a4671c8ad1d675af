// Package jpdirs owns JP's directory rules as jp-policy reads them: where
// JP keeps the user-global config (GlobalConfigDir) and per-user data
// (UserDataDir), how it finds the workspace root (FindRoot) and its id
// (WorkspaceID, `.jp/.id`), the per-user storage directory of a
// workspace (UserWorkspaceDir, where approvals.json lives), and which
// conventional config file names it tries (Extensions, DotJPFiles,
// DirsDown), how a typed `~` path is expanded (ExpandHome, for
// mount targets and attachment URIs), and which paths outside the
// workspace no tool may write (ProtectedPaths: JP's own directories,
// jp-policy's pins, shell, git and ssh start-up files; lint's JP116 and
// compile's Linux manifests take the one list from here).
//
// It is a leaf: the config loader, the approvals store and the exec
// launcher all need these rules, and only the loader needs the loader.
package jpdirs
