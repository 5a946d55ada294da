package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/store/storetest"
)

const rdfsLabel = "<http://www.w3.org/2000/01/rdf-schema#label>"

// bothTopics is a question with a Freebase and a Wikidata topic entity.
func bothTopics(id, mid, qid string) dataset.Question {
	return dataset.Question{ID: id, Question: "q " + id, Answers: []string{"x"},
		TopicEntities: map[string]string{mid: "X"}, WikidataTopicEntities: map[string]string{qid: "X"}}
}

// askedTopics reads, per result, the topic entities the method was given
// (from its trace) and those recorded missing.
func askedTopics(t *testing.T, out string, rs []Result) (asked, missing map[string]string) {
	t.Helper()
	asked, missing = map[string]string{}, map[string]string{}
	for _, r := range rs {
		tr, err := ReadTrace(filepath.Join(out, r.Trace))
		if err != nil {
			t.Fatal(err)
		}
		asked[r.ID] = strings.Join(tr.TopicEntities, " ")
		if len(r.MissingTopics) > 0 {
			missing[r.ID] = strings.Join(r.MissingTopics, " ")
		}
	}
	return asked, missing
}

// TestTopicEntitiesOfTheRunsGraphs: the topic entities are looked up in
// the run's graphs, not the whole store: with Freebase, Wikidata and film
// graphs in one store, a run on the Freebase graph asks with MIDs and
// lists those it lacks, one on the film graph lists every MID missing.
// Both used to choose the QIDs (the store had more of them) and list only
// the QIDs the store lacked.
func TestTopicEntitiesOfTheRunsGraphs(t *testing.T) {
	db := storetest.Open(t, map[string]string{
		"fb":   "<m.03_r3> " + rdfsLabel + ` "Jamaica" .` + "\n",
		"wd":   "<Q766> " + rdfsLabel + ` "Jamaica" .` + "\n<Q30> " + rdfsLabel + ` "USA" .` + "\n",
		"film": "<film1> " + rdfsLabel + ` "Alien" .` + "\n",
	})
	qs := []dataset.Question{
		bothTopics("a", "m.03_r3", "Q766"),
		bothTopics("b", "m.019v9k", "Q30"),
		{ID: "c", Question: "q c", Answers: []string{"x"}, TopicEntities: map[string]string{"m.0f8l9c": "France"}},
	}
	mids := map[string]string{"a": "m.03_r3", "b": "m.019v9k", "c": "m.0f8l9c"}
	for _, tc := range []struct {
		name    string
		graphs  []string
		ids     string
		asked   map[string]string
		missing map[string]string
	}{
		{"freebase graph", []string{"fb"}, TopicIDsFreebase, mids, map[string]string{"b": "m.019v9k", "c": "m.0f8l9c"}},
		{"film graph", []string{"film"}, TopicIDsFreebase, mids, mids},
		{"wikidata graph", []string{"wd"}, TopicIDsWikidata, map[string]string{"a": "Q766", "b": "Q30", "c": "m.0f8l9c"},
			map[string]string{"c": "m.0f8l9c"}},
		{"freebase and film graphs", []string{"film", "fb"}, TopicIDsFreebase, mids,
			map[string]string{"b": "m.019v9k", "c": "m.0f8l9c"}},
		{"all graphs", nil, TopicIDsWikidata, map[string]string{"a": "Q766", "b": "Q30", "c": "m.0f8l9c"},
			map[string]string{"c": "m.0f8l9c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := cotConfig(t, qs, goldModel(qs), "cot")
			cfg.Deps.KG, cfg.TopicEntities, cfg.Graphs = db, true, tc.graphs
			sum, err := Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			asked, missing := askedTopics(t, cfg.Out, sum.Results)
			for id := range mids {
				if asked[id] != tc.asked[id] || missing[id] != tc.missing[id] {
					t.Errorf("%s: asked with %q, missing %q; want %q, %q", id, asked[id], missing[id], tc.asked[id], tc.missing[id])
				}
			}
			m, err := ReadManifest(filepath.Join(cfg.Out, "run.json"))
			if err != nil {
				t.Fatal(err)
			}
			if sum.TopicIDs != tc.ids || m.TopicIDs != tc.ids {
				t.Errorf("topic ids: summary %q, manifest %q; want %q", sum.TopicIDs, m.TopicIDs, tc.ids)
			}
		})
	}
}

