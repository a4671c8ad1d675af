// Package wire owns the small binary encoding the exec path reads without
// reflection: the per-tool exec plan and the decided sandbox
// (internal/execplan) and the namespaced path's stage-2 spec
// (internal/nsroot). Numbers are unsigned varints in their shortest form,
// strings and lists are length-prefixed, flags are one byte 0 or 1.
//
// The Decoder accepts exactly what the Encoder writes, so a value has one
// encoding: a padded varint (0x80 0x00 for 0), a flag other than 0 or 1,
// a count larger than the bytes left could hold, or a string running past
// the end marks the decoder failed, after which every read returns a zero
// value and the caller refuses the input. Both formats it serves had
// that bug separately before it had one home.
package wire
