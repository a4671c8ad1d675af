package policy

import (
	"bytes"
	"encoding/json"
)

// AccessPolicy is the compiled grant set one tool receives. Its JSON form
// deserialises as JP's jp_tool::AccessPolicy; Commands and Config are
// jp-policy extensions that JP ignores.
//
// An empty (or nil) FS list means "unrestricted, but confined to the
// workspace"; the same holds per resource type for Net and Env (RFD 076
// default-deny is per type). Config is default-deny even when empty
// (RFD 078). A nil Commands map allows any program (RFD 075).
type AccessPolicy struct {
	FS       []FsRule               `json:"fs"`
	Net      []NetRule              `json:"net"`
	Env      []EnvRule              `json:"env"`
	Commands map[string]CommandRule `json:"commands,omitempty"`
	Config   []ConfigRule           `json:"config,omitempty"`
}

// FsRule is one compiled filesystem grant in JP's wire shape. Capability
// fields are tri-state: nil means "not written", which serialises as null
// and reads as false, except that create/update/delete fall back to Write.
type FsRule struct {
	// LexicalPath is workspace-relative and slash-separated; "" is the
	// workspace root. For ordinary rules it is the canonical form; for
	// external rules it is the lexical form with the rule's own symlink
	// left unresolved (RFD D43).
	LexicalPath string `json:"lexical_path"`
	External    bool   `json:"external"`
	// ApprovedTarget is the canonical absolute target an external rule may
	// resolve into; nil for ordinary rules.
	ApprovedTarget *string `json:"approved_target"`
	Read           *bool   `json:"read"`
	Write          *bool   `json:"write"`
	Create         *bool   `json:"create"`
	Update         *bool   `json:"update"`
	Delete         *bool   `json:"delete"`
	Execute        *bool   `json:"execute"`
}

func deref(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// CanRead reports whether the rule grants read.
func (r FsRule) CanRead() bool { return deref(r.Read, false) }

// CanCreate reports whether the rule grants create (Write is the default).
func (r FsRule) CanCreate() bool { return deref(r.Create, deref(r.Write, false)) }

// CanUpdate reports whether the rule grants update (Write is the default).
func (r FsRule) CanUpdate() bool { return deref(r.Update, deref(r.Write, false)) }

// CanDelete reports whether the rule grants delete (Write is the default).
func (r FsRule) CanDelete() bool { return deref(r.Delete, deref(r.Write, false)) }

// CanExecute reports whether the rule grants execute.
func (r FsRule) CanExecute() bool { return deref(r.Execute, false) }

// Capability is one atomic filesystem capability of RFD 076.
type Capability int

const (
	Read Capability = iota
	Create
	Update
	Delete
	Execute
)

// Capabilities lists every capability in declaration order.
var Capabilities = []Capability{Read, Create, Update, Delete, Execute}

func (c Capability) String() string {
	switch c {
	case Read:
		return "read"
	case Create:
		return "create"
	case Update:
		return "update"
	case Delete:
		return "delete"
	case Execute:
		return "execute"
	}
	return "unknown"
}

// Grants reports whether the rule grants capability c.
func (r FsRule) Grants(c Capability) bool {
	switch c {
	case Read:
		return r.CanRead()
	case Create:
		return r.CanCreate()
	case Update:
		return r.CanUpdate()
	case Delete:
		return r.CanDelete()
	case Execute:
		return r.CanExecute()
	}
	return false
}

// GrantedNames lists the capabilities the rule grants, by name, in
// declaration order; nil when it grants nothing.
func (r FsRule) GrantedNames() []string {
	var out []string
	for _, c := range Capabilities {
		if r.Grants(c) {
			out = append(out, c.String())
		}
	}
	return out
}

// NetRule is RFD 076's network grant. Host is stored IDNA-normalised
// (ASCII, lower case) in a compiled policy.
type NetRule struct {
	Host       string  `json:"host"`
	Scheme     *string `json:"scheme"`
	Port       *uint16 `json:"port"`
	PathPrefix *string `json:"path_prefix"`
	Allow      bool    `json:"allow"`
}

// EnvRule is RFD 076's environment grant: an exact name, or a prefix with
// a trailing '*'.
type EnvRule struct {
	Name string `json:"name"`
	Read bool   `json:"read"`
}

// CommandRule is RFD 075's subprocess grant for one program.
type CommandRule struct {
	// Args lists the allowed argument lists, each matched element by
	// element against the whole argument list; only a final "**" matches
	// any rest.
	// nil means any arguments.
	Args [][]string `json:"args"`
	// Envs narrows which of the tool's allowed variables reach this
	// program.
	Envs []string `json:"envs"`
}

// ConfigWrite is RFD 078's `write` field: false, true, or "insecure_allow".
type ConfigWrite string

const (
	ConfigWriteDeny          ConfigWrite = ""
	ConfigWriteAllow         ConfigWrite = "true"
	ConfigWriteInsecureAllow ConfigWrite = "insecure_allow"
)

// ConfigRule is RFD 078's config grant on a dot-separated config path,
// where '*' matches exactly one segment.
type ConfigRule struct {
	Path   string      `json:"path"`
	Read   bool        `json:"read"`
	Write  ConfigWrite `json:"write"`
	Delete bool        `json:"delete"`
	Apply  string      `json:"apply"` // "ask" (default) or "unattended"
}

// MarshalJSON writes nil fs, net and env lists as [] (JP rejects null),
// and keeps the difference between "no commands table" (any
// program; the key is left out) and an empty one (no program may run;
// written as {}), which a plain omitempty would erase: a round trip must
// never turn "nothing may run" into "anything may run".
func (p AccessPolicy) MarshalJSON() ([]byte, error) {
	type plain AccessPolicy // no methods, so no recursion
	type wire struct {
		plain
		Commands *map[string]CommandRule `json:"commands,omitempty"`
	}
	w := wire{plain: plain(p)}
	// JP deserialises fs/net/env with serde's `default`, which accepts a
	// missing key or a list but rejects null; write nil lists as [].
	if w.FS == nil {
		w.FS = []FsRule{}
	}
	if w.Net == nil {
		w.Net = []NetRule{}
	}
	if w.Env == nil {
		w.Env = []EnvRule{}
	}
	if p.Commands != nil {
		w.Commands = &p.Commands
	}
	// Paths may hold & < >; keep them readable, as the rest of the
	// artifact does.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
