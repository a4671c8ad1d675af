// Package emittest owns the emitters' shared test fixtures: emit.Tool
// values built the way the compiler builds them over real temporary trees,
// the golden scenarios every emitter renders, and golden-file comparison
// with the temporary root replaced by $ROOT (-update rewrites).
package emittest
