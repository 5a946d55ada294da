package tot

import (
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/llm"
)

// TestMultiKGChain is the multi-KG path of Figure 4 with a chain (k=1):
// the mention is linked in Wikidata, the son found there is linked through
// grove:sameAs into MusicBrainz, and the answer is an edge of MusicBrainz.
func TestMultiKGChain(t *testing.T) {
	policy := &llm.Scripted{Rules: []llm.Rule{
		{Name: TaskExtract, Replies: []string{"Bob Dylan"}},
		{Name: TaskLink, Replies: []string{"Q392"}},
		{Name: TaskAction, Replies: []string{
			"EXPAND_KG: find the child of Bob Dylan",
			"EXPAND_KG: find what Jakob Dylan is a member of band of, in MusicBrainz",
			"ANSWER: The Wallflowers",
		}},
		{Name: TaskSelectEntities, Replies: []string{"Q392", "mb:artist/jakob-dylan"}},
		{Name: TaskSelectRelation, Func: pickByGoal},
		{Name: TaskEvaluate, Kind: llm.KindScore, Repeat: true, Replies: []string{"Score: 0.6"}},
		{Name: TaskEvaluateAnswer, Kind: llm.KindScore, Replies: []string{"The graph confirms it.\nScore: 1.0"}},
	}}
	r, err := NewChain(reasoner.Deps{KG: twoKGs(t), Model: policy}, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	tr, err := r.Answer(t.Context(), reasoner.Query{Question: "Which band is the son of Bob Dylan a member of?"})
	if err != nil {
		t.Fatal(err)
	}
	a := tr.Answer
	if !a.Found || a.Text != "The Wallflowers" || !a.Confident || !slices.Equal(a.Entities, []string{"mb:artist/the-wallflowers"}) {
		t.Fatalf("answer = %+v\n%s", a, tracetest.Render(t, tr))
	}
	if len(a.Support) != 1 || a.Support[0].Graph != "musicbrainz" || a.Support[0].Subject.ID != "mb:artist/jakob-dylan" {
		t.Errorf("support = %+v", a.Support)
	}
	if tr.Method != "chain" || !slices.Equal(tr.Graphs, []string{"musicbrainz", "wikidata"}) {
		t.Errorf("method %q graphs %v", tr.Method, tr.Graphs)
	}
	// Initialisation searched the mention in both KGs and offered both.
	link := policy.CallsFor(TaskLink)
	if len(link) != 1 || link[0].Task.Pick != 2 || len(link[0].Task.Options) != 2 {
		t.Fatalf("link requests = %+v", link)
	}
	// Relations are offered per KG and labelled with it.
	rel := policy.CallsFor(TaskSelectRelation)
	if len(rel) != 2 || !hasOption(rel[0], "child [wikidata]") || !hasOption(rel[1], "member of band [musicbrainz]") {
		t.Fatalf("relation options = %+v", rel)
	}
	// The bridge: Jakob Dylan (Wikidata) was linked to MusicBrainz and is
	// offered for expansion; the prompt shows the link.
	sel := policy.CallsFor(TaskSelectEntities)[1]
	if !slices.ContainsFunc(sel.Task.Options, func(o llm.Option) bool { return o.ID == "mb:artist/jakob-dylan" }) {
		t.Errorf("second entity selection options = %+v", sel.Task.Options)
	}
	if p := sel.Messages[1].Content; !strings.Contains(p, "Q99000004: Jakob Dylan - American musician [wikidata] (same as mb:artist/jakob-dylan)") {
		t.Errorf("prompt lacks the sameAs link:\n%s", p)
	}
	var sameAs int
	for _, c := range tr.KGCalls {
		if c.Op == "same_as" {
			sameAs++
		}
	}
	// Q392 at initialisation, then Jakob Dylan, then The Wallflowers.
	if sameAs != 3 {
		t.Errorf("%d same_as calls, want 3", sameAs)
	}
}

func hasOption(req llm.Request, text string) bool {
	return slices.ContainsFunc(req.Task.Options, func(o llm.Option) bool { return o.Text == text })
}
