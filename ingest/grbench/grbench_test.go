package grbench

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	json "github.com/goccy/go-json"

	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store"
)

// graph collects the quads a reader writes and answers simple queries.
type graph []quad.Quad

func (g *graph) WriteQuad(q quad.Quad) error {
	*g = append(*g, q)
	return nil
}

// objects returns the objects of s p ?.
func (g graph) objects(s, p string) []quad.Value {
	var out []quad.Value
	for _, q := range g {
		if q.Subject == quad.IRI(s) && q.Predicate == quad.IRI(p) {
			out = append(out, q.Object)
		}
	}
	return out
}

// subjects returns the subjects of ? p o.
func (g graph) subjects(p string, o quad.Value) []string {
	var out []string
	for _, q := range g {
		if q.Predicate == quad.IRI(p) && q.Object == o {
			out = append(out, string(q.Subject.(quad.IRI)))
		}
	}
	return out
}

func (g graph) has(s, p string, o quad.Value) bool {
	return slices.Contains(g.objects(s, p), o)
}

func readGraph(t *testing.T, opts Options, name, input string) (graph, error) {
	t.Helper()
	var g graph
	err := New(opts).Read(context.Background(), name, strings.NewReader(input), &g)
	return g, err
}

func readFixture(t *testing.T, file string) graph {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	g, err := readGraph(t, Options{}, file, string(data))
	if err != nil {
		t.Fatalf("read %s: %v", file, err)
	}
	return g
}

func str(s string) quad.Value     { return quad.String(s) }
func iri(s string) quad.Value     { return quad.IRI(s) }
func integer(s string) quad.Value { return quad.TypedString{Value: quad.String(s), Type: xsdInteger} }
func double(s string) quad.Value  { return quad.TypedString{Value: quad.String(s), Type: xsdDouble} }

