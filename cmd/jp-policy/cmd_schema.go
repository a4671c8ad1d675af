package main

import "github.com/jp-policy/jp-policy/internal/schema"

// SchemaCmd prints the embedded JSON Schema for editors and CI.
type SchemaCmd struct{}

// Run writes the schema to stdout.
func (c *SchemaCmd) Run(g *Globals) error {
	if _, err := g.Stdout.Write(schema.Schema()); err != nil {
		return fail(exitIntern, err)
	}
	return nil
}
