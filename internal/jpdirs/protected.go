package jpdirs

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/platform"
)

// Protected is one path outside the workspace that a tool must not write
// even where a writable grant (an external mount of the home directory,
// say) covers it: JP's and jp-policy's own trust anchors, and files that
// run code as the user outside any sandbox. Lint (JP116) warns about a
// grant that reaches one, and compile keeps every one a tool's writable
// grant covers read-only on exec's namespaced path; both take the list
// from ProtectedPaths, so they agree.
type Protected struct {
	// Path is absolute and clean, not resolved through symlinks (the
	// callers canonicalise it with package policy).
	Path string
	// What says what the path is and what writing it would do.
	What string
}

// ProtectedEnv names the variables ProtectedPaths, GlobalConfigDir and
// UserDataDir read on this platform: every compiled policy records them
// as inputs, so exec run with another home, config or data directory
// (where JP would read other user-level config layers, and other paths
// are the protected ones) refuses as stale.
func ProtectedEnv() []string {
	env := []string{"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "JP_GLOBAL_CONFIG_DIR", "JP_USER_DATA_DIR", "ZDOTDIR", "PATH", "LD_LIBRARY_PATH", "LD_PRELOAD"}
	if platform.Host == platform.Windows {
		env = append(env, "USERPROFILE", "APPDATA", "LOCALAPPDATA")
	}
	return env
}

// homeStartup are the files under the home directory that a shell, git
// or ssh runs or obeys as the user, outside any sandbox. The list follows
// sandbox-runtime's mandatory write denials (its DANGEROUS_FILES:
// .gitconfig, .bashrc, .bash_profile, .zshrc, .zprofile, .profile),
// completed with the other start-up files the same shells read (bash's
// .bash_login and .bash_logout, zsh's .zshenv, .zlogin and .zlogout) and
// ~/.ssh (authorized_keys lets anyone in, config and rc run commands),
// and by what the default start-up files of common distributions run in
// turn: ~/.bash_aliases (sourced by Debian's and Ubuntu's ~/.bashrc),
// ~/.bashrc.d (every file in it sourced by Fedora's ~/.bashrc),
// ~/.local/bin and ~/bin (put on PATH by Debian's and Ubuntu's ~/.profile
// and Fedora's ~/.bashrc when they exist: a program there shadows git or
// ls in the user's next shell) and the X session scripts display managers
// run at login (~/.xprofile, ~/.xsessionrc, ~/.xsession, ~/.xinitrc).
// Its per-project entries (.git, .gitmodules, .vscode, .idea) and
// Claude's own files (.mcp.json, .ripgreprc) are not home-directory
// start-up files: .git is one of the workspace's protected names.
var homeStartup = []struct{ rel, what string }{
	{".bashrc", startup},
	{".bash_profile", startup},
	{".bash_login", startup},
	{".bash_logout", startup},
	{".profile", startup},
	{".zshrc", startup},
	{".zshenv", startup},
	{".zprofile", startup},
	{".zlogin", startup},
	{".bash_aliases", startup},
	{".bashrc.d", startup},
	{".zlogout", startup},
	{".xprofile", xSession},
	{".xsessionrc", xSession},
	{".xsession", xSession},
	{".xinitrc", xSession},
	{".gitconfig", gitConfig},
	{filepath.Join(".local", "bin"), onPath},
	{filepath.Join(".local", "lib"), "Python's per-user site-packages (~/.local/lib/pythonX.Y/site-packages): a `.pth` file or `usercustomize.py` there runs as you in the next Python you start, outside any sandbox"},
	{"bin", onPath},
	{filepath.Join("go", "bin"), "where `go install` puts programs (commonly on PATH, and where jp-policy itself is installed): a program written there runs as you, outside any sandbox, in place of the one you or JP start next"},
	{filepath.Join(".cargo", "bin"), "where `cargo install` and rustup put programs (on PATH through ~/.cargo/env): a program written there runs as you, outside any sandbox, in place of cargo or rustc"},
	{filepath.Join(".cargo", "config.toml"), "cargo's user config, which can make your next cargo command run programs as you (build.rustc-wrapper, target runners, aliases)"},
	{filepath.Join(".cargo", "config"), "cargo's user config (old name), which can make your next cargo command run programs as you (build.rustc-wrapper, target runners)"},
	{".npmrc", "npm's user config, which can make your next npm command run programs as you (script-shell, node-options, a registry serving changed packages)"},
	{".yarnrc", "yarn's user config, which can make your next yarn command run programs as you (yarn-path)"},
	{filepath.Join(".docker", "config.json"), "docker's client config (credential helpers, which docker runs as you; registry credentials)"},
	{".vimrc", editor},
	{".vim", editor},
	{".gvimrc", editor},
	{".exrc", editor},
	{".emacs", editor},
	{".emacs.d", editor},
	{".tmux.conf", "tmux's config, which runs commands as you when tmux next starts (run-shell, bindings)"},
	{".inputrc", "readline's config, which binds keys of your next shell to commands"},
	{".ssh", "ssh's directory: authorized_keys lets anyone who holds a listed key log in as you, config and rc run commands on your next ssh"},
}

// xdgStartup are the same kind of files under the XDG config directory
// ($XDG_CONFIG_HOME, else ~/.config).
var xdgStartup = []struct{ rel, what string }{
	{"fish", "fish's config directory (config.fish, conf.d, functions), which runs as you in your next fish shell"},
	{"git", gitConfig},
	{"systemd", "systemd's user units, which run as you outside any sandbox at your next login or timer"},
	{"autostart", "the desktop's autostart entries, which run as you at your next login"},
	{"environment.d", "systemd's user environment (PATH, LD_PRELOAD), set for every program of your next login session"},
	{"plasma-workspace", "KDE Plasma's env and shutdown scripts, which run as you at your next login or logout"},
	{"nvim", editor},
	{"direnv", "direnv's config (direnvrc, lib/), which runs as you in your shell whenever you enter a directory with an allowed .envrc"},
	{"tmux", "tmux's config directory, which runs commands as you when tmux next starts"},
	{"emacs", editor},
}

// xdgDataStartup are the same kind of files under the XDG data directory
// ($XDG_DATA_HOME, else ~/.local/share).
var xdgDataStartup = []struct{ rel, what string }{
	{"systemd", "systemd's user units (read from here as from ~/.config/systemd), which run as you outside any sandbox at your next login or timer"},
	{"bash-completion", "bash-completion's per-user completions, which run as you in your next shell when you complete a command's arguments"},
}

// zdotdirStartup are zsh's start-up files in $ZDOTDIR, which zsh reads
// instead of the home directory's when the variable is set (commonly
// exported from ~/.zshenv to ~/.config/zsh, so every program started from
// zsh, JP included, sees it).
var zdotdirStartup = []string{".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout"}

const (
	startup   = "shell start-up files, which run as you, outside any sandbox, in your next shell"
	xSession  = "X session start-up scripts, which run as you, outside any sandbox, at your next graphical login"
	onPath    = "a directory on PATH (Debian's, Ubuntu's and Fedora's default start-up files add it): a program written there runs as you, outside any sandbox, in place of the one your next shell command names"
	editor    = "an editor's start-up files, which run as you, outside any sandbox, when you next open the editor (vim's and neovim's run any command, and load plugins from there)"
	onPATH    = "a directory on PATH: a program written there runs as you, outside any sandbox, in place of the one you, JP or jp-policy start next by that name"
	onLibPath = "on the dynamic loader's path (LD_LIBRARY_PATH, LD_PRELOAD): a library written there is loaded, as you and outside any sandbox, into the programs you start next"
	ownBinary = "the directory holding jp-policy's own binaries: a program written there runs unsandboxed in place of jp-policy at the next tool call"
	gitConfig = "git's user config, which can make your next git command run programs as you (core.hooksPath, aliases, filters, core.sshCommand)"
)

// PolicyDataDir is jp-policy's own directory under JP's user data
// directory dataDir: the pins and verify caches (package execplan) live
// there, and it is a protected path.
func PolicyDataDir(dataDir string) string { return filepath.Join(dataDir, "jp-policy") }

// SelfEscalation words the consequence of writing one of JP's own files.
func SelfEscalation(what string) string {
	return what + ", so it can rewrite its own access policy for its next run"
}

// ProtectedPaths lists the protected paths for the workspace at root
// ("" for none: its user storage is then left out), as getenv locates
// them; a directory that cannot be located (no home, no data dir) is
// left out. JP's own come first: its user config directory, this
// workspace's user storage (approvals.json), jp-policy's pins and
// verify caches under the user data directory, which decide what exec
// trusts, and that whole directory (every workspace's storage).
func ProtectedPaths(root string, getenv func(string) string) []Protected {
	getenv = getenvOrOS(getenv)
	var out []Protected
	if d, err := GlobalConfigDir(getenv); err == nil && d != "" {
		out = append(out, Protected{d, SelfEscalation("JP's user config directory")})
	}
	if root != "" {
		if d, err := UserWorkspaceDir(root, getenv); err == nil && d != "" {
			out = append(out, Protected{d, SelfEscalation("JP's user storage for this workspace, which holds approvals.json")})
		}
	}
	if d, err := UserDataDir(getenv); err == nil && d != "" {
		out = append(out, Protected{PolicyDataDir(d), "jp-policy's pins and verify caches, so it can forge the pin of a workspace and make the next exec trust an artifact it wrote itself"})
		// Whole: every workspace's storage is there, and each one's
		// approvals.json and config decide what that workspace's tools
		// may do (attack_protected_other_workspace.txtar).
		out = append(out, Protected{d, SelfEscalation("JP's user data directory, which holds every workspace's approvals.json and user-workspace config")})
	}
	out = append(out, principled(getenv)...)
	h := home(getenv)
	if h == "" || !filepath.IsAbs(h) {
		return out
	}
	h = filepath.Clean(h)
	for _, f := range homeStartup {
		out = append(out, Protected{filepath.Join(h, f.rel), f.what})
	}
	xdg := absEnv(getenv, "XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(h, ".config")
	}
	for _, f := range xdgStartup {
		out = append(out, Protected{filepath.Join(filepath.Clean(xdg), f.rel), f.what})
	}
	data := absEnv(getenv, "XDG_DATA_HOME")
	if data == "" {
		data = filepath.Join(h, ".local", "share")
	}
	for _, f := range xdgDataStartup {
		out = append(out, Protected{filepath.Join(filepath.Clean(data), f.rel), f.what})
	}
	if z := absEnv(getenv, "ZDOTDIR"); z != "" && filepath.Clean(z) != h {
		for _, rel := range zdotdirStartup {
			out = append(out, Protected{filepath.Join(filepath.Clean(z), rel), startup + " ($ZDOTDIR)"})
		}
	}
	return out
}

// principled are the protected paths that no list has to name: every
// directory on PATH (what the user's next command, JP, and the tool's own
// PATH look up; relative entries are left out: they name no fixed place)
// and the directory holding the running jp-policy binary. A program
// written to one of them runs as the user, outside any sandbox, the next
// time its name is run. An entry that starts with `~` is the home
// directory's: bash expands it when it looks a command up
// (`PATH="~/scripts:$PATH"`, quoted, keeps the `~`), so it names a fixed
// place (attack_protected_path_tilde.txtar).
func principled(getenv func(string) string) []Protected {
	var out []Protected
	seen := map[string]bool{}
	add := func(p, what string) {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			out = append(out, Protected{p, what})
		}
	}
	h := home(getenv)
	for _, d := range filepath.SplitList(getenv("PATH")) {
		if rest, ok := strings.CutPrefix(d, "~"); ok && (rest == "" || rest[0] == '/') && h != "" && filepath.IsAbs(h) {
			d = filepath.Join(h, rest)
		}
		if d != "" && filepath.IsAbs(d) {
			add(d, onPATH)
		}
	}
	// The dynamic loader's search path and preloads, as PATH is the
	// shell's: a library written there is loaded into every program the
	// user starts next (attack_protected_path_tilde.txtar).
	for _, d := range filepath.SplitList(getenv("LD_LIBRARY_PATH")) {
		if d != "" && filepath.IsAbs(d) {
			add(d, onLibPath)
		}
	}
	for _, f := range strings.FieldsFunc(getenv("LD_PRELOAD"), func(r rune) bool { return r == ' ' || r == ':' }) {
		if filepath.IsAbs(f) {
			add(f, onLibPath)
		}
	}
	if exe, err := os.Executable(); err == nil {
		add(filepath.Dir(exe), ownBinary)
	}
	return out
}