// TestFixtureFacts checks hand-verified facts of each fixture, present and
// absent.
func TestFixtureFacts(t *testing.T) {
	type fact struct {
		s, p string
		o    quad.Value
		want bool
	}
	tests := []struct {
		file  string
		nodes int
		facts []fact
	}{
		{"amazon.json", 5, []fact{
			{"item/B002KTRMAA", store.GroveNodeType, str("item"), true},
			{"item/B002KTRMAA", store.RDFSLabel, str("Dolica DC-BP511 1400mAh Canon Battery"), true},
			{"item/B002KTRMAA", "price", double("11.99"), true},
			{"item/B002KTRMAA", "category", str("Electronics,Camera & Photo,Accessories,Batteries & Chargers,Batteries"), true},
			{"item/B002KTRMAA", "brand", iri("brand/brand_0"), true},
			{"item/B002KTRMAA", "also_viewed_item", iri("item/B000V1PAIC"), true},
			// a neighbor missing from the graph still gets its edge
			{"item/B002KTRMAA", "buy_after_viewing_item", iri("item/B00404FRJO"), true},
			{"item/B0011Z8QKM", "category", str("Electronics,Camera & Photo,Accessories"), true},
			{"brand/brand_0", store.RDFSLabel, str("Dolica"), true},
			{"brand/brand_0", "name", str("Dolica"), true},
			{"brand/brand_0", "item", iri("item/B0011Z8QKM"), true},
			{"item", store.GroveTextFeature, str("title"), true},
			{"brand", store.GroveTextFeature, str("name"), true},
			{"also_viewed_item", store.RDFSLabel, str("also viewed item"), true},
			{"also_viewed_item", store.GroveInverseLabel, str("also viewed item (inverse)"), true},
			{"price", store.RDFSLabel, str("price"), true},
			// empty strings give no edge
			{"item/B000V1PAIC", "price", str(""), false},
			{"item/B0011Z8QKM", "description", str(""), false},
		}},
		{"dblp.json", 5, []fact{
			{"paper/53e9a8a9b7602d97031f7f02", "year", integer("2017"), true},
			{"paper/53e9a8a9b7602d97031f7f02", "keywords", str("monocular camera"), true},
			{"paper/53e9a8a9b7602d97031f7f02", "author", iri("author/53f4394ddabfaf2ff178c8b2"), true},
			{"paper/53e9a8a9b7602d97031f7f02", "venue", iri("venue/pub_0"), true},
			{"paper/53e9a8a9b7602d97031f7f02", "reference", iri("paper/53e99a5cb7602d97022c5e43"), true},
			{"paper/53e99a5cb7602d97022c5e43", "cited_by", iri("paper/53e9a8a9b7602d97031f7f02"), true},
			{"author/5630fd7545cedb3399c5a3f1", "organization", str("University of Koblenz-Landau"), true},
			{"author/5630fd7545cedb3399c5a3f1", store.RDFSLabel, str("Christian Winkens"), true},
			{"venue/pub_0", store.RDFSLabel, str("VISIGRAPP (5: VISAPP)"), true},
			{"author/53f4394ddabfaf2ff178c8b2", "paper", iri("paper/53e99a5cb7602d97022c5e43"), true},
		}},
		{"biomedical.json", 4, []fact{
			{"Compound/DB08604", "Compound-causes-Side Effect", iri("Side_Effect/C0020517"), true},
			{"Compound/DB08604", "Compound-treats-Disease", iri("Disease/DOID:8893"), true},
			{"Disease/DOID:8893", "Compound-treats-Disease", iri("Compound/DB08604"), true},
			{"Symptom/D010146", "Disease-presents-Symptom", iri("Disease/DOID:8893"), true},
			{"Disease/DOID:8893", "Disease-presents-Symptom", iri("Symptom/D010146"), true},
			{"Compound/DB08604", "inchikey", str("InChIKey=XEFQLINVKFYRCS-UHFFFAOYSA-N"), true},
			{"Side_Effect/C0020517", store.RDFSLabel, str("Hypersensitivity"), true},
			{"Side_Effect/C0020517", store.GroveNodeType, str("Side_Effect"), true},
		}},
		{"legal.json", 6, []fact{
			{"court/circtwdky", "start_date", str("1901-01-01"), true},
			{"court/circtwdky", store.RDFSLabel, str("U.S. Circuit Court for the District of Western Kentucky"), true},
			{"docket/d-568480", "pacer_case_id", double("568480.0"), true},
			{"docket/d-568480", store.RDFSLabel, str("568480.0"), true},
			{"docket/d-568480", "court", iri("court/circtwdky"), true},
			{"opinion_cluster/opc-2095418", store.RDFSLabel, str("Ohio Valley Tie Co. v. Hay"), true},
			{"opinion_cluster/opc-2095418", "opinion", iri("opinion/op-4539951"), true},
			{"opinion/op-4539950", "opinion_cluster", iri("opinion_cluster/opc-2095418"), true},
			{"opinion/op-4539950", "reference", iri("opinion/op-4539951"), true},
			{"opinion/op-4539950", "plain_text", str("The judgment of the circuit court is affirmed."), true},
			// upstream quirk: court lists docket ids without their prefix
			{"court/circtwdky", "docket", iri("docket/568480"), true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			g := readFixture(t, tt.file)
			for _, f := range tt.facts {
				if got := g.has(f.s, f.p, f.o); got != f.want {
					t.Errorf("<%s> <%s> %v: present = %v, want %v", f.s, f.p, f.o, got, f.want)
				}
			}
			var nodes int
			for _, q := range g {
				if q.Predicate == quad.IRI(store.GroveNodeType) {
					nodes++
				}
			}
			if nodes != tt.nodes {
				t.Errorf("%d grove:nodeType quads, want %d", nodes, tt.nodes)
			}
		})
	}
}

// TestLegalNaN checks that pandas' NaN gives no edge and no label.
func TestLegalNaN(t *testing.T) {
	g := readFixture(t, "legal.json")
	for _, c := range []struct{ s, p string }{
		{"opinion/op-4539951", "plain_text"},
		{"opinion_cluster/opc-2095418", "attorneys"},
		{"court/kyctapp", "end_date"},
		{"opinion/op-4539950", store.RDFSLabel}, // opinions have no text feature by default
	} {
		if got := g.objects(c.s, c.p); len(got) != 0 {
			t.Errorf("<%s> <%s> = %v, want nothing", c.s, c.p, got)
		}
	}
}

// TestRealQuestions answers one real GRBench question per fixture by
// walking the emitted quads the way a reasoner would: find the node by its
// label, follow an edge (or none) and read a feature or label.
func TestRealQuestions(t *testing.T) {
	tests := []struct {
		file, questions, qid string
		mention              string // label of the topic node
		edge                 string // "" reads a feature of the topic node
		read                 string // feature or rdfs:label of the answer nodes
	}{
		{"amazon.json", "amazon.jsonl", "0", "Dolica DC-BP511 1400mAh Canon Battery", "brand", store.RDFSLabel},
		{"dblp.json", "dblp.jsonl", "1", "Long Range Optical Truck Tracking.", "author", "name"},
		{"biomedical.json", "biomedical.jsonl", "7", "Triclosan", "Compound-causes-Side Effect", store.RDFSLabel},
		{"legal.json", "legal.jsonl", "0", "U.S. Circuit Court for the District of Western Kentucky", "", "start_date"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			question, answer := loadQuestion(t, tt.questions, tt.qid)
			if !strings.Contains(question, tt.mention) {
				t.Fatalf("question %q does not mention %q", question, tt.mention)
			}
			g := readFixture(t, tt.file)
			topics := g.subjects(store.RDFSLabel, str(tt.mention))
			if len(topics) != 1 {
				t.Fatalf("nodes labelled %q: %v", tt.mention, topics)
			}
			nodes := topics
			if tt.edge != "" {
				nodes = nil
				for _, o := range g.objects(topics[0], tt.edge) {
					nodes = append(nodes, string(o.(quad.IRI)))
				}
			}
			var got []string
			for _, n := range nodes {
				for _, v := range g.objects(n, tt.read) {
					got = append(got, quad.NativeOf(v).(string))
				}
			}
			want := strings.Split(answer, ", ")
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("answer %v, want %v", got, want)
			}
		})
	}
}

