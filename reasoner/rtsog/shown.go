package rtsog

import (
	"slices"
	"strings"
	"sync"

	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/store"
)

// shownIDs are the ids of every entity the run showed the model, in any
// prompt: the linking candidates, the topic entities, every scored tail
// (chosen or not) with the members of its description and the values of
// its qualifiers. An answer given as one of these ids was seen by the
// reasoning (reasoner.NameAnswer), even when the answer prompt's paths
// no longer hold it. It is safe for concurrent use (linking adds to it
// from several goroutines).
type shownIDs struct {
	mu  sync.Mutex
	ids map[string]bool
}

// add records the entities' ids.
func (s *shownIDs) add(es ...store.Entity) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	for _, e := range es {
		if !e.Literal && e.ID != "" {
			s.ids[e.ID] = true
		}
	}
}

// addCandidates records the linking candidates (link.Linker.Shown).
func (s *shownIDs) addCandidates(cands []store.Candidate) {
	for _, c := range cands {
		s.add(c.Entity)
	}
}

// addTail records a scored tail, the members of its description and the
// node values of its edge's qualifiers.
func (s *shownIDs) addTail(e store.Entity, edge store.Edge, parts []hood.Part) {
	s.add(e)
	for _, p := range parts {
		s.add(p.Value)
	}
	for _, q := range edge.Qualifiers {
		if q.ValueID != "" {
			s.add(store.Entity{ID: q.ValueID})
		}
	}
}

// has reports whether id was shown.
func (s *shownIDs) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids[id]
}

// withShownID adds to the answer's entities the answer text when it is
// exactly the id of an entity the run showed the model (see shownIDs)
// that the answer prompt's paths did not hold. The answer gains no node,
// value or support from it, so it stays not confident.
func (r *run) withShownID(entities []string, text string) []string {
	id := strings.TrimSpace(text)
	if id == "" || slices.Contains(entities, id) || !r.shown.has(id) {
		return entities
	}
	return append(entities, id)
}
