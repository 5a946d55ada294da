package server

import (
	"context"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/query/shape"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// rdfReadStore is the quad store Cayley's /read route reads through. A
// store hands out a typed literal in its canonical form as Cayley's native
// value (so that Has("<p>", 7) finds "7"^^xsd:integer), and Cayley's
// writers render a native as "True"^^<xsd:boolean> or "2.5E+00"^^<xsd:double>:
// an export would not give back the literals that were loaded, and other
// RDF tools would read another datatype. Here every native is written in
// its RDF form (store.RDFForm), the form the engine stores it in.
type rdfReadStore struct{ graph.QuadStore }

// Quad returns the quad of r with its native values in their RDF form.
func (s rdfReadStore) Quad(r graph.Ref) (quad.Quad, error) {
	q, err := s.QuadStore.Quad(r)
	if err != nil {
		return q, err
	}
	q.Subject, q.Predicate = store.RDFForm(q.Subject), store.RDFForm(q.Predicate)
	q.Object, q.Label = store.RDFForm(q.Object), store.RDFForm(q.Label)
	return q, nil
}

// OptimizeShape passes the store's own shape optimisations through, so
// that a filtered read is the same index lookup as before.
func (s rdfReadStore) OptimizeShape(ctx context.Context, sh shape.Shape) (shape.Shape, bool) {
	if o, ok := s.QuadStore.(shape.Optimizer); ok {
		return o.OptimizeShape(ctx, sh)
	}
	return sh, false
}
