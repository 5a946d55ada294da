package labelindex

import (
	"unicode/utf8"

	"github.com/blevesearch/vellum"
)

// dead is the automaton state from which nothing matches. Every automaton
// here uses non-negative states otherwise.
const dead = -1

// bounded wraps an automaton with a budget of Accept calls. vellum's FST
// iterator calls Accept once for every transition it considers, so the
// budget bounds the work of any walk, even over a corrupt FST whose
// transitions form a cycle. When the budget runs out every state dies and
// the walk ends early with exhausted set.
type bounded struct {
	inner     vellum.Automaton
	left      int
	exhausted bool
}

var _ vellum.Automaton = (*bounded)(nil)

func (a *bounded) Start() int               { return a.inner.Start() }
func (a *bounded) IsMatch(s int) bool       { return s >= 0 && a.inner.IsMatch(s) }
func (a *bounded) CanMatch(s int) bool      { return s >= 0 && a.inner.CanMatch(s) }
func (a *bounded) WillAlwaysMatch(int) bool { return false }

func (a *bounded) Accept(s int, b byte) int {
	if s < 0 {
		return dead
	}
	if a.left <= 0 {
		a.exhausted = true
		return dead
	}
	a.left--
	return a.inner.Accept(s, b)
}

// depthAutomaton matches every key of at most max bytes; its state is the
// depth. A longer path sets tooDeep, which only a corrupt index can do.
type depthAutomaton struct {
	max     int
	tooDeep bool
}

func (a *depthAutomaton) Start() int               { return 0 }
func (a *depthAutomaton) IsMatch(int) bool         { return true }
func (a *depthAutomaton) CanMatch(int) bool        { return true }
func (a *depthAutomaton) WillAlwaysMatch(int) bool { return false }

func (a *depthAutomaton) Accept(s int, _ byte) int {
	if s >= a.max {
		a.tooDeep = true
		return dead
	}
	return s + 1
}

// prefixAutomaton matches the keys that extend prefix by more than minExtra
// and at most maxExtra runes. Its state is the number of prefix bytes read
// plus the number of runes read after them; UTF-8 continuation bytes leave
// it unchanged.
type prefixAutomaton struct {
	prefix             string
	minExtra, maxExtra int
}

func (a *prefixAutomaton) Start() int               { return 0 }
func (a *prefixAutomaton) CanMatch(int) bool        { return true }
func (a *prefixAutomaton) WillAlwaysMatch(int) bool { return false }

func (a *prefixAutomaton) IsMatch(s int) bool {
	return s > len(a.prefix)+a.minExtra
}

func (a *prefixAutomaton) Accept(s int, b byte) int {
	switch {
	case s < len(a.prefix):
		if b != a.prefix[s] {
			return dead
		}
	case !utf8.RuneStart(b):
		return s
	case s >= len(a.prefix)+a.maxExtra:
		return dead
	}
	return s + 1
}

// levAutomaton accepts the keys within Levenshtein distance max (in runes)
// of a query. A state is one row of the classic dynamic-programming table
// (the distances between the key read so far and each prefix of the query),
// computed as the FST walk reads bytes. Only the diagonal band of 2*max+1
// cells around the row's own position can hold values <= max, so a row
// stores just that band; values saturate at max+1, and a row whose band
// exceeds max everywhere is the dead state, which prunes the walk exactly
// like a Levenshtein DFA would. Building it costs nothing up front, unlike a
// DFA, and each step costs O(max).
type levAutomaton struct {
	q      []rune
	max    uint8
	width  int        // 2*max+1 cells per row
	rows   []uint8    // band k of row i is the cell for query prefix i-max+k
	states []levState // automaton state s is states[s]
}

// levState is a row plus the bytes of a rune whose UTF-8 encoding is not
// complete yet.
type levState struct {
	row  int   // index of the band's first cell in rows
	i    int32 // runes of the key read: the row number
	pend [utf8.UTFMax - 1]byte
	npen uint8
}

