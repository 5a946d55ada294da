package query

// LongestList is the length of the longest list anywhere in a GraphQL
// answer (maps and slices as Cayley's GraphQL builds them): GraphQL
// answers one document whatever its size, so a result limit applies to
// its lists, and a front end refuses an answer whose list is over it
// (naming GraphQL's first:) rather than cut a list that would read as
// whole.
func LongestList(v any) int {
	longest := 0
	stack := []any{v}
	for len(stack) > 0 {
		v, stack = stack[len(stack)-1], stack[:len(stack)-1]
		switch t := v.(type) {
		case map[string]any:
			for _, x := range t {
				stack = append(stack, x)
			}
		case []map[string]any:
			longest = max(longest, len(t))
			for _, x := range t {
				stack = append(stack, x)
			}
		case []any:
			longest = max(longest, len(t))
			stack = append(stack, t...)
		}
	}
	return longest
}
