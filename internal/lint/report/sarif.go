package report

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/lint"
	"github.com/jp-policy/jp-policy/internal/termstyle"
)

// The subset of SARIF 2.1.0 that jp-policy writes. Field names follow the
// specification; the test validates the output against the official
// schema.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                   `json:"tool"`
	OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult               `json:"results"`
	ColumnKind         string                      `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string          `json:"id"`
	Name                 string          `json:"name"`
	ShortDescription     sarifText       `json:"shortDescription"`
	FullDescription      sarifText       `json:"fullDescription"`
	Help                 sarifText       `json:"help"`
	DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
	Properties           sarifRuleProps  `json:"properties"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifRuleProps struct {
	Suppressible bool     `json:"suppressible"`
	Tags         []string `json:"tags,omitempty"`
}

type sarifResult struct {
	RuleID           string            `json:"ruleId,omitempty"`
	RuleIndex        *int              `json:"ruleIndex,omitempty"`
	Level            string            `json:"level"`
	Message          sarifText         `json:"message"`
	Locations        []sarifLocation   `json:"locations,omitempty"`
	RelatedLocations []sarifLocation   `json:"relatedLocations,omitempty"`
	Properties       map[string]string `json:"properties,omitempty"`
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	Message          *sarifText            `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
	Region           *sarifRegion     `json:"region,omitempty"`
}

type sarifArtifactLoc struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

const (
	sarifSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
	srcRoot        = "%SRCROOT%"
	infoURI        = "https://github.com/jp-policy/jp-policy/blob/main/docs/rules.md"
)

// SARIF writes one SARIF 2.1.0 log with a single run. Every catalogued
// rule is listed in the driver, so code-scanning UIs can show the rule's
// documentation for each result.
func SARIF(w io.Writer, ds []diag.Diagnostic, o Options) error {
	rules := lint.Rules()
	index := map[string]int{}
	drv := sarifDriver{Name: "jp-policy", Version: o.Version, InformationURI: infoURI}
	for i, r := range rules {
		index[r.ID] = i
		tags := []string{"security"}
		if r.Loader {
			tags = append(tags, "loader")
		}
		drv.Rules = append(drv.Rules, sarifRule{
			ID: r.ID, Name: r.Name,
			ShortDescription:     sarifText{Text: r.Title},
			FullDescription:      sarifText{Text: r.Description},
			Help:                 sarifText{Text: r.Fix, Markdown: "**Fix:** " + r.Fix + "\n\nSee docs/rules.md#" + strings.ToLower(r.ID) + "."},
			DefaultConfiguration: sarifRuleConfig{Level: level(r.Severity)},
			Properties:           sarifRuleProps{Suppressible: r.Suppressible, Tags: tags},
		})
	}
	run := sarifRun{Tool: sarifTool{Driver: drv}, Results: []sarifResult{}, ColumnKind: "unicodeCodePoints"}
	if o.Base != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{srcRoot: {URI: fileURI(o.Base, true)}}
	}
	for _, d := range ds {
		res := sarifResult{RuleID: d.Rule, Level: level(d.Severity), Message: sarifText{Text: termstyle.Safe(d.Message)}}
		if i, ok := index[d.Rule]; ok {
			i := i
			res.RuleIndex = &i
		}
		if !d.Pos.IsZero() {
			res.Locations = []sarifLocation{{PhysicalLocation: o.physical(d.Pos)}}
		}
		for i, r := range d.Related {
			if r.Pos.IsZero() {
				continue
			}
			id := i + 1
			res.RelatedLocations = append(res.RelatedLocations, sarifLocation{
				ID: &id, PhysicalLocation: o.physical(r.Pos), Message: &sarifText{Text: termstyle.Safe(r.Message)},
			})
		}
		if d.Help != "" {
			res.Properties = map[string]string{"help": termstyle.Safe(d.Help)}
		}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: sarifSchemaURI, Version: "2.1.0", Runs: []sarifRun{run}})
}

func level(s diag.Severity) string {
	switch s {
	case diag.Error:
		return "error"
	case diag.Warning:
		return "warning"
	}
	return "note"
}

func (o Options) physical(p diag.Position) sarifPhysicalLocation {
	loc := sarifPhysicalLocation{}
	if rel, ok := within(o.Base, p.File); ok {
		loc.ArtifactLocation = sarifArtifactLoc{URI: (&url.URL{Path: rel}).String(), URIBaseID: srcRoot}
	} else {
		loc.ArtifactLocation = sarifArtifactLoc{URI: fileURI(p.File, false)}
	}
	if p.Line > 0 {
		loc.Region = &sarifRegion{StartLine: p.Line, StartColumn: p.Col}
		if p.HasEnd() {
			// The parser's span: SARIF's end column is exclusive too.
			loc.Region.EndLine, loc.Region.EndColumn = p.EndLine, p.EndCol
		}
	}
	return loc
}

// fileURI turns an absolute path into a file:// URI; dir adds the
// trailing slash SARIF requires of a base URI.
func fileURI(path string, dir bool) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows drive paths: file:///C:/...
	}
	if dir && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
