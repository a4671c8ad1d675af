package config

import "github.com/jp-policy/jp-policy/internal/diag"

// LayerKind names where a config file sits in JP's load order.
type LayerKind string

const (
	LayerGlobal        LayerKind = "global"         // $JP_GLOBAL_CONFIG_DIR/config.toml or the platform config dir
	LayerWorkspace     LayerKind = "workspace"      // <ws>/.jp/config.toml
	LayerDotJP         LayerKind = "dotjp"          // .jp.toml from the root down to the cwd
	LayerUserWorkspace LayerKind = "user-workspace" // <user_data_dir>/workspace/<slug>-<id>/config.toml
	LayerEnv           LayerKind = "env"            // JP_CFG_* variables
	LayerConversation  LayerKind = "conversation"   // a stored conversation's config (Options.Conversation)
	LayerCfg           LayerKind = "cfg"            // --cfg FILE
)

// Layer is one source merged into the result, in merge order. Files pulled
// in by `extends` appear as their own layers with ExtendedBy set.
type Layer struct {
	Kind       LayerKind `json:"kind"`
	Path       string    `json:"path"`                  // absolute file path; "env" for LayerEnv
	ExtendedBy string    `json:"extended_by,omitempty"` // the declaring file, for extends
}

// Str is a merged string value with the place that set it.
type Str struct {
	Value string
	Pos   diag.Position
	Set   bool
	// Overrode lists earlier layers' positions that this value replaced,
	// oldest first, so messages can say which layer overrode which.
	Overrode []diag.Position
}

// Bool is a merged boolean value with the place that set it.
type Bool struct {
	Value    bool
	Pos      diag.Position
	Set      bool
	Overrode []diag.Position
}

// Loaded is the merged configuration of one workspace.
type Loaded struct {
	Root   string  // canonical absolute workspace root
	Cwd    string  // the working directory the layers were discovered from
	Layers []Layer // every file and source read, in merge order
	// Files holds the bytes of every file read, keyed by absolute path, so
	// lint can show source lines and read suppression comments and the
	// compiler can digest its inputs.
	Files map[string][]byte
	// Env holds the JP_CFG_* variables that took part, for digests.
	Env map[string]string
	// Tools are the merged `conversation.tools.<name>` entries; the
	// defaults table `conversation.tools.'*'` is not a tool and is kept in
	// Defaults.
	Tools    map[string]*Tool
	Defaults *Tool
	// Diagnostics holds non-fatal findings of loading (missing extends
	// target, ...). Fatal problems are returned as errors instead.
	Diagnostics diag.List
	// Candidates are files looked for but absent (global config, the
	// workspace config, .jp.toml at each level, the user-workspace config,
	// each under every extension JP tries: .toml, .json, .json5, .yaml,
	// .yml), so a compiled artifact goes stale when one appears.
	Candidates []string
	// Skipped lists discovered file layers that `inherit = false` kept
	// out, for `config` to explain.
	Skipped []string
	// GlobDirs are the directories an extends glob searches (its longest
	// literal prefix, when it exists): a file created anywhere below one
	// can be a new match, a layer JP reads.
	GlobDirs []string
	// Conversation is the stored conversation merged between the env
	// layer and --cfg (Options.Conversation), nil when none.
	Conversation *Conversation
}

// Tool is one merged `conversation.tools.<name>` table.
type Tool struct {
	Name   string
	Pos    diag.Position // first place the tool's table appeared
	Source Str
	// Enable holds a boolean `enable`; EnableMode holds the string forms
	// JP also accepts (such as "explicit"). Writing either form replaces
	// the other, so at most one is Set.
	Enable     Bool
	EnableMode Str
	// AllowToggle is `allow_toggle` of the table form
	// enable = { state, allow_toggle } (JP's EnableConfig, RFD 081), whose
	// state goes to Enable. JP merges the table's two fields separately.
	AllowToggle Str
	Run         Str
	// Command is the command as written: the string form verbatim, or for
	// the table form its program and args joined by spaces.
	Command Str
	Access  *Access // nil when no layer wrote `access`
}

