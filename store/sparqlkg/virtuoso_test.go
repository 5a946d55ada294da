package sparqlkg_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/kgtest"
	"github.com/grove-kg/grove/store/sparqlkg"
	"github.com/grove-kg/grove/store/storetest/testserver"
)

const filmBase = "http://film.grove/"

// filmDialect is how the test loads the suite's graphs into Virtuoso: ids
// under one base IRI, <name> as the label, the free-text index for
// search, and the statement graph's p:, ps: and pq: predicates (written
// under the base like every relative IRI) as statement prefixes.
func filmDialect() sparqlkg.Dialect {
	d, _ := sparqlkg.LookupDialect("virtuoso")
	d.Name = "film"
	d.Nodes = []sparqlkg.Prefix{{IRI: filmBase}}
	d.Label = append([]string{filmBase + "name"}, d.Label...)
	d.Graphs = map[string]string{kgtest.FilmGraph: filmBase + "graph/film", kgtest.ExtraGraph: filmBase + "graph/extra",
		kgtest.StatementsGraph: filmBase + "graph/statements"}
	d.Statement = filmBase + store.StatementPrefix
	d.StatementValue = filmBase + store.StatementValuePrefix
	d.Qualifier = filmBase + store.QualifierPrefix
	return d
}

// startFilmVirtuoso starts Virtuoso with the film, extra and statements
// graphs.
func startFilmVirtuoso(t *testing.T) *testserver.Virtuoso {
	v := testserver.StartVirtuoso(t)
	film, err := kgtest.FilmQuads()
	if err != nil {
		t.Fatal(err)
	}
	d := filmDialect()
	v.Load(t, d.Graphs[kgtest.FilmGraph], filmBase, film)
	v.Load(t, d.Graphs[kgtest.ExtraGraph], filmBase, kgtest.ExtraQuads())
	v.Load(t, d.Graphs[kgtest.StatementsGraph], filmBase, kgtest.StatementsQuads())
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
		Statements: true,
		OpenClosed: func(t *testing.T) store.KG { return open(t) },
	})

	t.Run("RerunSendsNoRequest", func(t *testing.T) {
		again := open(t) // empty memory cache, same disk cache: Open's probe from it too
		if _, err := again.Edges(ctx, []string{kgtest.BladeRunner}, kgtest.DirectedBy, store.Out, 10); err != nil {
			t.Fatal(err)
		}
		if _, err := again.Search(ctx, kgtest.FilmGraph, "Blade Runner", 5); err != nil {
			t.Fatal(err)
		}
		if n := again.Requests(); n != 0 {
			t.Errorf("a re-run sent %d requests; the disk cache should answer all", n)
		}
	})
	t.Run("HubCountCapped", func(t *testing.T) {
		capped, err := sparqlkg.Open(ctx, sparqlkg.Config{URL: v.SPARQL, Dialect: filmDialect(), HubCap: 1000})
		if err != nil {
			t.Fatal(err)
		}
		rels, err := capped.Relations(ctx, []string{kgtest.FilmType}, store.In)
		if err != nil || len(rels) != 1 || rels[0].Count != 1000 || !rels[0].AtLeast {
			t.Errorf("capped hub relations = %+v, %v; want type: at least 1000", rels, err)
		}
		small, err := capped.Relations(ctx, []string{kgtest.BladeRunner}, store.Out)
		if err != nil || len(small) == 0 || small[0].AtLeast {
			t.Errorf("a small node's counts are exact: %+v, %v", small, err)
		}
	})
	t.Run("DigestAuth", func(t *testing.T) {
		authURL := strings.TrimSuffix(v.SPARQL, "/sparql") + "/sparql-auth"
		for _, c := range []struct {
			cred string
			ok   bool
		}{{"dba:dba", true}, {"dba:not-the-password", false}} {
			auth, err := sparqlkg.ReadAuth("", c.cred)
			if err != nil {
				t.Fatal(err)
			}
			kg, err := sparqlkg.Open(ctx, sparqlkg.Config{URL: authURL, Dialect: filmDialect(), Auth: auth, Retries: -1})
			if c.ok {
				if err != nil {
					t.Fatalf("digest auth with the right password: %v", err)
				}
				if e, err := kg.Entity(ctx, kgtest.BladeRunner); err != nil || e.Label != "Blade Runner" {
					t.Errorf("entity through /sparql-auth = %+v, %v", e, err)
				}
				continue
			}
			if err == nil || !strings.Contains(err.Error(), "rejected the credentials") || strings.Contains(err.Error(), "not-the-password") {
				t.Errorf("wrong password: %v", err)
			}
		}
	})
	t.Run("DefaultGraph", func(t *testing.T) {
		// No named graphs configured: the endpoint's default graph (in
		// Virtuoso the union of all graphs) is one graph named after the
		// dialect.
		d := filmDialect()
		d.Graphs = nil
		kg, err := sparqlkg.Open(ctx, sparqlkg.Config{URL: v.SPARQL, Dialect: d})
		if err != nil {
			t.Fatal(err)
		}
		e, err := kg.Entity(ctx, kgtest.BladeRunner)
		if err != nil || e.Label != "Blade Runner" || !slices.Equal(e.Graphs, []string{"film"}) {
			t.Errorf("entity = %+v, %v", e, err)
		}
		if _, err := kg.Entity(ctx, kgtest.NoSuchID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown entity = %v", err)
		}
		es, err := kg.Edges(ctx, []string{kgtest.BladeRunner}, kgtest.DirectedBy, store.Out, 0)
		if err != nil || len(es) != 1 || es[0].Object.Label != "Ridley Scott" || es[0].Graph != "film" {
			t.Errorf("edges = %+v, %v", es, err)
		}
		cs, err := kg.Search(ctx, "", "Blade Runner", 1)
		if err != nil || len(cs) != 1 || cs[0].ID != kgtest.BladeRunner {
			t.Errorf("search = %+v, %v", cs, err)
		}
		gs, err := kg.Graphs(ctx)
		if err != nil || len(gs) != 1 || gs[0].Name != "film" || gs[0].Quads < 471705 {
			t.Errorf("graphs = %+v, %v", gs, err)
		}
	})
	t.Run("RejectedQuery", func(t *testing.T) {
		d := filmDialect()
		d.Search = sparqlkg.SearchQLever // QLever's text search: Virtuoso rejects the ql: prefix
		bad, err := sparqlkg.Open(ctx, sparqlkg.Config{URL: v.SPARQL, Dialect: d})
		if err != nil {
			t.Fatal(err)
		}
		_, err = bad.Search(ctx, kgtest.FilmGraph, "Blade", 5)
		var se *sparqlkg.Error
		if !errors.As(err, &se) || se.Status == 0 {
			t.Fatalf("rejected query error = %v", err)
		}
		if !strings.Contains(err.Error(), "127.0.0.1") || !strings.Contains(err.Error(), "rejected the query") {
			t.Errorf("error does not name the endpoint and the rejection: %v", err)
		}
	})
}

