// Package storetest builds real Grove databases for tests in other packages:
// an in-memory engine loaded from N-Quads text, and the Freebase film sample
// bundled in data/film.nq.gz (see package datadir for where test data comes
// from). Nothing here is a fake: every database is the real engine.
package storetest

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/kgtest"
	"github.com/grove-kg/grove/store/storetest/datadir"
)

// Open returns an in-memory database with each graph loaded from N-Quads
// (or N-Triples) text. Blank nodes are scoped per graph as the RDF reader
// does ("_:b" in graph g becomes "_:g/b").
func Open(t testing.TB, graphs map[string]string) *engine.DB {
	t.Helper()
	db, err := engine.Open("", engine.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for g, text := range graphs {
		qs, err := Parse(g, strings.NewReader(text))
		if err != nil {
			t.Fatalf("graph %s: %v", g, err)
		}
		Load(t, db, g, qs)
	}
	return db
}

// Load bulk-loads quads into a graph of db.
func Load(t testing.TB, db *engine.DB, graph string, qs []quad.Quad) {
	t.Helper()
	l, err := db.NewLoader(engine.LoadOptions{Graph: graph})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, q := range qs {
		if err := l.WriteQuad(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Parse reads N-Quads, scoping blank nodes to graph.
func Parse(graph string, r io.Reader) ([]quad.Quad, error) { return kgtest.ParseNQuads(graph, r) }

// Film returns an in-memory database with the Freebase film sample
// (471,705 quads) in graph "film".
func Film(t testing.TB) *engine.DB {
	t.Helper()
	f, err := os.Open(datadir.Film(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := Parse("film", gz)
	if err != nil {
		t.Fatal(err)
	}
	db, err := engine.Open("", engine.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	Load(t, db, "film", qs)
	return db
}

// Refusing is a backend check like the SQL backend's (PostgreSQL text
// cannot hold a NUL): it refuses, with store.ErrUnstorable, a quad whose
// object holds mark, for tests of how readers report a writer's refusal.
func Refusing(mark string) func(quad.Quad) error {
	return func(q quad.Quad) error {
		if strings.Contains(quad.StringOf(q.Object), mark) {
			return store.ErrUnstorable
		}
		return nil
	}
}

// RefuseNUL is Refusing("\x00"): the SQL backend's check.
func RefuseNUL(q quad.Quad) error { return Refusing("\x00")(q) }

// CheckRefused fails t unless err is a reader's report of a writer's
// refusal: it begins with want (the reader's position, "x.json:3: Q2: ")
// and wraps store.ErrUnstorable.
func CheckRefused(t testing.TB, err error, want string) {
	t.Helper()
	switch {
	case err == nil:
		t.Fatal("Read: no error")
	case !strings.HasPrefix(err.Error(), want):
		t.Errorf("error %q, want prefix %q", err, want)
	case !errors.Is(err, store.ErrUnstorable):
		t.Errorf("error %q does not wrap store.ErrUnstorable", err)
	}
}
