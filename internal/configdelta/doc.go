// Package configdelta answers RFD 078's question for a tool outcome: would
// JP accept this config delta from this tool, and would it ask the user
// first?
//
// It owns the steps JP runs on a `success` outcome before anything is
// applied, as far as jp-policy can reproduce them:
//
//   - parsing the outcome JSON with positions, so every error names the
//     offending value by file:line:col and JSON pointer (outcome.go);
//   - parsing `unset` entries in RFD 070's syntax, a dotted path with an
//     optional vec-element suffix `path["identity"]` (unset.go);
//   - structural validation against what jp-policy knows of JP's
//     AppConfig: its field paths and their kinds (shape.go), and for
//     `conversation.tools` the schema package config enforces on config
//     files (validate.go);
//   - enumerating the concrete leaves a partial config touches, with
//     `assistant.model.id` aliases expanded to their provider and name
//     leaves (leaves.go, aliases.go);
//   - deciding each leaf with policy.Checker.CheckConfig, the engine behind
//     `jp-policy check config`, and folding the leaves into the delta's
//     verdict and apply mode (decide.go).
//
// It does not apply deltas, model JP's merge results, or check values
// semantically (whether a model exists); RFD 078 leaves those to JP's
// re-resolve step.
package configdelta
