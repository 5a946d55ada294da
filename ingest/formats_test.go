package ingest

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest/datadir"
)

// TestEveryFormatThroughTheKG loads each dump format with one Run (format
// detected from the content) into its own graph of one database and asks
// the KG interface hand-checked questions about it.
func TestEveryFormatThroughTheKG(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	defer db.Close()
	load := func(graph string, files ...string) Result {
		t.Helper()
		res, err := Run(ctx, db, files, Options{Graph: graph})
		if err != nil {
			t.Fatalf("ingest %s: %v", graph, err)
		}
		return res
	}
	wd := load("wikidata", datadir.Repo(t, "wikidata-sample-entities.json.gz"))
	fb := load("freebase", filepath.Join("rdf", "testdata", "freebase.nt"))
	tr := load("truthy", filepath.Join("rdf", "testdata", "truthy.nt"))
	gb := load("dblp", filepath.Join("grbench", "testdata", "dblp.json"))
	mb := load("musicbrainz", filepath.Join("musicbrainz", "testdata", "artist.jsonl"))
	for _, c := range []struct {
		res    Result
		format string
	}{{wd, "wikidata-json"}, {fb, "freebase"}, {tr, "wikidata-truthy"}, {gb, "grbench"}, {mb, "musicbrainz"}} {
		if len(c.res.Files) != 1 || c.res.Files[0].Format != c.format || c.res.Load.Added == 0 {
			t.Errorf("detected %+v, want format %s with quads", c.res.Files, c.format)
		}
	}

	// Wikidata JSON: Berlin's country, with its qualifier, and search.
	// (The truthy fixture holds Q64 too: the same id in two graphs.)
	edges, err := db.Edges(ctx, []string{"Q64"}, "P17", store.Out, 0)
	i := slices.IndexFunc(edges, func(e store.Edge) bool { return e.Graph == "wikidata" })
	if err != nil || i < 0 || edges[i].Object.ID != "Q183" || edges[i].Subject.Label != "Berlin" {
		t.Fatalf("Q64 P17 = %+v, %v", edges, err)
	}
	if q := edges[i].Qualifiers; len(q) == 0 || q[0].Value != "3 October 1990" {
		t.Errorf("Q64 P17 qualifiers = %+v, want start time 3 October 1990", q)
	}
	c, err := db.Search(ctx, "wikidata", "Berlin", 1)
	if err != nil || len(c) != 1 || c[0].ID != "Q64" || c[0].Description == "" {
		t.Errorf("search Berlin = %+v, %v", c, err)
	}
	// External ids are hidden from relation listings.
	rels, err := db.Relations(ctx, []string{"Q64"}, store.Out)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(rels, func(r store.Relation) bool { return r.ID == "P214" }); i < 0 || !rels[i].Hidden {
		t.Errorf("P214 (VIAF id) should be listed hidden: %+v", rels)
	}

	// Freebase: short MIDs, names as labels, relation labels from ids.
	c, err = db.Search(ctx, "freebase", "John F. Kennedy", 1)
	if err != nil || len(c) != 1 || c[0].ID != "m.0d3k14" {
		t.Fatalf("freebase search = %+v, %v", c, err)
	}
	edges, err = db.Edges(ctx, []string{"m.0d3k14"}, "people.person.place_of_birth", store.Out, 0)
	if err != nil || len(edges) != 1 || edges[0].RelationLabel != "place of birth" {
		t.Errorf("freebase place of birth = %+v, %v", edges, err)
	}

	// Wikidata truthy: wdt: predicates become P ids in the truthy graph.
	edges, err = db.Edges(ctx, []string{"Q64"}, "P17", store.Out, 0)
	if err != nil || !slices.ContainsFunc(edges, func(e store.Edge) bool { return e.Graph == "truthy" && e.Object.ID == "Q183" }) {
		t.Errorf("truthy Q64 P17 = %+v, %v", edges, err)
	}

	// GRBench: typed node ids, the text feature as label, features.
	c, err = db.Search(ctx, "dblp", "Long Range Optical Truck Tracking", 1)
	if err != nil || len(c) != 1 || !strings.HasPrefix(c[0].ID, "paper/") {
		t.Fatalf("grbench search = %+v, %v", c, err)
	}
	fs, err := db.Features(ctx, c[0].ID)
	if err != nil || !slices.ContainsFunc(fs, func(f store.Feature) bool { return f.Relation == "abstract" }) {
		t.Errorf("grbench features = %+v, %v", fs, err)
	}

	// MusicBrainz: the artist, and its link into Wikidata.
	c, err = db.Search(ctx, "musicbrainz", "The Beatles", 1)
	if err != nil || len(c) != 1 || !strings.HasPrefix(c[0].ID, "mb:artist/") {
		t.Fatalf("musicbrainz search = %+v, %v", c, err)
	}
	// The link points at Q1299, which the Wikidata sample lacks: SameAs
	// reports targets only where they exist. Add the band to the Wikidata
	// graph (a second load into an existing graph) and follow the link.
	if links, err := db.SameAs(ctx, c[0].ID, ""); err != nil || len(links) != 0 {
		t.Errorf("link to a missing entity = %+v, %v", links, err)
	}
	load("wikidata", write(t, "beatles.nt", `<Q1299> <http://www.w3.org/2000/01/rdf-schema#label> "The Beatles"@en .
<Q1299> <P31> <Q215380> .
`))
	links, err := db.SameAs(ctx, c[0].ID, "")
	if err != nil || len(links) != 1 || links[0].Target.ID != "Q1299" || links[0].Graph != "wikidata" {
		t.Errorf("MusicBrainz -> Wikidata link = %+v, %v", links, err)
	}
	back, err := db.SameAs(ctx, "Q1299", "musicbrainz")
	if err != nil || len(back) != 1 || back[0].Target.ID != c[0].ID {
		t.Errorf("Wikidata -> MusicBrainz link = %+v, %v", back, err)
	}
}