// newLevAutomaton returns the automaton for q and a distance in
// [0, MaxFuzzy] (values outside are clamped).
func newLevAutomaton(q string, maxDist int) *levAutomaton {
	maxDist = min(max(maxDist, 0), MaxFuzzy)
	a := &levAutomaton{q: []rune(q), max: uint8(maxDist), width: 2*maxDist + 1}
	a.rows = make([]uint8, a.width, 256*a.width)
	for k := range a.rows {
		a.rows[k] = a.cell0(k - maxDist)
	}
	a.states = append(make([]levState, 0, 256), levState{})
	return a
}

// cell0 is row 0 of the table: the distance from "" to the query prefix of
// j runes, saturated; prefixes out of range are max+1.
func (a *levAutomaton) cell0(j int) uint8 {
	if j < 0 || j > len(a.q) {
		return a.max + 1
	}
	return uint8(min(j, int(a.max)+1))
}

func (a *levAutomaton) Start() int               { return 0 }
func (a *levAutomaton) CanMatch(s int) bool      { return s >= 0 }
func (a *levAutomaton) WillAlwaysMatch(int) bool { return false }

// IsMatch reports whether the key read so far is within max of the query.
func (a *levAutomaton) IsMatch(s int) bool {
	return a.states[s].npen == 0 && a.distance(s) <= int(a.max)
}

// distance is the edit distance between the query and the key read so far,
// or max+1 if it exceeds max.
func (a *levAutomaton) distance(s int) int {
	st := a.states[s]
	k := len(a.q) - int(st.i) + int(a.max)
	if k < 0 || k >= a.width {
		return int(a.max) + 1
	}
	return int(a.rows[st.row+k])
}

func (a *levAutomaton) Accept(s int, b byte) int {
	if s < 0 {
		return dead
	}
	st := a.states[s]
	if st.npen > 0 || b >= utf8.RuneSelf {
		var buf [utf8.UTFMax]byte
		n := copy(buf[:], st.pend[:st.npen])
		buf[n] = b
		n++
		if !utf8.FullRune(buf[:n]) {
			st.pend, st.npen = [utf8.UTFMax - 1]byte(buf[:utf8.UTFMax-1]), uint8(n)
			a.states = append(a.states, st)
			return len(a.states) - 1
		}
		// Invalid UTF-8 (only a corrupt index has it) decodes as one
		// RuneError per bad byte, as a []rune conversion would.
		r, size := utf8.DecodeRune(buf[:n])
		next := a.step(st, r)
		for _, c := range buf[size:n] {
			next = a.Accept(next, c)
		}
		return next
	}
	return a.step(st, rune(b))
}

// step appends the row after reading r to the row of st and returns its
// state, or dead when no extension of the key can match.
func (a *levAutomaton) step(st levState, r rune) int {
	var row [2*MaxFuzzy + 1]uint8
	w, limit, m := a.width, a.max+1, len(a.q)
	old := a.rows[st.row : st.row+w]
	i := int(st.i) + 1 // the new row number
	best := limit
	for k := range w {
		j := i - int(a.max) + k // query prefix length of this cell
		v := limit
		if j >= 0 && j <= m {
			if k+1 < w {
				v = old[k+1] + 1 // r deleted from the key
			}
			if k > 0 {
				v = min(v, row[k-1]+1) // q[j-1] inserted
			}
			if j > 0 {
				if a.q[j-1] == r {
					v = min(v, old[k])
				} else {
					v = min(v, old[k]+1)
				}
			}
			v = min(v, limit)
		}
		row[k] = v
		best = min(best, v)
	}
	if best > a.max {
		return dead
	}
	a.states = append(a.states, levState{row: len(a.rows), i: int32(i)})
	a.rows = append(a.rows, row[:w]...)
	return len(a.states) - 1
}
