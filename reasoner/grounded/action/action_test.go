package action

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		want  Action
	}{
		{"brackets", "NeighbourCheck[/en/blade_runner, directed by]", Action{NeighbourCheck, []string{"/en/blade_runner", "directed by"}}},
		{"american spelling", "NeighborCheck[paper/1, author]", Action{NeighbourCheck, []string{"paper/1", "author"}}},
		{"case and label", "Action 2: nodedegree[paper/1, cited_by]", Action{NodeDegree, []string{"paper/1", "cited_by"}}},
		{"markdown label", "**Action 3:** NodeFeature[book/7, num_pages]", Action{NodeFeature, []string{"book/7", "num_pages"}}},
		{"thought line first", "Thought 1: I need the film.\nAction 1: RetrieveNode[Blade Runner]", Action{RetrieveNode, []string{"Blade Runner"}}},
		{"keyword keeps commas", "RetrieveNode[Truth, Love, Non-Violence: The Story of Gurcharan Singh Bhatia]",
			Action{RetrieveNode, []string{"Truth, Love, Non-Violence: The Story of Gurcharan Singh Bhatia"}}},
		{"node name with comma splits at last comma", "NodeFeature[Inu Yasha, Volume 1, num_pages]",
			Action{NodeFeature, []string{"Inu Yasha, Volume 1", "num_pages"}}},
		{"parentheses", "NodeDegree(book/9, similar_books)", Action{NodeDegree, []string{"book/9", "similar_books"}}},
		{"colon form", "Finish: Ridley Scott", Action{Finish, []string{"Ridley Scott"}}},
		{"answer list", "Finish[[Ridley Scott, Tony Scott]]", Action{Finish, []string{"[Ridley Scott, Tony Scott]"}}},
		{"quoted args", `NodeFeature["book/7", 'title']`, Action{NodeFeature, []string{"book/7", "title"}}},
		{"quoted twice", `RetrieveNode[''Blade Runner'']`, Action{RetrieveNode, []string{"Blade Runner"}}},
		{"trailing lines ignored", "Finish[184]\nObservation: done", Action{Finish, []string{"184"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.reply)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.reply, err)
			}
			if got.Kind != tc.want.Kind || !slices.Equal(got.Args, tc.want.Args) {
				t.Fatalf("Parse(%q) = %#v, want %#v", tc.reply, got, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		// want are fragments the error must contain.
		want []string
	}{
		{"empty", "", []string{"empty reply"}},
		{"unknown action", "Search[Blade Runner]", []string{"does not start with", "RetrieveNode[keyword]"}},
		{"missing argument", "RetrieveNode", []string{"RetrieveNode needs a keyword", "RetrieveNode[keyword]"}},
		{"empty brackets", "Finish[]", []string{"Finish needs an answer", "Finish[answer]"}},
		{"one argument for two", "NeighbourCheck[paper/1]", []string{"takes 2 arguments", "NeighbourCheck[node, edge type]"}},
		{"empty second argument", "NodeDegree[paper/1, ]", []string{"the edge type is empty"}},
		{"unclosed bracket", "NodeFeature[paper/1, title", []string{`missing "]"`}},
		{"quotes alone", "RetrieveNode", []string{"RetrieveNode needs a keyword"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Parse(tc.reply)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want an error", tc.reply, a)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestStringRoundTrip(t *testing.T) {
	for _, a := range []Action{
		{RetrieveNode, []string{"Blade Runner"}},
		{NodeFeature, []string{"book/7", "num pages"}},
		{NeighbourCheck, []string{"Inu Yasha, Volume 1", "series"}},
		{Finish, []string{"The Poldark Saga"}},
	} {
		got, err := Parse(a.String())
		if err != nil || got.Kind != a.Kind || !slices.Equal(got.Args, a.Args) {
			t.Errorf("Parse(%q) = %v, %v", a.String(), got, err)
		}
	}
}

func TestSpecs(t *testing.T) {
	s := Specs()
	if len(s) != 5 || s[0].Kind != RetrieveNode || s[4].Kind != Finish {
		t.Fatalf("specs = %v", s)
	}
	s[0].Kind = "changed"
	if Specs()[0].Kind != RetrieveNode {
		t.Error("Specs returned shared storage")
	}
	if u := Specs()[2].Usage(); u != "NeighbourCheck[node, edge type]" {
		t.Errorf("usage = %q", u)
	}
	if _, ok := SpecOf("Nope"); ok {
		t.Error("SpecOf accepted an unknown kind")
	}
	if a := (Action{Kind: Finish}); a.Arg(0) != "" || a.Arg(-1) != "" {
		t.Error("Arg out of range is not empty")
	}
}

// FuzzParse checks that Parse never panics, that every accepted action has
// its spec's arity with non-empty arguments, and that the canonical form of
// an accepted action parses back to the same action.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"NeighbourCheck[/en/x, directed by]", "Finish[a, b]", "RetrieveNode", "Thought: x\nAction 1: NodeDegree(a, b)",
		"NodeFeature[a,,b]", "Finish[[x]]", "Action: ", "**Finish**: \"y\"", "RetrieveNode[\n]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		a, err := Parse(reply)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		spec, ok := SpecOf(a.Kind)
		if !ok || len(a.Args) != len(spec.Args) {
			t.Fatalf("Parse(%q) = %#v: wrong arity", reply, a)
		}
		for _, arg := range a.Args {
			if arg == "" {
				t.Fatalf("Parse(%q) = %#v: empty argument", reply, a)
			}
		}
		if strings.ContainsAny(a.String(), "\n\r") {
			return // multi-line arguments cannot round-trip through one line
		}
		back, err := Parse(a.String())
		if err != nil {
			t.Fatalf("Parse(%q) of the canonical form of %q: %v", a.String(), reply, err)
		}
		if back.Kind != a.Kind || len(back.Args) != len(a.Args) {
			t.Fatalf("round trip of %q: %#v -> %#v", reply, a, back)
		}
	})
}
