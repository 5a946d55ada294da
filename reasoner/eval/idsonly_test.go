package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

// TestGoldIDsOnlyCounted: questions whose gold ids have no label in the KG
// (their gold answers are the bare ids) are marked and counted, with a
// warning in the summary.
func TestGoldIDsOnlyCounted(t *testing.T) {
	db := storetest.Open(t, map[string]string{"g": `<Q1> <http://www.w3.org/2000/01/rdf-schema#label> "Alice" .
`})
	unlabeled := func(id string, ids ...string) dataset.Question {
		return dataset.Question{ID: id, Question: "q " + id, AnswerIDs: ids,
			Meta: map[string]string{dataset.MetaUnlabeled: strings.Join(ids, " ")}}
	}
	qs := []dataset.Question{
		unlabeled("labelled", "Q1"),
		unlabeled("partly", "Q1", "Q9"),
		unlabeled("bare", "Q8", "Q9"),
		{ID: "text", Question: "q text", Answers: []string{"x"}},
	}
	cfg := cotConfig(t, qs, goldModel(qs), "cot")
	cfg.Deps = reasoner.Deps{KG: db, Model: cfg.Deps.Model}
	sum, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"labelled": false, "partly": false, "bare": true, "text": false}
	for _, r := range sum.Results {
		if r.GoldIDsOnly != want[r.ID] {
			t.Errorf("%s: gold_ids_only %v, want %v (gold %v)", r.ID, r.GoldIDsOnly, want[r.ID], r.Gold)
		}
	}
	if sum.GoldIDsOnly != 1 || !strings.Contains(strings.Join(sum.Warnings, "\n"),
		"1 of 4 questions have gold answers given only as ids") {
		t.Errorf("summary: %d gold-ids-only questions, warnings %q", sum.GoldIDsOnly, sum.Warnings)
	}
}

// TestMissingTopicsRecorded: with topic entities on, the topic entities
// the KG does not have are listed in each result and counted in the
// summary; without them nothing is checked.
func TestMissingTopicsRecorded(t *testing.T) {
	db := storetest.Open(t, map[string]string{"g": `<Q1> <http://www.w3.org/2000/01/rdf-schema#label> "Alice" .
`})
	qs := []dataset.Question{
		{ID: "present", Question: "q1", Answers: []string{"x"}, TopicEntities: map[string]string{"Q1": "Alice"}},
		{ID: "one missing", Question: "q2", Answers: []string{"x"}, TopicEntities: map[string]string{"Q1": "Alice", "Q9": "Zed"}},
		{ID: "all missing", Question: "q3", Answers: []string{"x"}, TopicEntities: map[string]string{"Q8": "Y", "Q7": "X"}},
		{ID: "no topics", Question: "q4", Answers: []string{"x"}},
	}
	for _, tc := range []struct {
		name   string
		topics bool
		want   map[string]string
		count  int
	}{
		{"topic entities on", true, map[string]string{"one missing": "Q9", "all missing": "Q7 Q8"}, 2},
		{"topic entities off", false, map[string]string{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := cotConfig(t, qs, goldModel(qs), "cot")
			cfg.Deps.KG, cfg.TopicEntities = db, tc.topics
			sum, err := Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range sum.Results {
				if got := strings.Join(r.MissingTopics, " "); got != tc.want[r.ID] {
					t.Errorf("%s: missing topics %q, want %q", r.ID, got, tc.want[r.ID])
				}
			}
			warned := strings.Contains(strings.Join(sum.Warnings, "\n"), "topic entities missing from the KG")
			if sum.MissingTopics != tc.count || warned != (tc.count > 0) {
				t.Errorf("summary: %d questions with missing topics, warnings %q; want %d", sum.MissingTopics,
					sum.Warnings, tc.count)
			}
		})
	}
}

// overlapKG counts the Entity lookups in flight; the first ones wait until
// a second starts (or a while passes), so a serial caller shows 1.
type overlapKG struct {
	store.KG
	mu        sync.Mutex
	inFlight  int
	maxFlight int
	overlap   chan struct{}
	once      sync.Once
}

func (k *overlapKG) Entity(ctx context.Context, id string) (store.Entity, error) {
	k.mu.Lock()
	k.inFlight++
	k.maxFlight = max(k.maxFlight, k.inFlight)
	if k.inFlight >= 2 {
		k.once.Do(func() { close(k.overlap) })
	}
	k.mu.Unlock()
	select {
	case <-k.overlap:
	case <-time.After(300 * time.Millisecond):
	}
	defer func() { k.mu.Lock(); k.inFlight--; k.mu.Unlock() }()
	return k.KG.Entity(ctx, id)
}

// TestMissingTopicsLookupsOverlap: the topic-entity check runs its
// lookups several at a time (one request each on a remote backend).
func TestMissingTopicsLookupsOverlap(t *testing.T) {
	db := storetest.Open(t, map[string]string{"g": `<Q1> <http://www.w3.org/2000/01/rdf-schema#label> "Alice" .
`})
	var qs []dataset.Question
	for i := range 6 {
		qs = append(qs, dataset.Question{ID: fmt.Sprint(i), Question: "q", Answers: []string{"x"},
			TopicEntities: map[string]string{"Q1": "Alice", fmt.Sprintf("Q%d", 10+i): "X"}})
	}
	kg := &overlapKG{KG: db, overlap: make(chan struct{})}
	cfg := cotConfig(t, qs, goldModel(qs), "cot")
	cfg.Deps.KG, cfg.TopicEntities = kg, true
	sum, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if kg.maxFlight < 2 {
		t.Errorf("at most %d topic lookups in flight, want several", kg.maxFlight)
	}
	for _, r := range sum.Results {
		if want := fmt.Sprintf("Q1%s", r.ID); strings.Join(r.MissingTopics, " ") != want {
			t.Errorf("question %s: missing topics %q, want %q", r.ID, r.MissingTopics, want)
		}
	}
}

