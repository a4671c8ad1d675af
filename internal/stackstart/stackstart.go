package stackstart

func init() { reserve(false) }

// reserve has a 40 kB frame, which is what the stack check in its
// prologue tests: the runtime grows the stack to fit it (to 64 kB) before
// the body runs. pad is written only when fill is true, which no caller
// passes, so none of the new stack's pages is touched here.
//
//go:noinline
func reserve(fill bool) byte {
	if fill {
		var pad [40 << 10]byte
		for i := range pad {
			pad[i] = byte(i)
		}
		return pad[len(pad)/2]
	}
	return 0
}
