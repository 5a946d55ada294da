package ingest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/storetest/datadir"
)

// wikidataSample loads the bundled real Wikidata entities into graph
// "wikidata" of a new database, closed when the test ends.
func wikidataSample(t testing.TB) *engine.DB {
	t.Helper()
	db := openDB(t, t.TempDir())
	t.Cleanup(func() { db.Close() })
	if _, err := Run(context.Background(), db, []string{datadir.Repo(t, "wikidata-sample-entities.json.gz")}, Options{Graph: "wikidata"}); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestQualifiersPerStatement loads the Wikidata sample and checks that an
// edge made by several statements keeps each statement's qualifiers
// apart: George Washington was President of the Continental Congress
// (Q1115127) under two statements, 1775-1788 and from 1798, whose dates
// must not be merged into one list.
func TestQualifiersPerStatement(t *testing.T) {
	ctx := context.Background()
	db := wikidataSample(t)
	for _, tc := range []struct {
		subject, relation, object string
		// statements are the qualifiers of each statement, "P: value".
		statements [][]string
	}{
		{"Q23", "P39", "Q1115127", [][]string{
			{"pq:P580: 15 June 1775", "pq:P582: 23 December 1788"},
			{"pq:P1365: Q888614", "pq:P1366: Q178903", "pq:P580: 13 July 1798", "pq:P582: 23 December 1788"}}},
		{"Q23", "P39", "Q11696", [][]string{
			{"pq:P1366: Q11806", "pq:P1545: 1", "pq:P580: 30 April 1789", "pq:P582: 4 March 1797"}}},
		{"Q64", "P17", "Q183", [][]string{{"pq:P580: 3 October 1990"}}},
	} {
		t.Run(tc.subject+" "+tc.relation+" "+tc.object, func(t *testing.T) {
			edges, err := db.Edges(ctx, []string{tc.subject}, tc.relation, store.Out, 0)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(edges, func(e store.Edge) bool { return e.Object.ID == tc.object })
			if i < 0 {
				t.Fatalf("no edge to %s in %+v", tc.object, edges)
			}
			var got [][]string
			seen := map[string]bool{}
			for _, st := range edges[i].Statements() {
				var qs []string
				for _, q := range st {
					qs = append(qs, q.Relation+": "+q.Value)
				}
				got = append(got, qs)
				if s := st[0].Statement; s == "" || seen[s] {
					t.Errorf("statement node %q is empty or repeated", s)
				} else {
					seen[s] = true
				}
			}
			if !slices.EqualFunc(got, tc.statements, slices.Equal) {
				t.Errorf("statements = %q, want %q", got, tc.statements)
			}
		})
	}
}

// TestFeatureQualifiers: a node's own literal features keep the
// qualifiers of the statements that make them, per statement: the United
// Kingdom's Human Development Index is one value per year, and two years
// with the same value stay two statements.
func TestFeatureQualifiers(t *testing.T) {
	ctx := context.Background()
	db := wikidataSample(t)
	fs, err := db.Features(ctx, "Q145")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, f := range fs {
		if f.Relation != "P1081" {
			continue
		}
		for _, st := range store.GroupQualifiers(f.Qualifiers) {
			var qs []string
			for _, q := range st {
				qs = append(qs, q.Relation+": "+q.Value)
			}
			got[f.Value] = append(got[f.Value], strings.Join(qs, ", "))
		}
		slices.Sort(got[f.Value])
	}
	for value, want := range map[string][]string{
		"0.738": {"pq:P585: 1980"},
		"0.901": {"pq:P585: 2011", "pq:P585: 2012"},
		"0.907": {"pq:P585: 2014"},
	} {
		if !slices.Equal(got[value], want) {
			t.Errorf("HDI %s: statements %q, want %q", value, got[value], want)
		}
	}
	if len(got) != 10 {
		t.Errorf("%d HDI values, want 10: %q", len(got), got)
	}
}

// BenchmarkFeaturesQualified times Features on real Wikidata items of the
// bundled sample, whose values carry their statements' qualifiers: the
// United Kingdom (133 features), George Washington (69) and Berlin (71).
func BenchmarkFeaturesQualified(b *testing.B) {
	ctx := context.Background()
	db := wikidataSample(b)
	for _, id := range []string{"Q145", "Q23", "Q64"} {
		b.Run(id, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := db.Features(ctx, id); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
