package sqlkg_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
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
var gizmoCases = []struct {
	name, q string
	lang    string // "" is gizmo
	empty   bool   // the answer is empty
}{
	{name: "out chain", q: `g.V("</en/blade_runner>").Out("</film/film/directed_by>").Out("<name>").All()`},
	{name: "in chain", q: `g.V("Ridley Scott").In("<name>").In("</film/film/directed_by>").Out("<name>").All()`},
	{name: "has", q: `g.V().Has("</film/film/directed_by>", "</en/ridley_scott>").Out("<name>").All()`},
	{name: "and", q: `g.V("</en/ridley_scott>").In("</film/film/directed_by>").And(g.V("</en/harrison_ford>").In("</film/performance/actor>").In("</film/film/starring>")).Out("<name>").All()`},
	{name: "except", q: `g.V("</en/ridley_scott>").In("</film/film/directed_by>").Except(g.V("</en/harrison_ford>").In("</film/performance/actor>").In("</film/film/starring>")).Out("<name>").All()`},
	{name: "or unique", q: `g.V("</en/ridley_scott>", "</en/tony_scott>").In("</film/film/directed_by>").Or(g.V("</en/blade_runner>")).Unique().Out("<name>").All()`},
	{name: "filter regex", q: `g.V("</en/ridley_scott>").In("</film/film/directed_by>").Out("<name>").Filter(regex("^B")).All()`},
	{name: "tag back", q: `g.V("</en/harrison_ford>").In("</film/performance/actor>").Tag("cvt").In("</film/film/starring>").Tag("film").Out("</film/film/directed_by>").Is("</en/ridley_scott>").Back("cvt").Out("</film/performance/character>").All()`},
	{name: "count", q: `g.emit(g.V("</en/ridley_scott>").In("</film/film/directed_by>").Count())`},
	{name: "limit count", q: `g.emit(g.V("</en/ridley_scott>").In("</film/film/directed_by>").Limit(3).Count())`},
	{name: "skip limit", q: `g.V("</en/ridley_scott>").In("</film/film/directed_by>").Out("<name>").Skip(1).Limit(3).Count()`},
	{name: "labels both ways", q: `g.V("</en/blade_runner>").OutPredicates().All()`},
	{name: "nested queries", q: `g.V("</en/ridley_scott>").In("</film/film/directed_by>").ForEach(function(d){ g.V(d.id).Out("<name>").ForEach(function(n){ g.Emit(n.id) }) })`},
	{name: "unknown id", q: `g.V("</en/nope>").All()`, empty: true},
	{name: "unknown id among known", q: `g.V("</en/nope>", "</en/blade_runner>").All()`},
	{name: "count of unknown", q: `g.emit(g.V("</en/nope>").Count())`},
	{name: "graphql two levels", q: `{ nodes(id: "</en/blade_runner>") { id, d: </film/film/directed_by> { name: <name> } } }`, lang: "graphql"},
	{name: "graphql three levels", q: `{ nodes(id: "</en/ridley_scott>") { f: </film/film/directed_by> @rev { d: </film/film/directed_by> { id } } } }`, lang: "graphql"},
	{name: "graphql cvt", q: `{ nodes(id: "</en/blade_runner>") { s: </film/film/starring> { a: </film/performance/actor> { id } } } }`, lang: "graphql"},
	{name: "mql", q: `[{"id": "</en/alien_1979>", "</film/film/directed_by>": null}]`, lang: "mql"},
	{name: "mql unknown id", q: `[{"id": "</en/nope>", "<name>": null}]`, lang: "mql", empty: true},
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
			lang := cmp.Or(c.lang, "gizmo")
			want, err := query.Run(ctx, mem, lang, c.q, 10000)
			if err != nil {
				t.Fatalf("memstore: %v", err)
			}
			if (len(want) == 0) != c.empty {
				t.Fatalf("memstore answered %v: the case tests nothing", want)
			}
			got, err := query.Run(ctx, kg.QuadStore(), lang, c.q, 10000)
			if err != nil {
				t.Fatalf("sql: %v", err)
			}
			if g, w := canonical(got), canonical(want); !slices.Equal(g, w) {
				t.Errorf("sql answered %d results %v\nmemstore %d %v", len(g), g, len(w), w)
			}
		})
	}
}

// canonical renders results sorted, lists inside them too, for a
// comparison that ignores order.
func canonical(rs []any) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		var plain any // Cayley's results as JSON values: lists and maps of their own types become []any and map[string]any
		if b, err := json.Marshal(r); err == nil && json.Unmarshal(b, &plain) == nil {
			r = plain
		}
		out[i] = render(r)
	}
	slices.Sort(out)
	return out
}

// render prints v with its lists sorted and its maps' keys in order.
func render(v any) string {
	switch v := v.(type) {
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = render(e)
		}
		slices.Sort(parts)
		return "[" + strings.Join(parts, " ") + "]"
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + render(v[k])
		}
		return "{" + strings.Join(parts, " ") + "}"
	}
	return fmt.Sprint(v)
}
