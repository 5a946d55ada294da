package llm

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

var selOpts = []Option{
	{ID: "Q30", Text: "United States"},
	{ID: "Q3012", Text: "Ulm"},
	{ID: "Q5", Text: "human"},
	{ID: "/en/blade_runner", Text: "Blade Runner"},
	{ID: "m.0f8l9c", Text: "France"},
	{ID: "_:film/b12", Text: "Blade Runner 2049"},
}

func TestParseSelection(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		max     int
		want    []string
		wantErr bool
	}{
		{"canonical", "Q30, Q5", 0, []string{"Q30", "Q5"}, false},
		{"exact not prefix", "Q3012", 0, []string{"Q3012"}, false},
		{"prefix of longer id is not a match", "Q301", 0, nil, true},
		{"no match inside longer token", "Q30123", 0, nil, true},
		{"no match after joiner", "wdt:Q30", 0, nil, true},
		{"decimal is not an id", "Q30.5", 0, nil, true},
		{"sentence end dot is fine", "I pick Q30.", 0, []string{"Q30"}, false},
		{"order kept", "Q5, Q3012, Q30", 0, []string{"Q5", "Q3012", "Q30"}, false},
		{"dedupe keeps first", "Q5, Q30, Q5, q30", 0, []string{"Q5", "Q30"}, false},
		{"max truncates", "Q5, Q30, Q3012", 2, []string{"Q5", "Q30"}, false},
		{"by exact text", "Ulm and Human", 0, []string{"Q3012", "Q5"}, false},
		{"longest text wins", "Blade Runner 2049", 0, []string{"_:film/b12"}, false},
		{"shorter text", "Blade Runner", 0, []string{"/en/blade_runner"}, false},
		{"path id", "/en/blade_runner", 0, []string{"/en/blade_runner"}, false},
		{"dotted id", "[m.0f8l9c]", 0, []string{"m.0f8l9c"}, false},
		{"blank node id", "_:film/b12", 0, []string{"_:film/b12"}, false},
		{"labelled blank node id", "Selection: _:film/b12", 0, []string{"_:film/b12"}, false},
		{"none", "none", 0, []string{}, false},
		{"None with reason", "None. Nothing fits.", 0, []string{}, false},
		{"label none", "Thinking...\nSelection: none", 0, []string{}, false},
		{"label region only", "Q5 looks wrong.\nSelected: Q30", 0, []string{"Q30"}, false},
		{"label on own line", "Answer:\nQ3012\nQ5", 0, []string{"Q3012", "Q5"}, false},
		{"markdown label", "**Selection:** Q5", 0, []string{"Q5"}, false},
		{"options line is not a choice", "Options: Q30, Q5\nChoice: Q5", 0, []string{"Q5"}, false},
		{"numbers", "2, 3", 0, []string{"Q3012", "Q5"}, false},
		{"hash numbers", "#1 and [3]", 0, []string{"Q30", "Q5"}, false},
		{"number out of range", "7", 0, nil, true},
		{"zero out of range", "0", 0, nil, true},
		{"one in range one out", "1, 9", 0, nil, true},
		{"huge number", "99999999999999999999999", 0, nil, true},
		{"ids win over numbers", "Q5 (option 3)", 0, []string{"Q5"}, false},
		{"empty", "", 0, nil, true},
		{"garbage", "I cannot decide.", 0, nil, true},
		{"refusal names options", "I don't think Ulm or human is relevant; neither helps.", 0, []string{}, false},
		{"negated after the option", "Ulm is not relevant.", 0, []string{}, false},
		{"neither nor", "Neither Q30 nor Q5.", 0, []string{}, false},
		{"one ruled out, one chosen", "Ulm is irrelevant, but human is the one.", 0, []string{"Q5"}, false},
		{"ruled out by clause", "Q30 fits; Q5 doesn't.", 0, []string{"Q30"}, false},
		{"not before a comma list", "Not Q30, Q5", 0, []string{"Q5"}, false},
		{"labelled region with negation before", "Q30 is not it.\nSelection: Q5", 0, []string{"Q5"}, false},
		{"negation inside an option text", "No Country for Old Men", 0, []string{"nc"}, false},
		{"option starting with no, then ruled out", "No Country for Old Men is not relevant", 0, []string{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := selOpts
			if strings.Contains(tt.text, "Country") {
				opts = append(slices.Clone(selOpts), Option{ID: "nc", Text: "No Country for Old Men"})
			}
			got, err := ParseSelection(tt.text, opts, tt.max)
			if tt.wantErr {
				if err == nil || !errors.Is(err, ErrUnparseable) {
					t.Fatalf("ParseSelection(%q) = %v, %v; want ErrUnparseable", tt.text, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSelection(%q): %v", tt.text, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ParseSelection(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestParseSelectionPrefersExactCaseID(t *testing.T) {
	opts := []Option{{ID: "a", Text: "x"}, {ID: "b", Text: "A"}}
	got, err := ParseSelection("A", opts, 0)
	if err != nil || !slices.Equal(got, []string{"b"}) {
		t.Fatalf("got %v, %v; want [b] (exact text over folded id)", got, err)
	}
	got, err = ParseSelection("a", opts, 0)
	if err != nil || !slices.Equal(got, []string{"a"}) {
		t.Fatalf("got %v, %v; want [a]", got, err)
	}
}

func TestParseSelectionUnicode(t *testing.T) {
	opts := []Option{{ID: "Q1", Text: "Émile Zola"}, {ID: "Q2", Text: "Köln"}, {ID: "Q3", Text: "Kö"}}
	got, err := ParseSelection("émile zola; KÖLN", opts, 0)
	if err != nil || !slices.Equal(got, []string{"Q1", "Q2"}) {
		t.Fatalf("got %v, %v", got, err)
	}
	if got, err := ParseSelection("Kölner", opts, 0); err == nil {
		t.Fatalf("Kölner must not match Köln or Kö: %v", got)
	}
}

func TestParseAction(t *testing.T) {
	allowed := []string{"THINK", "EXPAND_KG", "ANSWER", "ANSWER_ALL"}
	tests := []struct {
		name, text, action, rest string
		wantErr                  bool
	}{
		{"bare", "EXPAND_KG", "EXPAND_KG", "", false},
		{"with text", "ANSWER: Ridley Scott", "ANSWER", "Ridley Scott", false},
		{"stray colons", "ANSWER: : Ridley Scott", "ANSWER", "Ridley Scott", false},
		{"lower case", "think: the film is from 1982", "THINK", "the film is from 1982", false},
		{"spaces for underscore", "Expand KG", "EXPAND_KG", "", false},
		{"hyphen", "expand-kg - more", "EXPAND_KG", "more", false},
		{"longest action", "ANSWER_ALL: a, b", "ANSWER_ALL", "a, b", false},
		{"markdown", "**ANSWER**: Paris", "ANSWER", "Paris", false},
		{"leading blank lines", "\n\n  THINK\nline two\nline three", "THINK", "line two\nline three", false},
		{"action label", "Action: ANSWER: Paris", "ANSWER", "Paris", false},
		{"dash separator", "ANSWER - Paris", "ANSWER", "Paris", false},
		{"keeps negative number", "ANSWER: -5", "ANSWER", "-5", false},
		{"blank node answer", "ANSWER: _:film/6873", "ANSWER", "_:film/6873", false},
		{"blank node after emphasis", "ANSWER: **_:film/6873**", "ANSWER", "_:film/6873", false},
		{"underscore emphasis", "ANSWER: _Paris_", "ANSWER", "Paris", false},
		{"not first word", "I will ANSWER: Paris", "", "", true},
		{"later line only", "Let me see.\nANSWER: Paris", "", "", true},
		{"prefix of word", "ANSWERING: Paris", "", "", true},
		{"unknown", "SEARCH: x", "", "", true},
		{"empty", "  \n ", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, rest, err := ParseAction(tt.text, allowed)
			if tt.wantErr {
				if !errors.Is(err, ErrUnparseable) {
					t.Fatalf("ParseAction(%q) = %q, %q, %v; want error", tt.text, a, rest, err)
				}
				return
			}
			if err != nil || a != tt.action || rest != tt.rest {
				t.Errorf("ParseAction(%q) = %q, %q, %v; want %q, %q", tt.text, a, rest, err, tt.action, tt.rest)
			}
		})
	}
	if _, _, err := ParseAction("THINK", nil); err == nil {
		t.Error("no allowed actions: want error")
	}
}

func TestParseScore(t *testing.T) {
	tests := []struct {
		text    string
		want    float64
		wantErr bool
	}{
		{"Score: 0.8", 0.8, false},
		{"The path is relevant.\nScore: 0.35", 0.35, false},
		{"Score: 7/10", 0.7, false},
		{"Score: 7 / 10", 0.7, false},
		{"Score: 3 out of 4", 0.75, false},
		{"Score: 80%", 0.8, false},
		{"score = 1", 0, true},
		{"**Score:** 0.5", 0.5, false},
		{"Score: .5", 0.5, false},
		{"Score: 5.", 1, false},
		{"Score: 7", 1, false},
		{"Score: -0.3", 0, false},
		{"Score: 150%", 1, false},
		{"Score: 0.2\nrevised\nScore: 0.9", 0.9, false},
		{"Score:\n0.4", 0.4, false},
		{"I rate it 0.9 overall.", 0, true},
		{"Score: high", 0, true},
		{"Score: 3/0", 0, true},
		{"Score: 1/-2", 0, true},
		{"Score: NaN", 0, true},
		{"Scoreboard: 0.5", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseScore(tt.text)
		if tt.wantErr {
			if !errors.Is(err, ErrUnparseable) {
				t.Errorf("ParseScore(%q) = %v, %v; want error", tt.text, got, err)
			}
			continue
		}
		if err != nil || math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("ParseScore(%q) = %v, %v; want %v", tt.text, got, err, tt.want)
		}
	}
}

func TestParseVote(t *testing.T) {
	tests := []struct {
		text    string
		want    string
		wantErr bool
	}{
		{"Reasoning...\nBest: Q5", "Q5", false},
		{"Best: Q3012", "Q3012", false},
		{"Best: 3", "Q5", false},
		{"Best: 9", "", true},
		{"**Best**: Ulm", "Q3012", false},
		{"Q30", "Q30", false},
		{"Q30 or Q5", "", true},
		{"Best: Q301", "", true},
		{"nothing", "", true},
	}
	for _, tt := range tests {
		got, err := ParseVote(tt.text, selOpts)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParseVote(%q) = %q; want error", tt.text, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseVote(%q) = %q, %v; want %q", tt.text, got, err, tt.want)
		}
	}
}

func TestParseAnswer(t *testing.T) {
	tests := []struct {
		text    string
		want    string
		wantErr bool
	}{
		{"Answer: Ridley Scott", "Ridley Scott", false},
		{"Thoughts.\nAnswer: Washington, D.C.", "Washington, D.C.", false},
		{"Answer: first\nAnswer: second", "second", false},
		{"**Final answer:** Paris", "Paris", false},
		{"answer:\nParis", "Paris", false},
		{"Answer: _:film/6873", "_:film/6873", false},
		{"**Answer:** _:film/6873", "_:film/6873", false},
		{"Answer: *_:film/6873*", "_:film/6873", false},
		{"Answer: `_:b1`", "_:b1", false},
		{"Answer: _Paris_", "Paris", false},
		{"Answer: __Paris__", "Paris", false},
		{"Answer: _ _:b1", "_:b1", false},
		{"Answer:", "", true},
		{"Paris", "", true},
		{"The answer is Paris", "", true},
	}
	for _, tt := range tests {
		got, err := ParseAnswer(tt.text)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParseAnswer(%q) = %q; want error", tt.text, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseAnswer(%q) = %q, %v; want %q", tt.text, got, err, tt.want)
		}
	}
}

