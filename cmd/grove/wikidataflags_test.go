package main

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestWikidataFlags: ingest's Wikidata flags become the reader's options,
// and a malformed id or filter is refused naming its flag.
func TestWikidataFlags(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		ids     []string // kept ids, sorted
		clauses int
		wantErr string
	}{
		{name: "none", args: nil},
		{name: "ids", args: []string{"--wikidata-ids", "Q64,Q84", "--wikidata-ids", "L7"}, ids: []string{"L7", "Q64", "Q84"}},
		{name: "filter", args: []string{"--wikidata-filter", "P31:Q5,Q515&~P570"}, clauses: 2},
		{name: "both", args: []string{"--wikidata-ids", "Q1", "--wikidata-filter", "P17"}, ids: []string{"Q1"}, clauses: 1},
		{name: "bad id", args: []string{"--wikidata-ids", "Q64,Berlin"}, wantErr: `--wikidata-ids: entity id list: "Berlin"`},
		{name: "bad filter", args: []string{"--wikidata-filter", "Q5"}, wantErr: `--wikidata-filter: claim filter "Q5"`},
		{name: "empty clause value", args: []string{"--wikidata-filter", "P31:"}, wantErr: "empty value"},
		{name: "flags", args: []string{"--wikidata-all-ranks", "--wikidata-lexemes", "--wikidata-skip-sitelinks"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var w wikidataFlags
			fl := pflag.NewFlagSet("ingest", pflag.ContinueOnError)
			w.register(fl)
			if err := fl.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			o, err := w.options()
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Sorted(maps.Keys(o.IDs)); !slices.Equal(got, c.ids) {
				t.Errorf("ids %v, want %v", got, c.ids)
			}
			if len(o.ClaimFilter) != c.clauses {
				t.Errorf("%d clauses, want %d", len(o.ClaimFilter), c.clauses)
			}
			all := c.name == "flags"
			if o.AllRanks != all || o.KeepLexemes != all || o.SkipSitelinks != all {
				t.Errorf("all ranks %v, lexemes %v, skip sitelinks %v; want %v", o.AllRanks, o.KeepLexemes, o.SkipSitelinks, all)
			}
		})
	}
}
