package tot

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/storetest"
)

// wikidataNQ is a tiny Wikidata-like graph around Figure 3 of the paper
// (Bob Dylan's maternal grandmother). The family facts follow public
// genealogy (Beatrice "Beatty" Stone, daughter of Florence Stone); ids
// above Q99000000 are made up for the fixture.
const wikidataNQ = `
<Q392> <http://www.w3.org/2000/01/rdf-schema#label> "Bob Dylan" .
<Q392> <http://schema.org/description> "American singer-songwriter" .
<Q62519478> <http://www.w3.org/2000/01/rdf-schema#label> "Beatrice Stone" .
<Q62519478> <http://schema.org/description> "mother of Bob Dylan" .
<Q99000001> <http://www.w3.org/2000/01/rdf-schema#label> "Florence Stone" .
<Q99000002> <http://www.w3.org/2000/01/rdf-schema#label> "Abram Zimmerman" .
<Q99000002> <http://schema.org/description> "father of Bob Dylan" .
<Q99000003> <http://www.w3.org/2000/01/rdf-schema#label> "Anna Zimmerman" .
<Q99000004> <http://www.w3.org/2000/01/rdf-schema#label> "Jakob Dylan" .
<Q99000004> <http://schema.org/description> "American musician" .
<Q99000010> <http://www.w3.org/2000/01/rdf-schema#label> "Duluth" .
<Q5> <http://www.w3.org/2000/01/rdf-schema#label> "human" .
<P25> <http://www.w3.org/2000/01/rdf-schema#label> "mother" .
<P22> <http://www.w3.org/2000/01/rdf-schema#label> "father" .
<P40> <http://www.w3.org/2000/01/rdf-schema#label> "child" .
<P19> <http://www.w3.org/2000/01/rdf-schema#label> "place of birth" .
<P31> <http://www.w3.org/2000/01/rdf-schema#label> "instance of" .
<P569> <http://www.w3.org/2000/01/rdf-schema#label> "date of birth" .
<P434> <http://www.w3.org/2000/01/rdf-schema#label> "MusicBrainz artist ID" .
<P434> <grove:hidden> "true" .
<Q392> <P25> <Q62519478> .
<Q392> <P22> <Q99000002> .
<Q392> <P40> <Q99000004> .
<Q392> <P19> <Q99000010> .
<Q392> <P31> <Q5> .
<Q392> <P569> "1941-05-24"^^<http://www.w3.org/2001/XMLSchema#date> .
<Q392> <P434> "72c536dc-7137-4477-a521-567eeb840fa8" .
<Q62519478> <P25> <Q99000001> .
<Q62519478> <P31> <Q5> .
<Q99000002> <P25> <Q99000003> .
<Q99000004> <P31> <Q5> .
<Q392> <grove:sameAs> <mb:artist/72c536dc-7137-4477-a521-567eeb840fa8> .
<Q99000004> <grove:sameAs> <mb:artist/jakob-dylan> .
`

// musicbrainzNQ is a tiny MusicBrainz-like graph linked to wikidataNQ.
const musicbrainzNQ = `
<mb:artist/72c536dc-7137-4477-a521-567eeb840fa8> <http://www.w3.org/2000/01/rdf-schema#label> "Bob Dylan" .
<mb:artist/jakob-dylan> <http://www.w3.org/2000/01/rdf-schema#label> "Jakob Dylan" .
<mb:artist/the-wallflowers> <http://www.w3.org/2000/01/rdf-schema#label> "The Wallflowers" .
<mb:artist/the-wallflowers> <http://schema.org/description> "American rock band" .
<mb:member_of_band> <http://www.w3.org/2000/01/rdf-schema#label> "member of band" .
<mb:member_of_band> <grove:inverseLabel> "has member" .
<mb:artist/jakob-dylan> <mb:member_of_band> <mb:artist/the-wallflowers> .
<mb:artist/72c536dc-7137-4477-a521-567eeb840fa8> <mb:member_of_band> <mb:artist/traveling-wilburys> .
<mb:artist/traveling-wilburys> <http://www.w3.org/2000/01/rdf-schema#label> "Traveling Wilburys" .
`

// family opens the Wikidata-like graph alone.
func family(t testing.TB) *engine.DB {
	t.Helper()
	return openGraphs(t, map[string]string{"wikidata": wikidataNQ})
}

// twoKGs opens the Wikidata-like and MusicBrainz-like graphs.
func twoKGs(t testing.TB) *engine.DB {
	t.Helper()
	return openGraphs(t, map[string]string{"wikidata": wikidataNQ, "musicbrainz": musicbrainzNQ})
}

// openGraphs is storetest.Open with every graph loaded by one loader
// (quads keep their graph as quad label). Loading graphs one commit at a
// time currently leaves an in-memory database with only the last graph's
// search index (engine.reloadMeta drops the cached indexes and an
// in-memory database has no index file to reread), so Search would find
// nothing in the other graphs.
func openGraphs(t testing.TB, graphs map[string]string) *engine.DB {
	t.Helper()
	db, err := engine.Open("", engine.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	names := slices.Sorted(maps.Keys(graphs))
	l, err := db.NewLoader(engine.LoadOptions{Graph: names[0], KeepLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, g := range names {
		qs, err := storetest.Parse(g, strings.NewReader(graphs[g]))
		if err != nil {
			t.Fatalf("graph %s: %v", g, err)
		}
		for _, q := range qs {
			q.Label = quad.IRI(g)
			if err := l.WriteQuad(q); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := l.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}
