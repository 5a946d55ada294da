package hood

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/grove-kg/grove/store"
)

// maxNameWords is the longest run of question words looked up as a name.
const maxNameWords = 4

// nameSearchLimit bounds the candidates of one name lookup.
const nameSearchLimit = 5

// maxNameLookups bounds the name lookups of one entity and relation: on a
// remote backend each is a request.
const maxNameLookups = 16

// questionNames returns the runs of 1 to maxNameWords consecutive words of
// a question that hold a content word (see Terms), without repeats, at most
// maxNameLookups: runs of capitalised words (or numbers) first, as names
// are written, then longest first.
func questionNames(question string) []string {
	runs := wordRuns(question)
	Prefer(runs, capitalised)
	return runs[:min(len(runs), maxNameLookups)]
}

// Prefer moves the elements of s for which first holds before the others,
// keeping the order within each part (a stable partition).
func Prefer[T any](s []T, first func(T) bool) {
	rank := func(v T) int {
		if first(v) {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(s, func(a, b T) int { return rank(a) - rank(b) })
}

// capitalised reports whether every word of a run starts with an upper-case
// letter or a digit.
func capitalised(run string) bool {
	for _, w := range strings.Fields(run) {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// wordRuns returns the runs of 1 to maxNameWords consecutive words of a
// question that hold a content word, longest first, without repeats.
func wordRuns(question string) []string {
	words := strings.FieldsFunc(question, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '-' && r != '&' && r != '.'
	})
	for i, w := range words {
		words[i] = strings.Trim(w, "'.")
	}
	seen := map[string]bool{}
	var out []string
	for n := min(maxNameWords, len(words)); n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			text := strings.Join(words[i:i+n], " ")
			if text == "" || seen[text] || len(Terms(text)) == 0 {
				continue
			}
			seen[text] = true
			out = append(out, text)
		}
	}
	return out
}

// namedEdges returns the edges of rel from id whose far end the question
// names, among entities not in seen (the far ends already read): every
// exact label or alias match of a run of the question's words whose own
// edges along rel (read in the other direction, up to the fetch cap) reach
// id. A hub's edges past the fetch cap are never read, so without this an
// entity the question names could not be shown ("Blade Runner" among the
// 30,000 films of a type node).
func namedEdges(ctx context.Context, kg store.KG, id string, rel store.Relation, seen map[string]bool, opt Options) ([]store.Edge, error) {
	back := store.In
	switch rel.Dir {
	case store.In:
		back = store.Out
	case store.Out:
	default:
		return nil, nil
	}
	var out []store.Edge
	for _, text := range questionNames(opt.Question) {
		cands, err := kg.Search(ctx, rel.Graph, text, nameSearchLimit)
		if err != nil {
			return nil, fmt.Errorf("search %q: %w", text, err)
		}
		for _, c := range cands {
			if c.Match != "exact" || seen[c.ID] || c.ID == id || !opt.inGraphs(c.Graph) {
				continue
			}
			seen[c.ID] = true
			es, err := kg.Edges(ctx, []string{c.ID}, rel.ID, back, opt.FetchCap)
			if err != nil {
				return nil, fmt.Errorf("edges of %s along %s (%s): %w", c.ID, rel.ID, back, err)
			}
			for _, e := range es {
				near := e.Subject
				if rel.Dir == store.In {
					near = e.Object
				}
				if near.ID == id && (rel.Graph == "" || e.Graph == rel.Graph) && opt.inGraphs(e.Graph) {
					out = append(out, e)
				}
			}
		}
	}
	return out, nil
}