func TestParseYesNo(t *testing.T) {
	tests := []struct {
		text    string
		yes     bool
		reason  string
		wantErr bool
	}{
		{"Yes", true, "", false},
		{"No, the path ends too early.", false, "the path ends too early.", false},
		{"yes.\nEnough evidence.", true, "Enough evidence.", false},
		{"**No**", false, "", false},
		{"Answer: Yes", true, "", false},
		{"Yesterday it was", false, "", true},
		{"Nope", false, "", true},
		{"I think yes", false, "", true},
		{"", false, "", true},
	}
	for _, tt := range tests {
		yes, reason, err := ParseYesNo(tt.text)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParseYesNo(%q) = %v; want error", tt.text, yes)
			}
			continue
		}
		if err != nil || yes != tt.yes || reason != tt.reason {
			t.Errorf("ParseYesNo(%q) = %v, %q, %v; want %v, %q", tt.text, yes, reason, err, tt.yes, tt.reason)
		}
	}
}

func TestParseLines(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Blade Runner\nRidley Scott", []string{"Blade Runner", "Ridley Scott"}},
		{"Entities:\n- Blade Runner\n* \"Ridley Scott\"\n1. Harrison Ford\n2) blade runner", []string{"Blade Runner", "Ridley Scott", "Harrison Ford"}},
		{"none", []string{}},
		{"None.", []string{}},
		{"Nothing Else Matters", []string{"Nothing Else Matters"}},
		{"\n\n", []string{}},
		{"**Paris**", []string{"Paris"}},
	}
	for _, tt := range tests {
		if got := ParseLines(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("ParseLines(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func FuzzParseSelection(f *testing.F) {
	for _, s := range []string{"Q30, Q5", "none", "2, 3", "Selected: Q3012", "Q30.5", "Blade Runner 2049", "#9", "\xff\xfeQ30"} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, text string, max int) {
		ids, err := ParseSelection(text, selOpts, max)
		if err != nil {
			if !errors.Is(err, ErrUnparseable) {
				t.Fatalf("error does not wrap ErrUnparseable: %v", err)
			}
			return
		}
		if max > 0 && len(ids) > max {
			t.Fatalf("%d ids > max %d", len(ids), max)
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] || !slices.ContainsFunc(selOpts, func(o Option) bool { return o.ID == id }) {
				t.Fatalf("bad or duplicate id %q in %q", id, ids)
			}
			seen[id] = true
		}
		again, _ := ParseSelection(text, selOpts, max)
		if !slices.Equal(ids, again) {
			t.Fatalf("not deterministic: %q vs %q", ids, again)
		}
	})
}