// loadQuestion reads one real GRBench question from testdata/questions
// (the upstream lines of the questions the fixtures answer).
func loadQuestion(t *testing.T, file, qid string) (question, answer string) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "questions", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var q struct{ Qid, Question, Answer string }
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		if q.Qid == qid {
			return q.Question, q.Answer
		}
	}
	t.Fatalf("%s: no question %s (%v)", file, qid, sc.Err())
	return "", ""
}

// TestEdgeResolution covers the resolution steps for edge types outside the
// GRBench table.
func TestEdgeResolution(t *testing.T) {
	const movies = `{
	"movie_nodes": {
		"m1": {"features": {"title": "Blade Runner"}, "neighbors": {"directed_by": ["p1"], "sequel": ["m2"], "person": ["p9"]}},
		"m2": {"features": {"title": "Blade Runner 2049"}, "neighbors": {}}
	},
	"person_nodes": {
		"p1": {"features": {"name": "Ridley Scott"}, "neighbors": {"directed": ["m1"], "co_worker_persons": ["p7"]}}
	}}`
	tests := []struct {
		name    string
		opts    Options
		input   string
		want    [][3]string // s p o(IRI)
		wantErr string
	}{
		{"by id and by name", Options{}, movies, [][3]string{
			{"movie/m1", "directed_by", "person/p1"}, // unique id
			{"movie/m1", "sequel", "movie/m2"},       // unique id
			{"movie/m1", "person", "person/p9"},      // dangling id, edge named after a type
			{"person/p1", "directed", "movie/m1"},
			{"person/p1", "co_worker_persons", "person/p7"}, // "_<type>s" suffix
		}, ""},
		{"explicit mapping wins", Options{EdgeTargets: map[string]string{"movie.sequel": "film", "directed": "work"}}, movies, [][3]string{
			{"movie/m1", "sequel", "film/m2"},
			{"person/p1", "directed", "work/m1"},
		}, ""},
		{"ambiguous id", Options{}, `{"a_nodes": {"x": {"neighbors": {"knows": ["y"]}}, "y": {}}, "b_nodes": {"y": {}}}`, nil,
			`a_nodes["x"].neighbors.knows[0]: at byte 16: neighbor "y" is a node of several types`},
		{"unknown id", Options{}, `{"a_nodes": {"x": {"neighbors": {"knows": ["z"]}}}}`, nil,
			`a_nodes["x"].neighbors.knows[0]: at byte 16: neighbor "z" is not a node of this file`},
		{"table disabled", Options{NoDefaults: true}, `{"paper_nodes": {"1": {"neighbors": {"author": ["2"]}}}, "writer_nodes": {"2": {}}}`,
			[][3]string{{"paper/1", "author", "writer/2"}}, ""},
		{"table", Options{}, `{"paper_nodes": {"1": {"neighbors": {"author": ["2"]}}}, "writer_nodes": {"2": {}}}`,
			[][3]string{{"paper/1", "author", "author/2"}}, ""},
		{"dict neighbors", Options{}, `{"opinion_nodes": {"op-1": {"neighbors": {"reference": {"1": ["op-2"], "2": ["op-3", "op-4"]}}}}}`,
			[][3]string{{"opinion/op-1", "reference", "opinion/op-2"}, {"opinion/op-1", "reference", "opinion/op-4"}}, ""},
		{"numeric ids", Options{}, `{"book_nodes": {"7": {"neighbors": {"similar_books": [8, "9"]}}}}`,
			[][3]string{{"book/7", "similar_books", "book/8"}, {"book/7", "similar_books", "book/9"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := readGraph(t, tt.opts, "g.json", tt.input)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tt.want {
				if !g.has(e[0], e[1], iri(e[2])) {
					t.Errorf("missing <%s> <%s> <%s>; got %v", e[0], e[1], e[2], g.objects(e[0], e[1]))
				}
			}
		})
	}
}

// TestTextFeatures covers label selection.
func TestTextFeatures(t *testing.T) {
	const in = `{"gadget_nodes": {"g1": {"features": {"sku": 42, "name": "", "title": "Widget"}}},
		"paper_nodes": {"p1": {"features": {"name": "not a title", "title": "A Title"}}}}`
	tests := []struct {
		name string
		opts Options
		want map[string]string // node -> label ("" = none)
	}{
		{"defaults", Options{}, map[string]string{"gadget/g1": "Widget", "paper/p1": "A Title"}},
		{"configured", Options{TextFeatures: map[string][]string{"gadget": {"sku"}, "paper": {}}},
			map[string]string{"gadget/g1": "42", "paper/p1": ""}},
		{"no defaults", Options{NoDefaults: true}, map[string]string{"paper/p1": "not a title"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := readGraph(t, tt.opts, "g.json", in)
			if err != nil {
				t.Fatal(err)
			}
			for node, want := range tt.want {
				got := g.objects(node, store.RDFSLabel)
				switch {
				case want == "" && len(got) != 0:
					t.Errorf("%s: label %v, want none", node, got)
				case want != "" && (len(got) != 1 || got[0] != str(want)):
					t.Errorf("%s: label %v, want %q", node, got, want)
				}
			}
		})
	}
}

// TestFeatureFlattening covers nested objects, lists and scalar kinds.
func TestFeatureFlattening(t *testing.T) {
	const in = `{"x_nodes": {"n": {"features": {
		"nested": {"b": {"c": true}, "a": [1, 2.5e3]},
		"list": [["deep"], null, "flat"],
		"flag": false, "none": null, "empty": {}}}}}`
	g, err := readGraph(t, Options{}, "g.json", in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]quad.Value{
		"nested.b.c": {quad.Bool(true)},
		"nested.a":   {integer("1"), double("2.5e3")},
		"list":       {str("deep"), str("flat")},
		"flag":       {quad.Bool(false)},
		"none":       nil,
		"empty":      nil,
	}
	for p, w := range want {
		if got := g.objects("x/n", p); !slices.Equal(got, w) {
			t.Errorf("%s = %v, want %v", p, got, w)
		}
	}
}

// TestErrors checks that bad input is reported with file, node path, field
// and byte offset.
func TestErrors(t *testing.T) {
	tests := []struct {
		name, input string
		field       string // want Field
		msg         string // substring of the message
	}{
		{"not an object", `[1]`, "top level", `at byte 0: want "{", got [`},
		{"bad section key", `{"papers": {}}`, `"papers"`, `at byte 1: top-level key must be "<type>_nodes"`},
		{"node not an object", `{"paper_nodes": {"p1": 5}}`, `paper_nodes["p1"].node`, "at byte 21: want an object with features and neighbors, got number"},
		{"unknown node key", `{"paper_nodes": {"p1": {"feature": {}}}}`, `paper_nodes["p1"].feature`, "unknown node key"},
		{"empty id", `{"paper_nodes": {"": {}}}`, `paper_nodes[""].id`, "empty node id"},
		{"features not an object", `{"paper_nodes": {"p1": {"features": [1]}}}`, `paper_nodes["p1"].features`, "want an object, got array"},
		{"bad neighbor id", `{"paper_nodes": {"p1": {"neighbors": {"author": ["a", true]}}}}`, `paper_nodes["p1"].neighbors.author[1]`, "neighbor id must be a string, got boolean"},
		{"empty neighbor id", `{"paper_nodes": {"p1": {"neighbors": {"author": [""]}}}}`, `paper_nodes["p1"].neighbors.author[0]`, "empty neighbor id"},
		{"neighbors not a list", `{"paper_nodes": {"p1": {"neighbors": {"author": "a"}}}}`, `paper_nodes["p1"].neighbors.author`, "want a list of neighbor ids, got string"},
		{"empty feature name", `{"paper_nodes": {"p1": {"features": {"": 1}}}}`, `paper_nodes["p1"].features`, "empty feature name"},
		{"syntax error in node", `{"paper_nodes": {"p1": {"features": {"a": tru}}}}`, `paper_nodes["p1"]`, "at byte 21:"},
		{"truncated", `{"paper_nodes": {"p1": {}`, "paper_nodes", "at byte 25:"},
		{"trailing data", `{} {}`, "top level", "unexpected data after the graph object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readGraph(t, Options{}, "graph.json", tt.input)
			var se *source.Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T), want *source.Error", err, err)
			}
			if se.File != "graph.json" || se.Field != tt.field || !strings.Contains(se.Err.Error(), tt.msg) {
				t.Errorf("got file %q field %q msg %q; want field %q msg containing %q", se.File, se.Field, se.Err, tt.field, tt.msg)
			}
		})
	}
}

