package lint

import "github.com/jp-policy/jp-policy/internal/diag"

// The JP0xx findings come from config.Load. Lint passes them through
// (see Run) and catalogues them here so `jp-policy rules` and SARIF
// metadata cover every ID a user can meet.
var ruleJP001 = Rule{
	ID: "JP001", Name: "syntax", Severity: diag.Error, Loader: true,
	Title:       "A config file is not valid TOML or JSON",
	Description: "The file cannot be parsed, so none of its settings, including any access rules, can be known. The config cannot be loaded; lint reports the position and exits 2.",
	Fix:         "Correct the syntax at the reported position.",
}

var ruleJP002 = Rule{
	ID: "JP002", Name: "schema", Severity: diag.Error, Loader: true,
	Title:       "A value has the wrong type or shape for JP's config schema",
	Description: "JP rejects the whole config when a value does not match its schema (for example `read = \"yes\"` or `path = 1`). The tool would not start, or would start with a policy other than the one written.",
	Fix:         "Use the type the message names; `jp-policy schema` prints the full schema.",
}

var ruleJP003 = Rule{
	ID: "JP003", Name: "unknown-key", Severity: diag.Error, Loader: true,
	Title:       "Unknown key in the config: at the top level, in `conversation`, a tool, `enable`, `access` or a rule",
	Description: "JP's loader refuses unknown keys, so JP would not start with such a config; and a misspelt key is silently meaningless to a reader but not to the policy: `[[conversation.tools.t.acess.fs]]` leaves the tool on the default read-write policy, `delet = false` next to `write = true` leaves delete granted. The message suggests the nearest known key.",
	Fix:         "Rename the key to the suggested one, or remove it.",
}

var ruleJP004 = Rule{
	ID: "JP004", Name: "extends-missing", Severity: diag.Warning, Loader: true, Suppressible: true,
	Title:       "An `extends` entry names a file that does not exist",
	Description: "JP skips the entry, so rules the author expected from the extended file are missing from the merged policy. Missing rules only ever narrow a policy, so this is a warning.",
	Fix:         "Fix the path (it is relative to the declaring file) or remove the entry.",
}

var ruleJP005 = Rule{
	ID: "JP005", Name: "extends-cycle", Severity: diag.Error, Loader: true,
	Title:       "`extends` entries form a cycle",
	Description: "A file extends itself, directly or through others. The config cannot be loaded; lint reports the chain and exits 2.",
	Fix:         "Remove the `extends` entry that points back to an earlier file.",
}

var ruleJP006 = Rule{
	ID: "JP006", Name: "unsupported-extension", Severity: diag.Error, Loader: true,
	Title:       "A config file has an extension jp-policy does not read",
	Description: "Only `.toml`, `.json` and `.jsonc` config files are read, the extension in lower case (JP's loader matches it case-sensitively). A file with another extension named by `extends` or `--cfg` cannot be loaded, so lint exits 2 rather than check a policy with rules missing.",
	Fix:         "Rename the file to `.toml` or `.json`, or drop it from `extends`.",
}

var ruleJP007 = Rule{
	ID: "JP007", Name: "extends-match-not-file", Severity: diag.Error, Loader: true,
	Title:       "An `extends` glob matches something that is not a file: JP loads another file in its place, or ignores the whole layer",
	Description: "JP loads each match of an `extends` glob as a config file. A match that is not a file (a directory, `.` or `..` from a pattern such as `conf.d/.*`, a dangling symlink) is loaded as the same name with `.toml`, `.json`, `.json5`, `.yaml` or `.yml` in place of its extension, when one of these exists (a directory `tools/x.toml` matched by `tools/*.toml` loads `tools/x.json`, a file no pattern names); when none does, JP drops the whole file that started the load (`.jp/config.toml`, a `.jp.toml`, the global or user-workspace config, a `--cfg` file) with everything it extends, without a message. Its rules, deny rules included, are then not in force. jp-policy merges what JP merges (the file put in its place, or the layer left out) and reports the pattern, so the policy shown is JP's, and lint and compile stop at the error.",
	Fix:         "Write a pattern that matches config files only (`conf.d/*.toml` rather than `conf.d/*` or `conf.d/.*`), or remove the directory it matches.",
}