// wikidataNT is a Wikidata-shaped graph: direct claims, statement nodes
// with qualifiers behind an edge and behind literal features (one
// language-tagged), property labels, an external id (P214) that
// <grove:hidden> "true" on its property node hides, as Grove's ingest
// marks it, and one (P227) that only its wikibase:propertyType says is an
// external id, as Wikidata's RDF does, with a direct claim (wdt:), a
// normalized one (wdtn:, an IRI) and a qualified statement; P69 is typed
// wikibase:WikibaseItem.
const wikidataNT = `<http://www.wikidata.org/entity/Q42> <http://www.w3.org/2000/01/rdf-schema#label> "Douglas Adams"@en .
<http://www.wikidata.org/entity/Q42> <http://www.w3.org/2000/01/rdf-schema#label> "Douglas Adams"@de .
<http://www.wikidata.org/entity/Q42> <http://schema.org/description> "English writer and humorist"@en .
<http://www.wikidata.org/entity/Q42> <http://www.w3.org/2004/02/skos/core#altLabel> "Douglas Noël Adams"@en .
<http://www.wikidata.org/entity/Q42> <http://www.wikidata.org/prop/direct/P69> <http://www.wikidata.org/entity/Q691283> .
<http://www.wikidata.org/entity/Q42> <http://www.wikidata.org/prop/direct/P31> <http://www.wikidata.org/entity/Q5> .
<http://www.wikidata.org/entity/Q42> <http://www.wikidata.org/prop/P69> <http://www.wikidata.org/entity/statement/Q42-S1> .
<http://www.wikidata.org/entity/statement/Q42-S1> <http://www.wikidata.org/prop/statement/P69> <http://www.wikidata.org/entity/Q691283> .
<http://www.wikidata.org/entity/statement/Q42-S1> <http://www.wikidata.org/prop/qualifier/P582> "1974"^^<http://www.w3.org/2001/XMLSchema#gYear> .
<http://www.wikidata.org/entity/statement/Q42-S1> <http://www.wikidata.org/prop/qualifier/P512> <http://www.wikidata.org/entity/Q1765120> .
<http://www.wikidata.org/entity/Q691283> <http://www.w3.org/2000/01/rdf-schema#label> "St John's College"@en .
<http://www.wikidata.org/entity/Q1765120> <http://www.w3.org/2000/01/rdf-schema#label> "Bachelor of Arts"@en .
<http://www.wikidata.org/entity/Q5> <http://www.w3.org/2000/01/rdf-schema#label> "human"@en .
<http://www.wikidata.org/entity/P69> <http://www.w3.org/2000/01/rdf-schema#label> "educated at"@en .
<http://www.wikidata.org/entity/P582> <http://www.w3.org/2000/01/rdf-schema#label> "end time"@en .
<http://www.wikidata.org/entity/P512> <http://www.w3.org/2000/01/rdf-schema#label> "academic degree"@en .
<http://www.wikidata.org/entity/Q42> <http://www.wikidata.org/prop/direct/P2048> "1.96 m" .
<http://www.wikidata.org/entity/Q42> <http://www.wikidata.org/prop/P2048> <http://www.wikidata.org/entity/statement/Q42-S2> .
<http://www.wikidata.org/entity/statement/Q42-S2> <http://www.wikidata.org/prop/statement/P2048> "1.96 m" .
<http://www.wikidata.org/entity/statement/Q42-S2> <http://www.wikidata.org/prop/qualifier/P585> "1990"^^<http://www.w3.org/2001/XMLSchema#gYear> .
<http://www.wikidata.org/entity/Q42> <http://www.wikidata.org/prop/direct/P1477> "Douglas Noël Adams"@en .
<http://www.wikidata.org/entity/Q42> <http://www.wikidata.org/prop/P1477> <http://www.wikidata.org/entity/statement/Q42-S3> .
<http://www.wikidata.org/entity/statement/Q42-S3> <http://www.wikidata.org/prop/statement/P1477> "Douglas Noël Adams"@en .
<http://www.wikidata.org/entity/statement/Q42-S3> <http://www.wikidata.org/prop/qualifier/P1810> "Adams"@en .
<http://www.wikidata.org/entity/Q42> <http://www.wikidata.org/prop/direct/P214> "113230702" .
<http://www.wikidata.org/entity/Q42> <http://www.wikidata.org/prop/P214> <http://www.wikidata.org/entity/statement/Q42-S4> .
<http://www.wikidata.org/entity/statement/Q42-S4> <http://www.wikidata.org/prop/statement/P214> "113230702" .
<http://www.wikidata.org/entity/statement/Q42-S4> <http://www.wikidata.org/prop/qualifier/P585> "2020"^^<http://www.w3.org/2001/XMLSchema#gYear> .
<http://www.wikidata.org/entity/P214> <grove:hidden> "true" .
<http://www.wikidata.org/entity/P214> <http://www.w3.org/2000/01/rdf-schema#label> "VIAF ID"@en .
<http://www.wikidata.org/entity/P2048> <http://www.w3.org/2000/01/rdf-schema#label> "height"@en .
<http://www.wikidata.org/entity/P585> <http://www.w3.org/2000/01/rdf-schema#label> "point in time"@en .
<http://www.wikidata.org/entity/Q42> <http://www.wikidata.org/prop/direct/P227> "119033364" .
<http://www.wikidata.org/entity/Q42> <http://www.wikidata.org/prop/direct-normalized/P227> <https://d-nb.info/gnd/119033364> .
<http://www.wikidata.org/entity/Q42> <http://www.wikidata.org/prop/P227> <http://www.wikidata.org/entity/statement/Q42-S5> .
<http://www.wikidata.org/entity/statement/Q42-S5> <http://www.wikidata.org/prop/statement/P227> "119033364" .
<http://www.wikidata.org/entity/statement/Q42-S5> <http://www.wikidata.org/prop/qualifier/P585> "2021"^^<http://www.w3.org/2001/XMLSchema#gYear> .
<http://www.wikidata.org/entity/P227> <http://www.w3.org/2000/01/rdf-schema#label> "GND ID"@en .
<http://www.wikidata.org/entity/P227> <http://wikiba.se/ontology#propertyType> <http://wikiba.se/ontology#ExternalId> .
<http://www.wikidata.org/entity/P227> <http://wikiba.se/ontology#directClaim> <http://www.wikidata.org/prop/direct/P227> .
<http://www.wikidata.org/entity/P227> <http://wikiba.se/ontology#directClaimNormalized> <http://www.wikidata.org/prop/direct-normalized/P227> .
<http://www.wikidata.org/entity/P227> <http://wikiba.se/ontology#claim> <http://www.wikidata.org/prop/P227> .
<http://www.wikidata.org/entity/P69> <http://wikiba.se/ontology#propertyType> <http://wikiba.se/ontology#WikibaseItem> .
<http://www.wikidata.org/entity/P69> <http://wikiba.se/ontology#directClaim> <http://www.wikidata.org/prop/direct/P69> .
<http://www.wikidata.org/entity/P69> <http://wikiba.se/ontology#claim> <http://www.wikidata.org/prop/P69> .
`

