package sparqlkg_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/internal/testserver"
	"github.com/grove-kg/grove/store/kgtest"
	"github.com/grove-kg/grove/store/sparqlkg"
)

const filmBase = "http://film.grove/"

// filmDialect is how the test loads the film sample into Virtuoso: ids
// under one base IRI, <name> as the label, the free-text index for search.
func filmDialect() sparqlkg.Dialect {
	d, _ := sparqlkg.LookupDialect("virtuoso")
	d.Name = "film"
	d.Nodes = []sparqlkg.Prefix{{IRI: filmBase}}
	d.Label = append([]string{filmBase + "name"}, d.Label...)
	d.Graphs = map[string]string{kgtest.FilmGraph: filmBase + "graph/film", kgtest.ExtraGraph: filmBase + "graph/extra"}
	return d
}

// startFilmVirtuoso starts Virtuoso with the film and extra graphs.
func startFilmVirtuoso(t *testing.T) *testserver.Virtuoso {
	v := testserver.StartVirtuoso(t)
	film, err := kgtest.FilmQuads()
	if err != nil {
		t.Fatal(err)
	}
	d := filmDialect()
	v.Load(t, d.Graphs[kgtest.FilmGraph], filmBase, film)
	v.Load(t, d.Graphs[kgtest.ExtraGraph], filmBase, kgtest.ExtraQuads())
	return v
}

func TestVirtuoso(t *testing.T) {
	v := startFilmVirtuoso(t)
	ctx := context.Background()
	cacheDir := t.TempDir()
	open := func(t *testing.T) *sparqlkg.KG {
		kg, err := sparqlkg.Open(ctx, sparqlkg.Config{URL: v.SPARQL, Dialect: filmDialect(), CacheDir: cacheDir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { kg.Close() })
		return kg
	}
	kg := open(t)
	kgtest.Run(t, kgtest.Harness{
		KG:         kg,
		NoFuzzy:    true,
		OpenClosed: func(t *testing.T) store.KG { return open(t) },
	})

	t.Run("RerunSendsNoRequest", func(t *testing.T) {
		again := open(t) // empty memory cache, same disk cache
		before := again.Requests()
		if _, err := again.Edges(ctx, []string{kgtest.BladeRunner}, kgtest.DirectedBy, store.Out, 10); err != nil {
			t.Fatal(err)
		}
		if _, err := again.Search(ctx, kgtest.FilmGraph, "Blade Runner", 5); err != nil {
			t.Fatal(err)
		}
		if n := again.Requests() - before; n != 0 {
			t.Errorf("a re-run sent %d requests; the disk cache should answer all", n)
		}
	})
	t.Run("RejectedQuery", func(t *testing.T) {
		d := filmDialect()
		d.Label = []string{"http://film.grove/name> } garbage {"} // an IRI the endpoint cannot parse
		bad, err := sparqlkg.Open(ctx, sparqlkg.Config{URL: v.SPARQL, Dialect: d})
		if err != nil {
			t.Fatal(err)
		}
		_, err = bad.Entity(ctx, kgtest.BladeRunner)
		var se *sparqlkg.Error
		if !errors.As(err, &se) || se.Status == 0 {
			t.Fatalf("rejected query error = %v", err)
		}
		if !strings.Contains(err.Error(), "127.0.0.1") {
			t.Errorf("error does not name the endpoint: %v", err)
		}
	})
}
