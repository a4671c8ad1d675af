// Package schema owns the JSON Schema (draft 2020-12) of the config
// jp-policy owns (schema.json, embedded; `jp-policy schema` prints it) and
// the validator that applies it to a tomlpos tree, reporting each
// violation at the offending key or value with JP002/JP003 diagnostics.
//
// Validation interprets schema.json itself, for exactly the keywords the
// file uses, and refuses any other keyword rather than skip it: a general
// JSON Schema library would cost every jp-policy start (the exec launcher
// included) its init-time meta-schema compilation. That library
// (jsonschema/v5) remains in the tests as an oracle the validator must
// agree with (oracle_test.go).
//
// Files: schema.go (Validate and its diagnostics), compile.go (reading
// schema.json into nodes), builtin_schema.go (those nodes written out as
// Go by TestBuiltinSchemaUpToDate, so a run builds them without decoding
// JSON: `go generate ./internal/schema` after editing schema.json),
// eval.go (applying them).
package schema