// Access is a merged `access` table. A nil slice means no layer declared
// that list; Decl records every place that wrote it (including writes
// that left it empty, which lint warns about).
type Access struct {
	Pos diag.Position // first `access` key seen

	FS     []FsRule
	FSDecl []diag.Position

	Net     []NetRule
	NetDecl []diag.Position

	Env     []EnvRule
	EnvDecl []diag.Position

	Config     []ConfigRule
	ConfigDecl []diag.Position

	// Commands is nil when no layer declared `commands`.
	Commands     map[string]*CommandRule
	CommandsDecl []diag.Position

	SensitivePaths []Str

	// Replaced records every merge that dropped earlier layers' rules
	// (strategy = "replace", or an earlier value marked
	// discard_when_merged), so messages can say which layer overrode
	// which.
	Replaced []Replacement
}

// Replacement is one merge that dropped earlier rules of a list.
type Replacement struct {
	List    string          // "fs", "net", "env", "config" or "sensitive_paths"
	By      diag.Position   // where the replacing value was written
	Reason  string          // "replace" or "discard_when_merged"
	Dropped []diag.Position // the rules it dropped, oldest first
	// Implicit is set when the layer did not write the list at all: its
	// `access` table (or an access variable) named other keys or none,
	// and JP reads the missing list as an empty one, which drops a value
	// marked discard_when_merged (lint JP130).
	Implicit bool
	// Empty is set when the replacing value holds no rule (implicit, or
	// an empty list written).
	Empty bool
}

// Keys lists each key written inside a rule with the span of its value, as
// the parser recorded it, so a diagnostic can underline `"/etc"` in
// `path = "/etc"` rather than the whole table. A list rather than a map:
// a rule has a handful of keys and a large config many thousands of
// rules, for which a map each would be a large share of a compile's
// memory.
type Keys []Key

// Key is one key of a rule and the span of its value.
type Key struct {
	Name string
	Pos  diag.Position
}

// Get returns the span of key's value, if the rule wrote key.
func (k Keys) Get(key string) (diag.Position, bool) {
	for _, e := range k {
		if e.Name == key {
			return e.Pos, true
		}
	}
	return diag.Position{}, false
}

// FsRule is one `access.fs` entry as written (before canonicalisation).
type FsRule struct {
	Pos      diag.Position
	Keys     Keys
	Path     string
	External *bool
	Read     *bool
	Write    *bool
	Create   *bool
	Update   *bool
	Delete   *bool
	Execute  *bool
}

// NetRule is one `access.net` entry as written.
type NetRule struct {
	Pos        diag.Position
	Keys       Keys
	Host       string
	Scheme     *string
	Port       *int64
	PathPrefix *string
	Allow      *bool
}

// EnvRule is one `access.env` entry as written.
type EnvRule struct {
	Pos  diag.Position
	Keys Keys
	Name string
	Read *bool
}

// ConfigRule is one `access.config` entry as written. Write holds nil,
// a bool, or the string "insecure_allow".
type ConfigRule struct {
	Pos    diag.Position
	Keys   Keys
	Path   string
	Read   *bool
	Write  any
	Delete *bool
	Apply  *string
}

// CommandRule is one `access.commands.<program>` entry as written.
type CommandRule struct {
	Pos     diag.Position
	Keys    Keys
	Program string
	Args    [][]string // nil when `args` is absent
	Envs    []string
	// Overrode lists the positions of earlier layers' entries for the same
	// program that this one replaced, oldest first.
	Overrode []diag.Position
}

// PolicyFiles lists every file the configuration was read from: each
// file layer (extends targets included) and each file layer `inherit =
// false` kept out. A tool that could write one could change its own
// policy, or a command JP runs, for the next run, so exec keeps them
// read-only as it keeps .jp/ (compile's protected paths; lint's JP116).
// Files looked for but absent (Candidates) are not listed: one a tool
// creates is a new layer, which makes the artifact stale, and the next
// exec refuses a policy it widens until the user accepts it. The
// directories an extends glob searches are listed, whole: a file a tool
// created there was a new match, a layer JP read, that nothing recorded
// as a candidate (attack_config_glob_write.txtar).
func (l *Loaded) PolicyFiles() []string {
	var out []string
	for _, layer := range l.Layers {
		if layer.Kind != LayerEnv {
			out = append(out, layer.Path)
		}
	}
	out = append(out, l.Skipped...)
	return append(out, l.GlobDirs...)
}