// TestServedModelsReported: each result names its model and, when the
// model server answered under another name, that name; the summary warns
// once with the count.
func TestServedModelsReported(t *testing.T) {
	qs := []dataset.Question{{ID: "a", Question: "q1", Answers: []string{"x"}}, {ID: "b", Question: "q2", Answers: []string{"y"}}}
	for _, tc := range []struct {
		name, as string
		served   []string
		warning  string
	}{
		{"alias", "served-7b", []string{"served-7b"}, `the model server answered as "served-7b" in 2 results, not as the configured "scripted"`},
		{"same name", "scripted", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := goldModel(qs)
			model.Served = tc.as
			cfg := cotConfig(t, qs, model, "cot")
			sum, err := Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range sum.Results {
				if r.Model != "scripted" || !slices.Equal(r.ServedModels, tc.served) {
					t.Errorf("%s: model %q, served %q", r.ID, r.Model, r.ServedModels)
				}
			}
			got := strings.Contains(strings.Join(sum.Warnings, "\n"), "the model server answered as")
			if got != (tc.warning != "") || (tc.warning != "" && !slices.Contains(sum.Warnings, tc.warning)) {
				t.Errorf("warnings %q, want %q", sum.Warnings, tc.warning)
			}
		})
	}
}

// TestUnknownGraphFailsFirst: an unknown graph fails the run before any
// question or results file, naming the graphs there are.
func TestUnknownGraphFailsFirst(t *testing.T) {
	db := storetest.Open(t, map[string]string{"g": `<Q1> <http://www.w3.org/2000/01/rdf-schema#label> "Alice" .
`})
	qs := []dataset.Question{{ID: "a", Question: "q1", Answers: []string{"x"}}}
	cfg := cotConfig(t, qs, goldModel(qs), "cot")
	cfg.Deps.KG, cfg.Graphs = db, []string{"nope"}
	_, err := Run(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), `graph "nope": not found (have g)`) {
		t.Fatalf("err %v", err)
	}
	if entries, _ := os.ReadDir(cfg.Out); len(entries) > 0 {
		t.Errorf("results were written in %s: %v", cfg.Out, entries)
	}
}

// TestServedWarningPerModel: with several configured models, each is named
// with the names its server answered under, never another model's.
func TestServedWarningPerModel(t *testing.T) {
	for _, tc := range []struct {
		name    string
		results []Result
		want    string
	}{
		{"none", []Result{{Model: "a"}, {Model: "b"}}, ""},
		{"one model", []Result{{Model: "a", ServedModels: []string{"x"}}, {Model: "a", ServedModels: []string{"x"}}},
			`the model server answered as "x" in 2 results, not as the configured "a"`},
		{"two models interleaved", []Result{
			{Model: "a", ServedModels: []string{"x"}}, {Model: "b", ServedModels: []string{"y"}},
			{Model: "a", ServedModels: []string{"z"}}, {Model: "b"}},
			`the model server answered as "x" in 1 result, "z" in 1 result, not as the configured "a"; ` +
				`answered as "y" in 1 result, not as the configured "b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := servedWarning(tc.results); got != tc.want {
				t.Errorf("servedWarning = %q\nwant            %q", got, tc.want)
			}
		})
	}
}

// TestTopicEntitiesOfTheKG: a question with both Freebase and Wikidata
// topic entities is asked with those the KG has, and only those can be
// missing: a Freebase KG is never given, nor reported missing, QIDs.
func TestTopicEntitiesOfTheKG(t *testing.T) {
	label := "<http://www.w3.org/2000/01/rdf-schema#label>"
	both := func(id, mid, qid string) dataset.Question {
		return dataset.Question{ID: id, Question: "q " + id, Answers: []string{"x"},
			TopicEntities: map[string]string{mid: "X"}, WikidataTopicEntities: map[string]string{qid: "X"}}
	}
	qs := []dataset.Question{
		both("a", "m.03_r3", "Q766"),
		both("b", "m.019v9k", "Q30"),
		{ID: "c", Question: "q c", Answers: []string{"x"}, TopicEntities: map[string]string{"m.0f8l9c": "France"}},
	}
	for _, tc := range []struct {
		name, graph string
		asked       map[string]string
		missing     map[string]string
	}{
		{"freebase", "<m.03_r3> " + label + ` "Jamaica" .` + "\n<m.0f8l9c> " + label + ` "France" .`,
			map[string]string{"a": "m.03_r3", "b": "m.019v9k", "c": "m.0f8l9c"}, map[string]string{"b": "m.019v9k"}},
		{"wikidata", "<Q766> " + label + ` "Jamaica" .` + "\n<Q30> " + label + ` "USA" .`,
			map[string]string{"a": "Q766", "b": "Q30", "c": "m.0f8l9c"}, map[string]string{"c": "m.0f8l9c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := cotConfig(t, qs, goldModel(qs), "cot")
			cfg.Deps.KG, cfg.TopicEntities = storetest.Open(t, map[string]string{"g": tc.graph + "\n"}), true
			sum, err := Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range sum.Results {
				if got := strings.Join(r.MissingTopics, " "); got != tc.missing[r.ID] {
					t.Errorf("%s: missing topics %q, want %q", r.ID, got, tc.missing[r.ID])
				}
				tr, err := ReadTrace(filepath.Join(cfg.Out, r.Trace))
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Join(tr.TopicEntities, " "); got != tc.asked[r.ID] {
					t.Errorf("%s: asked with topic entities %q, want %q", r.ID, got, tc.asked[r.ID])
				}
			}
		})
	}
}