func FuzzParseAction(f *testing.F) {
	for _, s := range []string{"ANSWER: x", "expand kg", "**THINK**", ": :", "ANSWER_ALL"} {
		f.Add(s)
	}
	allowed := []string{"THINK", "EXPAND_KG", "ANSWER", "ANSWER_ALL"}
	f.Fuzz(func(t *testing.T, text string) {
		a, rest, err := ParseAction(text, allowed)
		if err != nil {
			return
		}
		if !slices.Contains(allowed, a) {
			t.Fatalf("action %q not allowed", a)
		}
		if strings.HasPrefix(rest, ":") || rest != strings.TrimSpace(rest) {
			t.Fatalf("rest %q not trimmed", rest)
		}
	})
}

func FuzzParseScore(f *testing.F) {
	for _, s := range []string{"Score: 0.5", "Score: 7/10", "Score: 80%", "Score: 1e309", "Score: 3 out of 0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		x, err := ParseScore(text)
		if err != nil {
			return
		}
		if math.IsNaN(x) || x < 0 || x > 1 {
			t.Fatalf("score %v outside [0,1] for %q", x, text)
		}
		if !strings.Contains(strings.ToLower(text), "score") {
			t.Fatalf("score %v parsed from %q without a Score line", x, text)
		}
	})
}

