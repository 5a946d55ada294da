package sqlkg_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/cayleygraph/cayley/graph/memstore"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store/query"
	"github.com/grove-kg/grove/store/sqlkg"
)

// gizmoCases are Gizmo queries over the film graph that Cayley's SQL
// optimiser turns into SQL (Out/In chains, Has, And, Except, Filter,
// Tag/Back, Skip/Limit, Count) and some it leaves to iterators. (Results
// cut by Skip/Limit are counted, not compared: neither store orders them.)
var gizmoCases = []struct{ name, q string }{
	{"out chain", `g.V("</en/blade_runner>").Out("</film/film/directed_by>").Out("<name>").All()`},
	{"in chain", `g.V("Ridley Scott").In("<name>").In("</film/film/directed_by>").Out("<name>").All()`},
	{"has", `g.V().Has("</film/film/directed_by>", "</en/ridley_scott>").Out("<name>").All()`},
	{"and", `g.V("</en/ridley_scott>").In("</film/film/directed_by>").And(g.V("</en/harrison_ford>").In("</film/performance/actor>").In("</film/film/starring>")).Out("<name>").All()`},
	{"except", `g.V("</en/ridley_scott>").In("</film/film/directed_by>").Except(g.V("</en/harrison_ford>").In("</film/performance/actor>").In("</film/film/starring>")).Out("<name>").All()`},
	{"or unique", `g.V("</en/ridley_scott>", "</en/tony_scott>").In("</film/film/directed_by>").Or(g.V("</en/blade_runner>")).Unique().Out("<name>").All()`},
	{"filter regex", `g.V("</en/ridley_scott>").In("</film/film/directed_by>").Out("<name>").Filter(regex("^B")).All()`},
	{"tag back", `g.V("</en/harrison_ford>").In("</film/performance/actor>").Tag("cvt").In("</film/film/starring>").Tag("film").Out("</film/film/directed_by>").Is("</en/ridley_scott>").Back("cvt").Out("</film/performance/character>").All()`},
	{"count", `g.emit(g.V("</en/ridley_scott>").In("</film/film/directed_by>").Count())`},
	{"limit count", `g.emit(g.V("</en/ridley_scott>").In("</film/film/directed_by>").Limit(3).Count())`},
	{"skip limit", `g.V("</en/ridley_scott>").In("</film/film/directed_by>").Out("<name>").Skip(1).Limit(3).Count()`},
	{"labels both ways", `g.V("</en/blade_runner>").OutPredicates().All()`},
}

// checkGizmo runs Gizmo through store/query (the path of `grove query`
// and the server's query route: a Guard around the store) on the SQL
// backend and on Cayley's in-memory store holding the same quads (graphs
// as labels, as Load stores them), and compares the answers.
func checkGizmo(t *testing.T, kg *sqlkg.KG, graphs map[string][]quad.Quad) {
	ctx := context.Background()
	var all []quad.Quad
	for g, qs := range graphs {
		for _, q := range qs {
			q.Label = quad.IRI(g)
			all = append(all, q)
		}
	}
	mem := memstore.New(all...)
	for _, c := range gizmoCases {
		t.Run(c.name, func(t *testing.T) {
			want, err := query.Run(ctx, mem, "gizmo", c.q, 10000)
			if err != nil {
				t.Fatalf("memstore: %v", err)
			}
			if len(want) == 0 {
				t.Fatalf("memstore answered nothing: the case tests nothing")
			}
			got, err := query.Run(ctx, kg.QuadStore(), "gizmo", c.q, 10000)
			if err != nil {
				t.Fatalf("sql: %v", err)
			}
			if g, w := canonical(got), canonical(want); !slices.Equal(g, w) {
				t.Errorf("sql answered %d results %v\nmemstore %d %v", len(g), g, len(w), w)
			}
		})
	}
}

// canonical renders results sorted, for a comparison that ignores order.
func canonical(rs []any) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprint(r)
	}
	slices.Sort(out)
	return out
}