// TestSkipInvalid checks that bad nodes are skipped whole and reported.
func TestSkipInvalid(t *testing.T) {
	const in = `{
		"paper_nodes": {
			"good": {"features": {"title": "Good"}, "neighbors": {"author": ["a1"]}},
			"bad": {"features": {"title": "Bad"}, "neighbors": {"author": ["a1", 3.5, false]}},
			"also good": {"features": {"title": "Also good"}}
		},
		"junk": {"x": [1, {"y": 2}]},
		"author_nodes": {"a1": {"features": {"name": "A"}, "neighbors": {"knows": ["nobody"]}}}}`
	var skipped []*source.Error
	opts := Options{Options: source.Options{SkipInvalid: true, OnSkip: func(e *source.Error) { skipped = append(skipped, e) }}}
	g, err := readGraph(t, opts, "g.json", in)
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, e := range skipped {
		fields = append(fields, e.Field)
	}
	wantFields := []string{`paper_nodes["bad"].neighbors.author[2]`, `"junk"`, `author_nodes["a1"].neighbors.knows[0]`}
	if !slices.Equal(fields, wantFields) {
		t.Errorf("skipped %v, want %v", fields, wantFields)
	}
	if got := g.objects("paper/bad", store.RDFSLabel); len(got) != 0 {
		t.Errorf("skipped node wrote %v", got)
	}
	for _, n := range []string{"paper/good", "paper/also%20good", "author/a1"} {
		if len(g.objects(n, store.GroveNodeType)) != 1 {
			t.Errorf("node %s missing", n)
		}
	}
	if !g.has("paper/good", "author", iri("author/a1")) {
		t.Error("edge of a good node missing")
	}
}

