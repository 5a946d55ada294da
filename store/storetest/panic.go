package storetest

import (
	"context"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/cayley/graph/refs"
	"github.com/cayleygraph/quad"
)

// Where a Panicking store panics.
const (
	PanicIterate = "iterate" // Next and Contains of QuadIterator's iterators
	PanicNameOf  = "nameof"  // NameOf
	PanicValueOf = "valueof" // ValueOf
)

// Panicking wraps a quad store so that it panics in one place (In, one of
// the Panic* constants), as a store bug would: for tests of the recover
// boundaries around query runs.
type Panicking struct {
	graph.QuadStore
	In string
}

// PanicValue is what a Panicking store panics with.
const PanicValue = "storetest: deliberate store panic"

func (p *Panicking) NameOf(r graph.Ref) (quad.Value, error) {
	if p.In == PanicNameOf {
		panic(PanicValue)
	}
	return p.QuadStore.NameOf(r)
}

func (p *Panicking) ValueOf(v quad.Value) (graph.Ref, error) {
	if p.In == PanicValueOf {
		panic(PanicValue)
	}
	return p.QuadStore.ValueOf(v)
}

func (p *Panicking) QuadIterator(d quad.Direction, r graph.Ref) iterator.Shape {
	s := p.QuadStore.QuadIterator(d, r)
	if p.In != PanicIterate {
		return s
	}
	return panicShape{s}
}

type panicShape struct{ iterator.Shape }

func (s panicShape) Iterate() iterator.Scanner { return panicIter{} }
func (s panicShape) Lookup() iterator.Index    { return panicIter{} }
func (s panicShape) Optimize(context.Context) (iterator.Shape, bool) {
	return s, false
}

type panicIter struct{}

func (panicIter) Next(context.Context) bool               { panic(PanicValue) }
func (panicIter) Contains(context.Context, refs.Ref) bool { panic(PanicValue) }
func (panicIter) NextPath(context.Context) bool           { return false }
func (panicIter) Result() refs.Ref                        { return nil }
func (panicIter) TagResults(map[string]refs.Ref)          {}
func (panicIter) Err() error                              { return nil }
func (panicIter) Close() error                            { return nil }
func (panicIter) String() string                          { return "Panicking" }
