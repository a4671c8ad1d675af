package tomlpos

import "github.com/jp-policy/jp-policy/internal/diag"

// SyntaxError is a document that is not valid TOML or JSON. Pos points at
// the offending character when it is known.
type SyntaxError struct {
	Pos     diag.Position
	Message string
}

func (e *SyntaxError) Error() string { return e.Pos.String() + ": " + e.Message }