// TestWriterError checks that a failing writer stops the read even with
// SkipInvalid.
func TestWriterError(t *testing.T) {
	boom := errors.New("disk full")
	w := source.WriterFunc(func(quad.Quad) error { return boom })
	err := New(Options{Options: source.Options{SkipInvalid: true}}).Read(context.Background(), "g.json",
		strings.NewReader(`{"x_nodes": {"1": {}}}`), w)
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want %v", err, boom)
	}
}

// TestCanceled checks that a canceled context stops the read.
func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var g graph
	err := New(Options{}).Read(ctx, "g.json", strings.NewReader(`{"x_nodes": {"1": {}}}`), &g)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

func TestEscapeID(t *testing.T) {
	tests := []struct{ in, want string }{
		{"DOID:8778", "DOID:8778"},
		{"a b", "a%20b"},
		{"50%<x>", "50%25%3Cx%3E"},
		{"tab\there", "tab%09here"},
		{"Ünïcode", "Ünïcode"},
	}
	for _, tt := range tests {
		if got := escapeID(tt.in); got != tt.want {
			t.Errorf("escapeID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMetaedgeTarget(t *testing.T) {
	tests := []struct{ from, edge, want string }{
		{"Compound", "Compound-causes-Side Effect", "Side_Effect"},
		{"Side_Effect", "Compound-causes-Side Effect", "Compound"},
		{"Gene", "Gene-interacts-Gene", "Gene"},
		{"Pharmacologic_Class", "Pharmacologic Class-includes-Compound", "Compound"},
		{"Disease", "Compound-causes-Side Effect", ""},
		{"paper", "cited_by", ""},
		{"x", "a-b", ""},
	}
	for _, tt := range tests {
		if got := metaedgeTarget(tt.from, tt.edge); got != tt.want {
			t.Errorf("metaedgeTarget(%q, %q) = %q, want %q", tt.from, tt.edge, got, tt.want)
		}
	}
}

func TestNameTarget(t *testing.T) {
	types := []string{"book", "author", "item", "opinion", "opinion_cluster"}
	tests := []struct{ edge, want string }{
		{"author", "author"},
		{"similar_books", "book"},
		{"also_viewed_item", "item"},
		{"opinion_cluster", "opinion_cluster"},
		{"parent_opinion", "opinion"},
		{"reference", ""},
		{"notebook", ""},
	}
	for _, tt := range tests {
		if got := nameTarget(tt.edge, types); got != tt.want {
			t.Errorf("nameTarget(%q) = %q, want %q", tt.edge, got, tt.want)
		}
	}
}