// TestTopicIDsOneChoicePerRun: the shards of a run choose the topic
// entity ids over the whole sample, so they agree with each other and
// with the unsharded run, record the choice, and merge. Each shard used
// to choose over its own questions: here shard 1 (a, c) would tie and
// keep the MIDs while shard 2 (b) took the QIDs.
func TestTopicIDsOneChoicePerRun(t *testing.T) {
	db := storetest.Open(t, map[string]string{
		"g": "<m.a> " + rdfsLabel + ` "A" .` + "\n<Qb> " + rdfsLabel + ` "B" .` + "\n<Qc> " + rdfsLabel + ` "C" .` + "\n",
	})
	qs := []dataset.Question{bothTopics("a", "m.a", "Qa"), bothTopics("b", "m.b", "Qb"), bothTopics("c", "m.c", "Qc")}
	root := t.TempDir()
	var dirs []string
	for _, shard := range []Shard{{}, {Index: 1, Count: 2}, {Index: 2, Count: 2}} {
		cfg := cotConfig(t, qs, goldModel(qs), "cot")
		cfg.Deps.KG, cfg.TopicEntities, cfg.Shard = db, true, shard
		cfg.Out = filepath.Join(root, "shard"+strings.ReplaceAll(shard.String(), "/", "-"))
		sum, err := Run(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		asked, missing := askedTopics(t, cfg.Out, sum.Results)
		for _, r := range sum.Results {
			if want := "Q" + r.ID; asked[r.ID] != want {
				t.Errorf("shard %q, %s: asked with %q, want %q", shard, r.ID, asked[r.ID], want)
			}
			if want := map[string]string{"a": "Qa"}[r.ID]; missing[r.ID] != want {
				t.Errorf("shard %q, %s: missing %q, want %q", shard, r.ID, missing[r.ID], want)
			}
		}
		if sum.TopicIDs != TopicIDsWikidata {
			t.Errorf("shard %q: topic ids %q, want %q", shard, sum.TopicIDs, TopicIDsWikidata)
		}
		if shard.Count > 0 {
			dirs = append(dirs, cfg.Out)
		}
	}
	if _, err := Merge(filepath.Join(root, "merged"), dirs...); err != nil {
		t.Fatal(err)
	}
	if m, err := ReadManifest(filepath.Join(root, "merged", "run.json")); err != nil || m.TopicIDs != TopicIDsWikidata {
		t.Errorf("merged manifest: topic ids %q (%v), want %q", m.TopicIDs, err, TopicIDsWikidata)
	}
}

// TestMergeRefusesOtherTopicIDs: runs whose questions were asked with
// other topic-entity ids are not merged nor reported together, the error
// naming both runs and both choices; a manifest that predates the choice
// ("") merges with either, and the merged manifest keeps the known one.
func TestMergeRefusesOtherTopicIDs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ids    []string // one run directory per choice, in order
		want   string   // the error, "" when they merge
		names  []int    // the runs the error names
		merged string
	}{
		{"freebase, wikidata", []string{"freebase", "wikidata"}, "topic entity ids freebase and wikidata differ", []int{0, 1}, ""},
		{"old, wikidata, freebase", []string{"", "wikidata", "freebase"}, "topic entity ids wikidata and freebase differ", []int{1, 2}, ""},
		{"old, wikidata", []string{"", "wikidata"}, "", nil, "wikidata"},
		{"wikidata, wikidata", []string{"wikidata", "wikidata"}, "", nil, "wikidata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			var dirs []string
			for i, ids := range tc.ids {
				dir := filepath.Join(root, string(rune('a'+i)))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				m := Manifest{Dataset: "/d/webqsp.json", Format: "webqsp", Seed: 233, TopicEntities: true, TopicIDs: ids,
					Methods: []string{"cot"}}
				writeRunDir(t, dir, m)
				dirs = append(dirs, dir)
			}
			if !checkCompared(t, root, dirs, tc.want, tc.names) {
				return
			}
			if m, err := ReadManifest(filepath.Join(root, "merged", "run.json")); err != nil || m.TopicIDs != tc.merged {
				t.Errorf("merged manifest: topic ids %q (%v), want %q", m.TopicIDs, err, tc.merged)
			}
		})
	}
}

// TestResumeRefusesOtherTopicIDs: a resume whose choice of topic-entity
// ids differs from the run's so far (the graphs' entities changed) is
// refused; a manifest that predates the choice is accepted.
func TestResumeRefusesOtherTopicIDs(t *testing.T) {
	for _, tc := range []struct {
		old, now string
		want     string // the error, "" when the resume goes on
	}{
		{"freebase", "wikidata", "topic entity ids wikidata (were freebase"},
		{"wikidata", "wikidata", ""},
		{"", "wikidata", ""},
	} {
		t.Run(tc.old+"-"+tc.now, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.json")
			m := Manifest{Dataset: "/d/webqsp.json", TopicEntities: true, Methods: []string{"cot"}}
			old := m
			old.TopicIDs = tc.old
			if err := writeManifest(path, old); err != nil {
				t.Fatal(err)
			}
			m.TopicIDs = tc.now
			_, _, err := reconcile(path, m, nil, nil)
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("resume: error %v, want %q", err, tc.want)
			}
		})
	}
}
