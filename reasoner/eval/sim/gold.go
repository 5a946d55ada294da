package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/store"
)

// Ent is an entity of a gold path. Either field may be empty: 2Wiki
// evidences name entities by label only.
type Ent struct {
	ID    string `json:"id,omitempty"`
	Label string `json:"label,omitempty"`
}

// Hop is one step of a gold path: the relation (as the method shows it:
// its label in the followed direction) leading from the From entities to
// the To entities.
type Hop struct {
	From     []Ent  `json:"from"`
	Relation string `json:"relation"`
	To       []Ent  `json:"to"`
}

// Gold is what the oracle knows about one question.
type Gold struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Answers  []string `json:"answers"`
	Hops     []Hop    `json:"hops"`
}

// maxHopEdges bounds the edges read per hop when walking a gold path.
const maxHopEdges = 500

// FromPath builds a question's gold path by walking path in kg: path[0]
// is the topic entity id, the rest are relation ids, "~rel" following
// rel backwards (the film demo questions' notation). Each hop's relation
// text is the relation's label in the walked direction (its id when it
// has none), as Tree-of-Traversals lists it.
func FromPath(ctx context.Context, kg store.KG, q dataset.Question, path []string) (Gold, error) {
	g := Gold{ID: q.ID, Question: q.Question, Answers: q.Answers}
	if len(path) < 2 {
		return g, fmt.Errorf("question %s: path %v needs an entity and at least one relation", q.ID, path)
	}
	e, err := kg.Entity(ctx, path[0])
	if err != nil {
		return g, fmt.Errorf("question %s: path entity %s: %w", q.ID, path[0], err)
	}
	from := []Ent{{ID: e.ID, Label: e.Label}}
	for _, step := range path[1:] {
		h, err := walk(ctx, kg, from, step)
		if err != nil {
			return g, fmt.Errorf("question %s: %w", q.ID, err)
		}
		g.Hops = append(g.Hops, h)
		from = h.To
	}
	return g, nil
}

// walk follows one relation step from the given entities.
func walk(ctx context.Context, kg store.KG, from []Ent, step string) (Hop, error) {
	rel, dir := step, store.Out
	if r, ok := strings.CutPrefix(step, "~"); ok {
		rel, dir = r, store.In
	}
	ids := make([]string, len(from))
	for i, e := range from {
		ids[i] = e.ID
	}
	edges, err := kg.Edges(ctx, ids, rel, dir, maxHopEdges)
	if err != nil {
		return Hop{}, fmt.Errorf("path step %s: %w", step, err)
	}
	if len(edges) == 0 {
		return Hop{}, fmt.Errorf("path step %s: no edges from %v", step, ids)
	}
	h := Hop{From: from, Relation: rel}
	for _, e := range edges {
		to := e.Object
		if dir == store.In {
			to = e.Subject
		}
		if !slices.ContainsFunc(h.To, func(x Ent) bool { return x.ID == to.ID }) {
			h.To = append(h.To, Ent{ID: to.ID, Label: to.Label})
		}
	}
	rels, err := kg.Relations(ctx, ids, dir)
	if err != nil {
		return Hop{}, fmt.Errorf("path step %s: %w", step, err)
	}
	for _, r := range rels {
		if r.ID == rel {
			if l := r.DisplayLabel(); l != "" {
				h.Relation = l
			}
			break
		}
	}
	return h, nil
}

// FromEvidences builds a gold path from 2WikiMultiHopQA evidences
// (subject, relation, object labels), one hop per evidence, in order.
func FromEvidences(q dataset.Question) (Gold, error) {
	g := Gold{ID: q.ID, Question: q.Question, Answers: q.Answers}
	if len(q.Evidences) == 0 {
		return g, fmt.Errorf("question %s: no evidences", q.ID)
	}
	for _, ev := range q.Evidences {
		g.Hops = append(g.Hops, Hop{From: []Ent{{Label: ev[0]}}, Relation: ev[1], To: []Ent{{Label: ev[2]}}})
	}
	return g, nil
}

// ReadPaths reads the "path" field of each line of a JSON Lines question
// file (the film demo questions), by question id. Lines without a path
// are skipped; bad lines are errors naming the file and line.
func ReadPaths(path string) (map[string][]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read gold paths: %w", err)
	}
	out := map[string][]string{}
	for i, line := range bytes.Split(data, []byte{'\n'}) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var rec struct {
			ID   json.RawMessage `json:"id"`
			Path []string        `json:"path"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, dataset.Errorf(path, int64(i+1), "", "invalid JSON: %v", err)
		}
		var id string
		if err := json.Unmarshal(rec.ID, &id); err != nil || id == "" {
			return nil, dataset.Errorf(path, int64(i+1), "id", "want a non-empty string")
		}
		if len(rec.Path) > 0 {
			out[id] = rec.Path
		}
	}
	return out, nil
}

// Golds builds the gold path of every question: from paths when the
// question's id has one (FromPath), else from its evidences. Questions
// with neither are an error.
func Golds(ctx context.Context, kg store.KG, qs []dataset.Question, paths map[string][]string) ([]Gold, error) {
	out := make([]Gold, 0, len(qs))
	var errs []error
	for _, q := range qs {
		var g Gold
		var err error
		if p, ok := paths[q.ID]; ok {
			g, err = FromPath(ctx, kg, q, p)
		} else {
			g, err = FromEvidences(q)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, g)
	}
	return out, errors.Join(errs...)
}
