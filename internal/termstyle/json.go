package termstyle

import (
	"encoding/json"
	"io"
)

// WriteJSON writes v as one JSON document on one line, then a newline:
// what --format json prints on every command but lint (whose JSON is one
// finding per line, JSON Lines). Key order is the order of the Go
// struct's fields, and map keys are sorted, so the bytes are stable for
// the same result; HTML characters are not escaped, so paths with & and
// < read as typed.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