// TestVirtuosoWikidataDialect: the wikidata dialect's id mapping, property
// labels, hidden statement predicates, a relation hidden by grove:hidden
// on its property node (wd:P214 hides wdt:P214), and qualifiers of edges
// and literal features, on a real endpoint.
func TestVirtuosoWikidataDialect(t *testing.T) {
	v := testserver.StartVirtuoso(t)
	qs, err := kgtest.ParseNQuads("wd", strings.NewReader(wikidataNT))
	if err != nil {
		t.Fatal(err)
	}
	const graphIRI = "http://wikidata.grove/graph"
	v.Load(t, graphIRI, "", qs)
	d, err := sparqlkg.LookupDialect("wikidata")
	if err != nil {
		t.Fatal(err)
	}
	d.Search = sparqlkg.SearchVirtuoso // no network: the endpoint's own text index
	d.Graphs = map[string]string{"wikidata": graphIRI}
	ctx := context.Background()
	kg, err := sparqlkg.Open(ctx, sparqlkg.Config{URL: v.SPARQL, Dialect: d})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kg.Search(ctx, "wikidata", "Douglas Adams", 3)
	if err != nil || len(cs) == 0 || cs[0].ID != "Q42" || cs[0].Match != "exact" {
		t.Fatalf("search = %+v, %v", cs, err)
	}
	e, err := kg.Entity(ctx, "Q42")
	if err != nil || e.Label != "Douglas Adams" || e.Description != "English writer and humorist" ||
		len(e.Aliases) != 1 || e.Aliases[0] != "Douglas Noël Adams" {
		t.Errorf("entity = %+v, %v", e, err)
	}
	rels, err := kg.Relations(ctx, []string{"Q42"}, store.Out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rels {
		if !r.Hidden {
			got[r.ID] = r.Label
		}
	}
	if len(got) != 4 || got["P69"] != "educated at" || got["P31"] != "P31" || got["P2048"] != "height" || got["P1477"] != "P1477" {
		t.Errorf("visible relations = %v (statement links, labels, P214 and P227 must be hidden)", got)
	}
	checkWikidataHidden(t, rels)
	es, err := kg.Edges(ctx, []string{"Q42"}, "P69", store.Out, 0)
	if err != nil || len(es) != 1 {
		t.Fatalf("edges = %+v, %v", es, err)
	}
	var quals []string
	for _, q := range es[0].Qualifiers {
		quals = append(quals, q.Name+"="+q.Value)
	}
	slices.Sort(quals)
	if es[0].Object.Label != "St John's College" || es[0].RelationLabel != "educated at" ||
		!slices.Equal(quals, []string{"academic degree=Bachelor of Arts", "end time=1974"}) {
		t.Errorf("edge = %+v, qualifiers %q", es[0], quals)
	}
	checkWikidataFollowed(t, kg)
	checkWikidataFeatures(t, kg)
	t.Run("RequestsPerCall", func(t *testing.T) {
		fresh, err := sparqlkg.Open(ctx, sparqlkg.Config{URL: v.SPARQL, Dialect: d})
		if err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name string
			call func() error
			want int64
		}{
			// counts + names + the grove:hidden set (read once per KG) + the
			// property types of the listed relations (each asked about once
			// per KG)
			{"first relations", func() error { _, err := fresh.Relations(ctx, []string{"Q42"}, store.Out); return err }, 4},
			// P69's type is known: counts + names
			{"relations", func() error { _, err := fresh.Relations(ctx, []string{"Q691283"}, store.In); return err }, 2},
			// home graphs + literals + one qualifier query for both qualified features + names
			{"features", func() error { _, err := fresh.Features(ctx, "Q42"); return err }, 4},
			// edges + qualifiers + names (endpoints, qualifiers and the relation in one query)
			{"edges", func() error { _, err := fresh.Edges(ctx, []string{"Q42"}, "P69", store.Out, 0); return err }, 3},
			// the count: neither the hidden set nor Q42's home graphs (read by
			// Features, the same query) are read again, and the hidden
			// property types are a pattern in the count's query
			{"degree", func() error { _, err := fresh.Degree(ctx, "Q42", "", store.Out); return err }, 1},
		}
		countRequests(t, fresh, cases)
	})
	t.Run("DefaultGraph", func(t *testing.T) {
		// No named graphs: the property types are read from the default
		// graph (Virtuoso's union of all graphs).
		dd := d
		dd.Graphs = nil
		kg, err := sparqlkg.Open(ctx, sparqlkg.Config{URL: v.SPARQL, Dialect: dd})
		if err != nil {
			t.Fatal(err)
		}
		rels, err := kg.Relations(ctx, []string{"Q42"}, store.Out)
		if err != nil {
			t.Fatal(err)
		}
		checkWikidataHidden(t, rels)
		checkWikidataFollowed(t, kg)
	})
	t.Run("RequestsPerCallCold", func(t *testing.T) {
		cold, err := sparqlkg.Open(ctx, sparqlkg.Config{URL: v.SPARQL, Dialect: d})
		if err != nil {
			t.Fatal(err)
		}
		countRequests(t, cold, []struct {
			name string
			call func() error
			want int64
		}{
			// home graphs + the grove:hidden set + the count: the hidden
			// property types cost no request of their own
			{"first degree", func() error { _, err := cold.Degree(ctx, "Q42", "", store.Out); return err }, 3},
			// the neighbours + their names
			{"neighbors", func() error { _, err := cold.Neighbors(ctx, "Q42", "", store.Both, 0); return err }, 2},
			// literals + the property types of P2048, P1477 and P227 +
			// qualifiers + names
			{"features", func() error { _, err := cold.Features(ctx, "Q42"); return err }, 4},
			// counts + names + the types of P69, P31 and wdtn:P227 only
			{"relations", func() error { _, err := cold.Relations(ctx, []string{"Q42"}, store.Out); return err }, 3},
			// counts + names: P69's type is known
			{"relations in", func() error { _, err := cold.Relations(ctx, []string{"Q691283"}, store.In); return err }, 2},
		})
	})
}

