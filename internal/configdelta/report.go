package configdelta

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// WriteText renders r for people: the structural errors, one block per
// leaf as `jp-policy check` prints a decision, then the delta's verdict.
func (r Result) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, e := range r.Invalid {
		fmt.Fprintf(&b, "invalid: %s\n", e)
		if e.Help != "" {
			fmt.Fprintf(&b, "  help: %s\n", e.Help)
		}
	}
	for _, e := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", e)
		if e.Help != "" {
			fmt.Fprintf(&b, "  help: %s\n", e.Help)
		}
	}
	for _, l := range r.Leaves {
		b.WriteString(l.Decision.Human())
		if l.Merge != "" {
			fmt.Fprintf(&b, "  merge: %s\n", l.Merge)
		}
		if l.Note != "" {
			fmt.Fprintf(&b, "  note: %s\n", l.Note)
		}
	}
	writes, deletes, refused := 0, 0, 0
	for _, l := range r.Leaves {
		if l.Op == policy.ConfigDelete {
			deletes++
		} else {
			writes++
		}
		if !l.Decision.Allowed {
			refused++
		}
	}
	counts := fmt.Sprintf("%d %s, %d %s", writes, plural(writes, "write"), deletes, plural(deletes, "delete"))
	switch {
	case r.Allowed && r.Apply == ApplyNone:
		b.WriteString("delta: allowed; the outcome changes no config\n")
	case r.Allowed:
		fmt.Fprintf(&b, "delta: allowed, apply = %s (%s)\n", r.Apply, counts)
		if r.Apply == policy.ApplyAsk {
			b.WriteString("  JP asks the user before applying it, and rejects it as confirmation_unavailable in a non-interactive session\n")
		}
	case r.Reason == ReasonInvalid:
		fmt.Fprintf(&b, "delta: rejected as %s (%d %s); JP re-invokes the tool with context.delta_rejection\n", ReasonInvalid, len(r.Invalid), plural(len(r.Invalid), "error"))
	default:
		fmt.Fprintf(&b, "delta: rejected as %s (%d of %d leaves refused; the whole delta is rejected)\n", r.Reason, refused, len(r.Leaves))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

type problemJSON struct {
	Pointer string `json:"pointer"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
	Help    string `json:"help,omitempty"`
}

type errorJSON struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

type leafJSON struct {
	Path    string     `json:"path"`
	Element *string    `json:"element,omitempty"`
	Op      string     `json:"op"`
	Pointer string     `json:"pointer"`
	Allowed bool       `json:"allowed"`
	Rule    any        `json:"rule"`
	Apply   *string    `json:"apply"`
	Merge   string     `json:"merge,omitempty"`
	Note    string     `json:"note,omitempty"`
	Error   *errorJSON `json:"error"`
}

type resultJSON struct {
	Allowed  bool          `json:"allowed"`
	Apply    *string       `json:"apply"`
	Reason   *string       `json:"reason"`
	Leaves   []leafJSON    `json:"leaves"`
	Errors   []problemJSON `json:"errors"`
	Warnings []problemJSON `json:"warnings"`
}

func problems(es []*InvalidError) []problemJSON {
	out := []problemJSON{}
	for _, e := range es {
		out = append(out, problemJSON{Pointer: e.Pointer, File: e.Pos.File, Line: e.Pos.Line, Col: e.Pos.Col, Message: e.Message, Help: e.Help})
	}
	return out
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// MarshalJSON writes the `check config-delta --format json` contract:
// {"allowed", "apply", "reason", "leaves": [{"path", "element", "op",
// "pointer", "allowed", "rule", "apply", "merge", "note", "error"}],
// "errors", "warnings"}. apply and reason are null when they do not apply;
// leaves, errors and warnings are never null.
func (r Result) MarshalJSON() ([]byte, error) {
	out := resultJSON{Allowed: r.Allowed, Apply: strPtr(r.Apply), Reason: strPtr(r.Reason),
		Leaves: []leafJSON{}, Errors: problems(r.Invalid), Warnings: problems(r.Warnings)}
	for _, l := range r.Leaves {
		lj := leafJSON{Path: l.Path, Element: l.Element, Op: l.Op, Pointer: l.Pointer, Allowed: l.Decision.Allowed,
			Rule: l.Decision.Rule, Apply: strPtr(l.Apply), Merge: l.Merge, Note: l.Note}
		if l.Decision.Err != nil {
			msg := l.Decision.Err.Error()
			var de *policy.DeniedError
			if errors.As(l.Decision.Err, &de) && de.Hint != "" {
				msg += ": " + de.Hint
			}
			lj.Error = &errorJSON{Kind: policy.ErrorKind(l.Decision.Err), Message: msg}
		}
		out.Leaves = append(out.Leaves, lj)
	}
	return json.Marshal(out)
}