func FuzzParseOthers(f *testing.F) {
	for _, s := range []string{"Best: Q5", "Answer: x", "Yes", "- a\n- b", "None"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if id, err := ParseVote(text, selOpts); err == nil && !slices.ContainsFunc(selOpts, func(o Option) bool { return o.ID == id }) {
			t.Fatalf("vote %q not an option", id)
		}
		if a, err := ParseAnswer(text); err == nil && a == "" {
			t.Fatal("empty answer without error")
		}
		_, _, _ = ParseYesNo(text)
		for _, l := range ParseLines(text) {
			if strings.TrimSpace(l) == "" {
				t.Fatalf("empty line in %q", ParseLines(text))
			}
		}
	})
}

// BenchmarkParseSelection compares the whole-token matcher with a naive
// strings.Contains scan over the same reply (the baseline it replaces,
// which would wrongly match "Q30" inside "Q3012").
func BenchmarkParseSelection(b *testing.B) {
	opts := make([]Option, 100)
	for i := range opts {
		opts[i] = Option{ID: fmt.Sprintf("Q%d", 1000+i), Text: fmt.Sprintf("entity number %d", i)}
	}
	reply := "After weighing the options.\nSelected: Q1042, Q1007, entity number 99"
	b.Run("naive-contains", func(b *testing.B) {
		for b.Loop() {
			var ids []string
			for _, o := range opts {
				if strings.Contains(reply, o.ID) {
					ids = append(ids, o.ID)
				}
			}
			_ = ids
		}
	})
	b.Run("ParseSelection", func(b *testing.B) {
		for b.Loop() {
			if _, err := ParseSelection(reply, opts, 3); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestIDLike(t *testing.T) {
	for _, tc := range []struct {
		w    string
		want bool
	}{
		{"Q64", true}, {"author/123", true}, {"/en/x", true}, {"/en/ridley_scott", true},
		{"mb:artist/4d54", true}, {"mb:artist/x", true}, {"_:film/12", true}, {"ridley_scott", true},
		{"/film/film/producer", true}, {"film/film/producer", true},
		{"Paris", false}, {"1982", false}, {"yes", false}, {"and/or", false}, {"10:30", false},
		{"1/2", false}, {"", false}, {"/en/two words", false}, {"Q" + strings.Repeat("1", 200), false},
	} {
		if got := IDLike(tc.w); got != tc.want {
			t.Errorf("IDLike(%q) = %v, want %v", tc.w, got, tc.want)
		}
	}
}

// TestKGIDLike: without a KG only what is unmistakably a KG id counts;
// names that look like codes do not, though IDLike takes most of them.
func TestKGIDLike(t *testing.T) {
	for _, tc := range []struct {
		w    string
		want bool
	}{
		{"m.0jw67", true}, {"g.11b6ddw9n5", true}, {"/m/0jw67", true}, {"/g/11b6ddw9n5", true},
		{"Q42", true}, {"P31", true}, {"L7", true}, {"L7-F1", true}, {" Q64 ", true},
		{"http://www.wikidata.org/entity/Q42", true}, {"https://musicbrainz.org/artist/x", true},
		{"mb:artist/4d54", true}, {"wd:Q42", true}, {"_:film/12", true}, {"fb:m.0jw67", true},
		{"/en/ridley_scott", true}, {"/en/x", true}, {"/film/film/directed_by", true},
		{"film.film.directed_by", true}, {"common.topic.alias", true}, {"people.person.place_of_birth", true},
		{"B12", false}, {"COVID-19", false}, {"MP3", false}, {"F-16", false}, {"R2-D2", false},
		{"7-Eleven", false}, {"A4", false}, {"Q0", false}, {"q42", false}, {"Q42b", false}, {"m.sc", false},
		{"Paris", false}, {"1982", false}, {"10:30", false}, {"Re:Zero", false}, {"and/or", false},
		{"24/7", false}, {"AC/DC", false}, {"e.g.", false}, {"a.k.a", false}, {"www.example.com", false},
		{"ridley_scott", false}, {"author/123", false}, {"", false}, {"Q" + strings.Repeat("1", 200), false},
		{"/en/two words", false},
		// Web hosts are not dotted relation ids; Freebase ids ending in
		// "id" or "name", or with a two-letter domain ("tv"), stay ids.
		{"bbc.co.uk", false}, {"news.google.com", false}, {"amazon.co.jp", false}, {"node.js.org", false},
		{"detik.co.id", false}, {"en.wikipedia.org", false}, {"docs.python.org", false},
		{"type.object.name", true}, {"type.object.id", true}, {"tv.tv_program.genre", true},
		{"music.artist.origin", true}, {"location.location.containedby", true},
	} {
		if got := KGIDLike(tc.w); got != tc.want {
			t.Errorf("KGIDLike(%q) = %v, want %v", tc.w, got, tc.want)
		}
	}
}

func TestUnofferedIDs(t *testing.T) {
	opts := []Option{{ID: "Q23", Text: "George Washington"}, {ID: "Q191789", Text: "Martha Washington (Q191789)"},
		{ID: "R1", Text: "spouse (P26, 1 edge)"}, {ID: "mb:artist/1", Text: "John Lennon"},
		{ID: "/en/blade_runner", Text: "Blade Runner"}, {ID: "R2", Text: "directed_by (/film/film/directed_by)"}}
	for _, tc := range []struct {
		reply string
		want  []string
	}{
		{"Q999, Q23", []string{"Q999"}},
		{"Q23", nil},
		{"[Q999; Q998, Q999] and Q23.", []string{"Q999", "Q998"}},
		{"mb:artist/1, mb:artist/2.", []string{"mb:artist/2"}},
		{"P26 via R1", nil},
		{"George Washington (Q23) in 1759", nil},
		{"I thought of Q5 first.\nSelection: Q23, Q6", []string{"Q6"}},
		{"none", nil},
		{"q23", nil},
		// Ids without a digit (Freebase's, relation paths, names with
		// underscores) are ids too; words of option texts and ordinary
		// words are not.
		{"/en/blade_runner, /en/harrison_ford", []string{"/en/harrison_ford"}},
		{"/en/blade_runner, not_offered_thing", []string{"not_offered_thing"}},
		{"R1, R9, /film/film/producer", []string{"R9", "/film/film/producer"}},
		{"film/film/producer.", []string{"film/film/producer"}},
		{"mb:artist/x and _:film/12", []string{"mb:artist/x", "_:film/12"}},
		{"I pick R1 and/or Q23, and nothing else: directed_by fits.", nil},
		{"_Q23_ and _Q7_", []string{"Q7"}},
		{"Selection: /en/blade_runner", nil},
	} {
		if got := UnofferedIDs(tc.reply, opts); !slices.Equal(got, tc.want) {
			t.Errorf("UnofferedIDs(%q) = %q, want %q", tc.reply, got, tc.want)
		}
	}
}