// countRequests runs each call in order and checks the requests it sent.
func countRequests(t *testing.T, kg *sparqlkg.KG, cases []struct {
	name string
	call func() error
	want int64
}) {
	t.Helper()
	for _, c := range cases {
		before := kg.Requests()
		if err := c.call(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n := kg.Requests() - before; n != c.want {
			t.Errorf("%s sent %d requests, want %d", c.name, n, c.want)
		}
	}
}

// wdtnP227 is the normalized GND ID claim: an IRI-valued external id.
const wdtnP227 = "http://www.wikidata.org/prop/direct-normalized/P227"

// checkWikidataHidden: the relations of Q42 hidden by grove:hidden (P214)
// or by their property type (P227 through wikibase:directClaim, wdtn:P227
// through wikibase:directClaimNormalized) are listed, flagged Hidden; a
// relation of another type (P69) and untyped ones are not.
func checkWikidataHidden(t *testing.T, rels []store.Relation) {
	t.Helper()
	for _, c := range []struct {
		id     string
		hidden bool
	}{
		{"P214", true}, {"P227", true}, {wdtnP227, true}, {"http://www.wikidata.org/prop/P227", true},
		{"P69", false}, {"P31", false}, {"P2048", false},
	} {
		i := slices.IndexFunc(rels, func(r store.Relation) bool { return r.ID == c.id && r.Dir == store.Out })
		if i < 0 {
			t.Errorf("relations of Q42 lack %s: %+v", c.id, rels)
			continue
		}
		if rels[i].Hidden != c.hidden || rels[i].Count != 1 {
			t.Errorf("relation %s = %+v; want hidden %v, count 1", c.id, rels[i], c.hidden)
		}
	}
}

// checkWikidataFollowed: "" degrees and neighbours leave out the hidden
// relations of either kind; a hidden relation named explicitly is
// followed.
func checkWikidataFollowed(t *testing.T, kg *sparqlkg.KG) {
	t.Helper()
	ctx := context.Background()
	for _, c := range []struct {
		rel  string
		want int64
	}{{"", 4}, {"P214", 1}, {"P227", 1}, {wdtnP227, 1}} {
		if n, err := kg.Degree(ctx, "Q42", c.rel, store.Out); err != nil || n != c.want {
			t.Errorf("degree of Q42 along %q = %d, %v; want %d (\"\": P69, P31, P2048, P1477; a named hidden relation is followed)",
				c.rel, n, err, c.want)
		}
	}
	for _, c := range []struct {
		rel  string
		dir  store.Direction
		want string
	}{
		{"", store.Out, "[Q5 Q691283]"},
		{"", store.Both, "[Q5 Q691283]"},
		{wdtnP227, store.Out, "[https://d-nb.info/gnd/119033364]"},
	} {
		ns, err := kg.Neighbors(ctx, "Q42", c.rel, c.dir, 0)
		var ids []string
		for _, n := range ns {
			ids = append(ids, n.ID)
		}
		slices.Sort(ids)
		if err != nil || fmt.Sprint(ids) != c.want {
			t.Errorf("neighbors of Q42 along %q %v = %v, %v; want %s", c.rel, c.dir, ids, err, c.want)
		}
	}
	es, err := kg.Edges(ctx, []string{"Q42"}, "P227", store.Out, 0)
	if err != nil || len(es) != 1 || es[0].Object.Label != "119033364" || es[0].RelationLabel != "GND ID" {
		t.Errorf("edges of Q42 along the hidden P227 = %+v, %v", es, err)
	}
}

// checkWikidataFeatures: Q42's literal features carry their statements'
// qualifiers, a language-tagged value's too; the hidden P214's and
// P227's are listed but their statements are not read.
func checkWikidataFeatures(t *testing.T, kg *sparqlkg.KG) {
	t.Helper()
	fs, err := kg.Features(context.Background(), "Q42")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range fs {
		var qs []string
		for _, q := range f.Qualifiers {
			qs = append(qs, q.Statement+" "+q.Relation+" "+q.Name+"="+q.Value)
		}
		got[f.Relation] = f.Name + "=" + f.Value + " " + fmt.Sprint(qs)
	}
	want := map[string]string{
		"P2048":                         "height=1.96 m [statement/Q42-S2 pq:P585 point in time=1990]",
		"P1477":                         "P1477=Douglas Noël Adams [statement/Q42-S3 pq:P1810 P1810=Adams]",
		"P214":                          "VIAF ID=113230702 []",
		"P227":                          "GND ID=119033364 []",
		"http://schema.org/description": "description=English writer and humorist []",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("features of Q42 =\n%v\nwant\n%v", got, want)
	}
}

// bnodeNT has blank nodes as subjects and objects (film performances).
const bnodeNT = `<http://x/film> <http://www.w3.org/2000/01/rdf-schema#label> "The Film" .
<http://x/film> <http://x/performance> _:p1 .
<http://x/film> <http://x/performance> _:p2 .
_:p1 <http://www.w3.org/2000/01/rdf-schema#label> "performance one" .
_:p1 <http://x/actor> <http://x/alice> .
_:p1 <http://x/character> "Deckard" .
_:p2 <http://www.w3.org/2000/01/rdf-schema#label> "performance two" .
_:p2 <http://x/actor> <http://x/bob> .
<http://x/alice> <http://www.w3.org/2000/01/rdf-schema#label> "Alice" .
<http://x/bob> <http://www.w3.org/2000/01/rdf-schema#label> "Bob" .
`

// TestVirtuosoBlankNodes: every call finds a single blank node (Virtuoso
// finds nothing when a VALUES block holds one blank node alone).
func TestVirtuosoBlankNodes(t *testing.T) {
	v := testserver.StartVirtuoso(t)
	qs, err := kgtest.ParseNQuads("g", strings.NewReader(bnodeNT))
	if err != nil {
		t.Fatal(err)
	}
	v.Load(t, "http://x/graph", "", qs)
	d, err := sparqlkg.LookupDialect("rdf")
	if err != nil {
		t.Fatal(err)
	}
	d.Graphs = map[string]string{"g": "http://x/graph"}
	ctx := context.Background()
	kg, err := sparqlkg.Open(ctx, sparqlkg.Config{URL: v.SPARQL, Dialect: d})
	if err != nil {
		t.Fatal(err)
	}
	es, err := kg.Edges(ctx, []string{"http://x/film"}, "http://x/performance", store.Out, 0)
	if err != nil || len(es) != 2 {
		t.Fatalf("edges to the blank nodes = %+v, %v", es, err)
	}
	var p1, p2 string
	for _, e := range es {
		switch e.Object.Label {
		case "performance one":
			p1 = e.Object.ID
		case "performance two":
			p2 = e.Object.ID
		}
	}
	if !strings.HasPrefix(p1, "_:nodeID://") || !strings.HasPrefix(p2, "_:nodeID://") {
		t.Fatalf("blank node ids %q, %q (edges %+v)", p1, p2, es)
	}
	visible := func(rels []store.Relation) []string {
		var out []string
		for _, r := range rels {
			if !r.Hidden {
				out = append(out, fmt.Sprintf("%s %s %d", r.Dir, r.ID, r.Count))
			}
		}
		slices.Sort(out)
		return out
	}
	cases := []struct {
		name string
		call func() (any, error)
		want string
	}{
		{"relations out", func() (any, error) {
			rels, err := kg.Relations(ctx, []string{p1}, store.Out)
			return visible(rels), err
		}, "[out http://x/actor 1 out http://x/character 1]"},
		{"relations in", func() (any, error) {
			rels, err := kg.Relations(ctx, []string{p1}, store.In)
			return visible(rels), err
		}, "[in http://x/performance 1]"},
		{"relations of two", func() (any, error) {
			rels, err := kg.Relations(ctx, []string{p1, p2}, store.Out)
			return visible(rels), err
		}, "[out http://x/actor 2 out http://x/character 1]"},
		{"entity", func() (any, error) {
			e, err := kg.Entity(ctx, p1)
			return e.Label + " " + strings.Join(e.Graphs, ","), err
		}, "performance one g"},
		{"edges out", func() (any, error) {
			es, err := kg.Edges(ctx, []string{p1}, "http://x/actor", store.Out, 0)
			var out []string
			for _, e := range es {
				out = append(out, e.Subject.Label+" -> "+e.Object.Label)
			}
			return out, err
		}, "[performance one -> Alice]"},
		{"edges in", func() (any, error) {
			es, err := kg.Edges(ctx, []string{p2}, "http://x/performance", store.In, 0)
			var out []string
			for _, e := range es {
				out = append(out, e.Subject.Label+" -> "+e.Object.Label)
			}
			return out, err
		}, "[The Film -> performance two]"},
		{"neighbors", func() (any, error) {
			ns, err := kg.Neighbors(ctx, p1, "", store.Both, 0)
			var out []string
			for _, n := range ns {
				out = append(out, n.Label)
			}
			slices.Sort(out)
			return out, err
		}, "[Alice The Film]"},
		{"degree", func() (any, error) { return kg.Degree(ctx, p1, "", store.Both) }, "3"},
		{"features", func() (any, error) {
			fs, err := kg.Features(ctx, p1)
			var out []string
			for _, f := range fs {
				out = append(out, f.Relation+"="+f.Value)
			}
			return out, err
		}, "[http://x/character=Deckard]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.call()
			if err != nil || fmt.Sprint(got) != c.want {
				t.Errorf("got %v, %v; want %s", got, err, c.want)
			}
		})
	}
}
