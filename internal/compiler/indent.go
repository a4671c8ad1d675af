package compiler

// Why an indenter of our own: encoding/json indents by re-scanning its
// compact output with its validating scanner, which cost as much as the
// encoding itself and was the largest single item of a compile's CPU
// profile. The input here is always encoding/json's own compact output
// (valid, no whitespace outside strings), so indenting needs only to
// skip strings and break lines at structure. The result is byte for byte
// json.Indent's (FuzzAppendIndent).

// appendIndent appends src, compact JSON as encoding/json writes it, to
// dst indented as json.Indent(dst, src, prefix, indent) would.
func appendIndent(dst, src []byte, prefix, indent string) []byte {
	depth := 0
	open := false // just after '{' or '[': a line break is due unless it closes
	for i := 0; i < len(src); i++ {
		c := src[i]
		if open && c != '}' && c != ']' {
			open = false
			depth++
			dst = newline(dst, prefix, indent, depth)
		}
		switch c {
		case '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			end := min(j+1, len(src))
			dst = append(dst, src[i:end]...)
			i = end - 1
		case '{', '[':
			open = true
			dst = append(dst, c)
		case '}', ']':
			if open {
				open = false // empty: stays "{}" or "[]"
			} else {
				depth--
				dst = newline(dst, prefix, indent, depth)
			}
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			dst = newline(dst, prefix, indent, depth)
		case ':':
			dst = append(dst, c, ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func newline(dst []byte, prefix, indent string, depth int) []byte {
	dst = append(dst, '\n')
	dst = append(dst, prefix...)
	for range depth {
		dst = append(dst, indent...)
	}
	return dst
}
