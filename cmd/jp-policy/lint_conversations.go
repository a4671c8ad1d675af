package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/compiler"
	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/convstore"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/grantdiff"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

// conversationFindings compiles, in memory, the policy JP applies when it
// continues each stored conversation (compile --conversation) and
// compares it with what the files compile to now, tool by tool (JP131):
// an error for a tool the conversation would run with more access, a
// warning for one it would only run with less. It returns the findings
// and the bytes of the conversation files they point into.
func conversationFindings(l *config.Loaded, workspace string, cfg []string, approvalsFile string) ([]diag.Diagnostic, map[string][]byte, error) {
	userDir, _ := jpdirs.UserWorkspaceDir(l.Root, os.Getenv)
	ids, err := convstore.List(convstore.Roots{Workspace: filepath.Join(l.Root, ".jp"), User: userDir})
	if err != nil {
		return nil, nil, fail(exitIntern, fmt.Errorf("reading the stored conversations: %w", err))
	}
	if len(ids) == 0 {
		return nil, nil, nil
	}
	base, err := compiler.Build(compiler.Options{Config: configOptions(workspace, cfg), ApprovalsFile: approvalsFile})
	if err != nil {
		// The files' own findings (reported above) say why; there is
		// nothing to compare the conversations with.
		return nil, nil, nil
	}
	var out []diag.Diagnostic
	files := map[string][]byte{}
	for _, id := range ids {
		cid := convstore.FormatID(id)
		res, err := compiler.Build(compiler.Options{Config: conversationOptions(workspace, cfg, cid), ApprovalsFile: approvalsFile})
		if err != nil {
			out = append(out, diag.Diagnostic{
				Pos: diag.Position{File: filepath.Join(l.Root, ".jp", "conversations")}, Severity: diag.Error, Rule: "JP131",
				Message: fmt.Sprintf("conversation %s: the config JP would apply when continuing it does not compile: %s", cid, firstLine(err)),
				Help:    "run `jp-policy compile --conversation " + cid + "` to see every finding; start a new conversation, or remove this one",
			})
			continue
		}
		conv := res.Loaded.Conversation
		maps.Copy(files, res.ConfigFiles)
		d, err := grantdiff.Compare(base.Artifact, res.Artifact)
		if err != nil {
			return nil, nil, fail(exitIntern, err)
		}
		out = append(out, conversationDiffFindings(conv, d)...)
	}
	return out, files, nil
}

// conversationDiffFindings turns one conversation's grant diff into one
// JP131 finding per tool.
func conversationDiffFindings(conv *config.Conversation, d *grantdiff.Diff) []diag.Diagnostic {
	byTool := map[string][]grantdiff.Change{}
	for _, c := range d.Changes {
		byTool[c.Tool] = append(byTool[c.Tool], c)
	}
	tools := make([]string, 0, len(byTool))
	for t := range byTool {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	name := conv.ID
	if conv.Title != "" {
		name += fmt.Sprintf(" (%q)", conv.Title)
	}
	var out []diag.Diagnostic
	for _, t := range tools {
		sev, parts := diag.Warning, []string{}
		for _, c := range byTool[t] {
			if c.Widened {
				sev = diag.Error
			}
			p := fmt.Sprintf("%s %s (files: %s; conversation: %s)", c.Clause, c.Effect(), c.Before, c.After)
			if len(c.Gained) > 0 {
				p += ": now also " + itemsText(c.Gained)
			}
			if len(c.Lost) > 0 {
				p += ": no longer " + itemsText(c.Lost)
			}
			parts = append(parts, p)
		}
		pos, ok := conv.Tools[t]
		if !ok {
			pos = diag.Position{File: conv.Files[0], Line: 1, Col: 1}
		}
		out = append(out, diag.Diagnostic{
			Pos: pos, Severity: sev, Rule: "JP131",
			Message: fmt.Sprintf("conversation %s runs tool %q with other access than the config files grant now: %s", name, t, strings.Join(parts, "; ")),
			Help:    "JP applies the config stored with a conversation when it continues it (its fs rules replace the files'): start a new conversation for the current rules, or update or remove this one; `jp-policy compile --conversation " + conv.ID + "` compiles what JP would apply",
		})
	}
	return out
}

func itemsText(its []grantdiff.Item) string {
	s := make([]string, len(its))
	for i, it := range its {
		s[i] = it.String()
	}
	return strings.Join(s, ", ")
}

// firstLine is the first thing that stopped a conversation's compile:
// its first error finding, or the error's first line.
func firstLine(err error) string {
	if le, ok := errors.AsType[*compiler.LintError](err); ok {
		for _, d := range le.Diagnostics {
			if d.Severity == diag.Error {
				return fmt.Sprintf("%s: %s [%s]", d.Pos, d.Message, d.Rule)
			}
		}
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
