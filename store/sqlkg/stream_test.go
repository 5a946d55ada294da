package sqlkg_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/sqlkg"
)

// chunks is a QuadSource handing out qs n at a time.
func chunks(qs []quad.Quad, n int) sqlkg.QuadSource {
	return func(fn func([]quad.Quad) error) error {
		for i := 0; i < len(qs); i += n {
			if err := fn(qs[i:min(i+n, len(qs))]); err != nil {
				return err
			}
		}
		return nil
	}
}

// streamQuads is a film-like graph of n films whose nodes repeat across
// chunks: shared directors, predicates and labels; some quads twice.
func streamQuads(n int) []quad.Quad {
	var qs []quad.Quad
	for i := range n {
		f := quad.IRI(fmt.Sprintf("/en/film_%d", i))
		qs = append(qs,
			quad.Make(f, quad.IRI("/film/film/directed_by"), quad.IRI(fmt.Sprintf("/en/director_%d", i%7)), nil),
			quad.Make(f, quad.IRI(store.RDFSLabel), quad.String(fmt.Sprintf("Film %d", i)), nil),
			quad.Make(f, quad.IRI("/film/film/initial_release_date"), quad.TypedString{Value: quad.String(fmt.Sprint(1950 + i%60)),
				Type: "http://www.w3.org/2001/XMLSchema#gYear"}, quad.IRI("other")))
		if i%5 == 0 {
			qs = append(qs, qs[len(qs)-3]) // a repeat, in a later chunk for some
		}
	}
	return qs
}

// TestPostgresWriteFrom: WriteFrom in chunks of a few quads leaves the
// same tables and counts as Load and Delete of the whole batch, with and
// without KeepLabels; an error of the source, or a bad quad in a later
// chunk, rolls back what earlier chunks copied.
func TestPostgresWriteFrom(t *testing.T) {
	ctx := context.Background()
	whole, streamed := openTwins(t)
	qs := streamQuads(300)
	cases := []struct {
		name    string
		chunk   int
		keep    bool
		viaLoad func() (int64, error) // the same write through Load/Delete
		del     bool
	}{
		{name: "load", chunk: 7, viaLoad: func() (int64, error) { return whole.kg.Load(ctx, "films", qs) }},
		{name: "load again", chunk: 50, viaLoad: func() (int64, error) { return whole.kg.Load(ctx, "films", qs) }},
		{name: "delete", chunk: 11, del: true, viaLoad: func() (int64, error) { return whole.kg.Delete(ctx, "films", qs) }},
		{name: "load keeping labels", chunk: 13, keep: true, viaLoad: func() (int64, error) {
			return loadLabelled(ctx, whole.kg, "films", qs)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := c.viaLoad()
			if err != nil {
				t.Fatal(err)
			}
			got, err := streamed.kg.WriteFrom(ctx, sqlkg.StreamOptions{Graph: "films", KeepLabels: c.keep, Delete: c.del}, chunks(qs, c.chunk))
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("WriteFrom: %d quads, Load/Delete: %d", got, want)
			}
			if a, b := dump(t, whole.db), dump(t, streamed.db); a != b {
				t.Errorf("tables differ:\nwhole batch:\n%s\nstreamed:\n%s", tail(a), tail(b))
			}
			checkExact(t, streamed)
		})
	}
	t.Run("failed source rolls back", func(t *testing.T) {
		before := dump(t, streamed.db)
		boom := errors.New("read error in the third chunk")
		calls := 0
		src := func(fn func([]quad.Quad) error) error {
			return chunks(streamQuads(50), 10)(func(c []quad.Quad) error {
				if calls++; calls == 3 {
					return boom
				}
				return fn(c)
			})
		}
		if _, err := streamed.kg.WriteFrom(ctx, sqlkg.StreamOptions{Graph: "late"}, src); !errors.Is(err, boom) {
			t.Fatalf("WriteFrom = %v, want %v", err, boom)
		}
		bad := append(streamQuads(20), quad.Quad{Subject: quad.IRI("x"), Predicate: quad.IRI("p")})
		if _, err := streamed.kg.WriteFrom(ctx, sqlkg.StreamOptions{Graph: "late"}, chunks(bad, 8)); err == nil {
			t.Fatal("a quad without an object was written")
		}
		if after := dump(t, streamed.db); after != before {
			t.Errorf("a failed WriteFrom changed the tables")
		}
	})
	t.Run("delete from a missing graph", func(t *testing.T) {
		_, err := streamed.kg.WriteFrom(ctx, sqlkg.StreamOptions{Graph: "nosuch", Delete: true}, chunks(qs, 10))
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("WriteFrom = %v, want store.ErrNotFound", err)
		}
	})
}

// loadLabelled writes qs as KeepLabels does: each quad into the graph its
// label names, the rest into graph.
func loadLabelled(ctx context.Context, kg *sqlkg.KG, graph string, qs []quad.Quad) (int64, error) {
	byGraph := map[string][]quad.Quad{}
	var order []string
	for _, q := range qs {
		g := graph
		if iri, ok := q.Label.(quad.IRI); ok {
			g = string(iri) // the test labels only with IRIs
		}
		if byGraph[g] == nil {
			order = append(order, g)
		}
		byGraph[g] = append(byGraph[g], q)
	}
	var n int64
	for _, g := range order {
		m, err := kg.Load(ctx, g, byGraph[g])
		if err != nil {
			return n, err
		}
		n += m
	}
	return n, nil
}

// tail summarises a dump: its quad and node rows and the graphs.
func tail(s string) string {
	parts := strings.SplitN(s, "\n--\n", 3)
	if len(parts) < 3 {
		return s
	}
	return fmt.Sprintf("%d quad rows, %d node rows, graphs %s", strings.Count(parts[0], "\n")+1, strings.Count(parts[1], "\n")+1, parts[2])
}
