package backendbench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/kgtest"
	"github.com/grove-kg/grove/store/query"
	"github.com/grove-kg/grove/store/sparqlkg"
	"github.com/grove-kg/grove/store/sqlkg"
	"github.com/grove-kg/grove/store/storetest"
	"github.com/grove-kg/grove/store/storetest/testserver"
)

// BenchmarkBackends runs the same KG calls on each backend over distinct
// films (so the SPARQL client's cache never answers) and reports p50, p99
// and calls/s per operation. Run it alone:
//
//	go test ./store/internal/backendbench -run XXX -bench Backends -benchtime 1x
func BenchmarkBackends(b *testing.B) {
	ctx := context.Background()
	film, err := kgtest.FilmQuads()
	if err != nil {
		b.Fatal(err)
	}
	films := pickFilms(film, 300)
	if len(films) < 100 {
		b.Fatalf("only %d films picked", len(films))
	}
	backends := []struct {
		name string
		open func(b *testing.B) store.KG
	}{
		{"badger", func(b *testing.B) store.KG { return openEngine(b, film) }},
		{"sparql-virtuoso", func(b *testing.B) store.KG { return openVirtuoso(b, film) }},
		{"sql-postgres", func(b *testing.B) store.KG { return openPostgres(b, film) }},
	}
	for _, be := range backends {
		kg := be.open(b)
		for _, op := range ops() {
			b.Run(be.name+"/"+op.name, func(b *testing.B) {
				for range b.N {
					lat := make([]time.Duration, 0, len(films))
					start := time.Now()
					for _, f := range films {
						t0 := time.Now()
						if err := op.call(ctx, kg, f); errors.Is(err, errNoQuadStore) {
							b.Skipf("%s: %v", be.name, err)
						} else if err != nil {
							b.Fatalf("%s %s: %v", op.name, f.id, err)
						}
						lat = append(lat, time.Since(t0))
					}
					total := time.Since(start)
					slices.Sort(lat)
					b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
					b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
					b.ReportMetric(float64(len(films))/total.Seconds(), "calls/s")
				}
			})
		}
	}
}

type filmRef struct{ id, name string }

// pickFilms takes n films spread over the file, with their names.
func pickFilms(qs []quad.Quad, n int) []filmRef {
	var out []filmRef
	names := map[string]string{}
	for _, q := range qs {
		if plain(q.Predicate) == "name" {
			names[plain(q.Subject)] = plain(q.Object)
		}
	}
	for _, q := range qs {
		if plain(q.Predicate) == "type" && plain(q.Object) == kgtest.FilmType && names[plain(q.Subject)] != "" {
			out = append(out, filmRef{plain(q.Subject), names[plain(q.Subject)]})
		}
	}
	step := max(1, len(out)/n)
	var picked []filmRef
	for i := 0; i < len(out) && len(picked) < n; i += step {
		picked = append(picked, out[i])
	}
	return picked
}

// plain is an IRI or a string without N-Quads syntax.
func plain(v quad.Value) string {
	switch v := v.(type) {
	case quad.IRI:
		return string(v)
	case quad.String:
		return string(v)
	}
	return quad.StringOf(v)
}

type op struct {
	name string
	call func(context.Context, store.KG, filmRef) error
}

func ops() []op {
	return []op{
		{"Search", func(ctx context.Context, kg store.KG, f filmRef) error {
			_, err := kg.Search(ctx, kgtest.FilmGraph, f.name, 10)
			return err
		}},
		{"Entity", func(ctx context.Context, kg store.KG, f filmRef) error {
			_, err := kg.Entity(ctx, f.id)
			return err
		}},
		{"Relations", func(ctx context.Context, kg store.KG, f filmRef) error {
			_, err := kg.Relations(ctx, []string{f.id}, store.Both)
			return err
		}},
		{"EdgesStarring", func(ctx context.Context, kg store.KG, f filmRef) error {
			_, err := kg.Edges(ctx, []string{f.id}, kgtest.Starring, store.Out, 0)
			return err
		}},
		{"EdgesDirectorIn", func(ctx context.Context, kg store.KG, f filmRef) error {
			es, err := kg.Edges(ctx, []string{f.id}, kgtest.DirectedBy, store.Out, 1)
			if err != nil || len(es) == 0 {
				return err
			}
			_, err = kg.Edges(ctx, []string{es[0].Object.ID}, kgtest.DirectedBy, store.In, 50)
			return err
		}},
		{"Degree", func(ctx context.Context, kg store.KG, f filmRef) error {
			_, err := kg.Degree(ctx, f.id, "", store.Both)
			return err
		}},
		// Cayley's query languages, through store/query as `grove query`
		// and the server run them: the film's cast (film -> starring CVT
		// -> actor -> name). Backends without a Cayley quad store skip.
		{"GizmoCast", cayleyOp("gizmo", `g.V("<%s>").Out("<`+kgtest.Starring+`>").Out("</film/performance/actor>").Out("<name>").All()`)},
		{"GraphQLCast", cayleyOp("graphql", `{ nodes(id: "<%s>") { s: <`+kgtest.Starring+`> { a: </film/performance/actor> { n: <name> } } } }`)},
	}
}

// errNoQuadStore makes an op skip a backend without a Cayley quad store.
var errNoQuadStore = errors.New("no Cayley quad store")

// cayleyOp runs query (with the film's id for %s) in lang on the KG's
// Cayley quad store.
func cayleyOp(lang, q string) func(context.Context, store.KG, filmRef) error {
	return func(ctx context.Context, kg store.KG, f filmRef) error {
		var qs graph.QuadStore
		switch kg := kg.(type) {
		case interface{ QuadStore() graph.QuadStore }:
			qs = kg.QuadStore()
		case graph.QuadStore:
			qs = kg
		default:
			return errNoQuadStore
		}
		out, err := query.Run(ctx, qs, lang, fmt.Sprintf(q, f.id), 1000)
		if err == nil && len(out) == 0 {
			err = fmt.Errorf("%s: no result", lang)
		}
		return err
	}
}

func openEngine(b *testing.B, film []quad.Quad) store.KG {
	db, err := engine.Open(b.TempDir(), engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	storetest.Load(b, db, kgtest.FilmGraph, film)
	return db
}

const filmBase = "http://film.grove/"

func openVirtuoso(b *testing.B, film []quad.Quad) store.KG {
	v := testserver.StartVirtuoso(b)
	v.Load(b, filmBase+"graph/film", filmBase, film)
	d, _ := sparqlkg.LookupDialect("virtuoso")
	d.Name, d.Nodes = "film", []sparqlkg.Prefix{{IRI: filmBase}}
	d.Label = append([]string{filmBase + "name"}, d.Label...)
	d.Graphs = map[string]string{kgtest.FilmGraph: filmBase + "graph/film"}
	kg, err := sparqlkg.Open(context.Background(), sparqlkg.Config{URL: v.SPARQL, Dialect: d})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { kg.Close() })
	return kg
}

func openPostgres(b *testing.B, film []quad.Quad) store.KG {
	pg := testserver.StartPostgres(b)
	kg, err := sqlkg.Open(context.Background(), sqlkg.Config{URL: pg.URL})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { kg.Close() })
	if _, err := kg.Load(context.Background(), kgtest.FilmGraph, film); err != nil {
		b.Fatal(fmt.Errorf("load: %w", err))
	}
	return kg
}
