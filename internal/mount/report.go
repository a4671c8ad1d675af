package mount

import "errors"

// Report is the one JSON object `mount --json` prints.
type Report struct {
	Tool   *string `json:"tool"`
	Name   string  `json:"name"`
	Path   string  `json:"path"`
	Mode   Mode    `json:"mode"`
	Link   *string `json:"link"`
	Target *string `json:"target"`
	// CreateTarget: the target does not exist; mount creates it.
	CreateTarget bool              `json:"create_target,omitempty"`
	Tools        []string          `json:"tools"`
	Rules        map[string][]Rule `json:"rules"`
	Error        *ReportError      `json:"error"`
}

// ReportError is a Report's error member.
type ReportError struct {
	Kind    ErrorKind `json:"kind"`
	Message string    `json:"message"`
}

// ErrorOnly is what is printed when the spec does not parse: there are no
// parsed fields to show.
type ErrorOnly struct {
	Error ReportError `json:"error"`
}

// NewReport shapes a plan (possibly partial) and an error for JSON; when
// the spec did not parse it returns an ErrorOnly.
func NewReport(spec string, p *Plan, err error) any {
	if p == nil {
		sp, perr := Parse(spec)
		if perr != nil {
			return ErrorOnly{Error: reportError(perr)}
		}
		p = &Plan{Spec: sp}
	}
	r := Report{Name: p.Spec.Name, Path: p.Spec.Path, Mode: p.Spec.Mode, Tools: p.Tools, Rules: p.Rules, CreateTarget: p.CreateTarget}
	if p.Spec.Tool != "" {
		r.Tool = &p.Spec.Tool
	}
	if p.RulePath != "" {
		r.Link = &p.RulePath
	}
	if p.Target != "" {
		r.Target = &p.Target
	}
	if r.Tools == nil {
		r.Tools = []string{}
	}
	if r.Rules == nil {
		r.Rules = map[string][]Rule{}
	}
	if err != nil {
		e := reportError(err)
		r.Error = &e
	}
	return r
}

func reportError(err error) ReportError {
	if me, ok := errors.AsType[*Error](err); ok {
		return ReportError{Kind: me.Kind, Message: me.Message}
	}
	return ReportError{Kind: KindIO, Message: err.Error()}
}
