package query

import (
	"fmt"
	"strings"
)

// Limits on a Gizmo program's source, checked before goja parses it.
// goja's parser and compiler recurse on the program's nesting, and a
// goroutine whose stack passes Go's limit (1 GB) ends the process, which
// no recover catches: an 800 KB program of nested parentheses, one POST to
// the server, did. Measured with goja's Compile (Go stack per level): about
// 2.1 KB per level of brackets, array or object literals, calls or arrow
// functions, and 0.1-0.8 KB per level of the constructs that nest without
// them (unary operators, new, typeof, conditional, assignment and binary
// chains), at most ~0.4 KB per byte of source. So a program is refused
// over maxProgramBytes, which bounds the second kind (~430 MB), or with
// more than maxProgramNesting openers ('(', '[', '{' and "=>", wherever
// they are: a count, not a parse, so brackets in strings and comments
// count too), which bounds the first (~115 MB).
const (
	maxProgramBytes   = 1 << 20
	maxProgramNesting = 50_000
)

// checkSource refuses a program that could overflow the parser's stack.
func checkSource(src string) error {
	if len(src) > maxProgramBytes {
		return fmt.Errorf("the program has %d bytes, over the limit of %d", len(src), maxProgramBytes)
	}
	n := strings.Count(src, "(") + strings.Count(src, "[") + strings.Count(src, "{") + strings.Count(src, "=>")
	if n > maxProgramNesting {
		return fmt.Errorf("the program has %d brackets and arrows ('(', '[', '{', '=>'), over the limit of %d "+
			"(nesting that deep could overflow the parser's stack)", n, maxProgramNesting)
	}
	return nil
}

// maxJSONDepth bounds the nesting of a string given to JSON.parse, as
// encoding/json bounds its own: goja's JSON parser recurses on it.
const maxJSONDepth = 10_000

// checkJSONDepth refuses JSON text nested deeper than maxJSONDepth. It
// reads brackets outside strings only; whether the text is valid JSON is
// left to the parser.
func checkJSONDepth(s string) error {
	depth, inString := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			if depth++; depth > maxJSONDepth {
				return fmt.Errorf("the text nests deeper than %d levels", maxJSONDepth)
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}
