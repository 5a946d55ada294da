package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/grove-kg/grove/store/storetest/datadir"
)

// realFile is a benchmark file under $GROVE_SHARED_DATA (opt-in; see
// package datadir).
func realFile(t testing.TB, rel string) string {
	t.Helper()
	return datadir.Shared(t, rel)
}

func loadReal(t *testing.T, rel string, want Format) []Question {
	t.Helper()
	p := realFile(t, rel)
	got, err := Detect(p)
	if err != nil {
		t.Fatalf("Detect(%s): %v", rel, err)
	}
	if got != want {
		t.Fatalf("Detect(%s) = %q, want %q", rel, got, want)
	}
	qs, err := Load(p, FormatAuto)
	if err != nil {
		t.Fatalf("Load(%s): %v", rel, err)
	}
	return qs
}

func TestRealCounts(t *testing.T) {
	tests := []struct {
		file   string
		format Format
		want   int
	}{
		{"qald_10.json", FormatQALD10, 394},
		{"qald_10-en.json", FormatQALD10En, 333},
		{"freebase-questions/cwq.json", FormatCWQ, 3531},
		{"freebase-questions/graliqa.json", FormatGrailQA, 1000},
		{"freebase-questions/SimpleQA.json", FormatSimpleQA, 1000},
		{"freebase-questions/WebQuestions.json", FormatWebQuestions, 2032},
		{"grbench-questions/amazon.jsonl", FormatGRBench, 200},
		{"grbench-questions/biomedical.jsonl", FormatGRBench, 270},
		{"grbench-questions/dblp.jsonl", FormatGRBench, 150},
		{"grbench-questions/goodreads.jsonl", FormatGRBench, 240},
		{"grbench-questions/legal.jsonl", FormatGRBench, 180},
		{"grbench-questions/maple-biology.jsonl", FormatGRBench, 140},
		{"grbench-questions/maple-chemistry.jsonl", FormatGRBench, 140},
		{"grbench-questions/maple-materials_science.jsonl", FormatGRBench, 140},
		{"grbench-questions/maple-medicine.jsonl", FormatGRBench, 140},
		{"grbench-questions/maple-physics.jsonl", FormatGRBench, 140},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			qs := loadReal(t, tt.file, tt.format)
			if len(qs) != tt.want {
				t.Fatalf("got %d questions, want %d", len(qs), tt.want)
			}
			if filepath.Ext(tt.file) == ".jsonl" {
				data, err := os.ReadFile(realFile(t, tt.file))
				if err != nil {
					t.Fatal(err)
				}
				if lines := bytes.Count(data, []byte{'\n'}); lines != len(qs) {
					t.Fatalf("file has %d lines, loaded %d questions", lines, len(qs))
				}
			}
			ids := map[string]bool{}
			for _, q := range qs {
				if q.Question == "" || q.ID == "" {
					t.Fatalf("question without text or id: %+v", q)
				}
				if ids[q.ID] {
					t.Fatalf("duplicate id %q", q.ID)
				}
				ids[q.ID] = true
			}
		})
	}
}

func findQ(t *testing.T, qs []Question, id string) Question {
	t.Helper()
	for _, q := range qs {
		if q.ID == id {
			return q
		}
	}
	t.Fatalf("no question with id %q", id)
	return Question{}
}

func TestRealQALD10Gold(t *testing.T) {
	qs := loadReal(t, "qald_10.json", FormatQALD10)
	tests := []struct {
		id, question, typ string
		answers, ids      []string
	}{
		{"0", "After whom is the Riemannian geometry named?", KindEntity, nil, []string{"Q42299"}},
		{"5", "On which stock exchanges are Siemens AG shares traded?", KindEntity, nil,
			[]string{"Q13677", "Q151139", "Q661834", "Q819468"}},
		{"7", "are brooke raboutou and colin duffy from same state of the usa?", KindBoolean, []string{"Yes"}, nil},
		{"15", "Did adam ondra win a medal in the 2020 summer olympics?", KindBoolean, []string{"No"}, nil},
		{"8", "What is the boiling point of water?", KindNumber, []string{"100"}, nil},
		{"383", "What is the area of the capital of Spitsbergen?", KindNumber, []string{"242.86"}, nil},
		{"240", "When did Allen Ginsberg die?", KindDate, []string{"April 05, 1997"}, nil},
		{"242", "when did human first start to bouldering?", KindDate, []string{"1900"}, nil},
		{"237", "When did the first sperm whales exist?", KindDate, []string{"3600000 BCE"}, nil},
		{"357", "When was Athens founded?", KindDate, []string{"7000 BCE"}, nil},
		{"137", "In how many movies was Johnny Depp casted in?", KindNumber, []string{"71"}, nil},
		{"345", "What is the website of NPR's “Tiny Desk Concert”?", KindURI,
			[]string{"https://www.npr.org/series/tiny-desk-concerts/"}, nil},
		{"187", "What are the German names of academic disciplines containing “linguistik”?", KindLiteral,
			[]string{"Soziolinguistik", "Patholinguistik", "Genderlinguistik", "Rechtslinguistik", "Ethnolinguistik", "Interlinguistik"}, nil},
		{"25", "Find all Turkish verbs ending with “uş” with their lemma.", KindEntity, nil, []string{"L30607"}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			q := findQ(t, qs, tt.id)
			if q.Question != tt.question || q.Type != tt.typ {
				t.Errorf("question %q type %q, want %q %q", q.Question, q.Type, tt.question, tt.typ)
			}
			if !slices.Equal(q.Answers, tt.answers) || !slices.Equal(q.AnswerIDs, tt.ids) {
				t.Errorf("answers %q ids %q, want %q %q", q.Answers, q.AnswerIDs, tt.answers, tt.ids)
			}
			if q.Meta["sparql"] == "" {
				t.Error("missing sparql")
			}
		})
	}
}

func TestRealQALD10Resolve(t *testing.T) {
	qs := loadReal(t, "qald_10.json", FormatQALD10)
	labels := map[string]string{"Q42299": "Bernhard Riemann", "Q13677": "New York Stock Exchange", "Q151139": "Frankfurt Stock Exchange"}
	lab := LabelerFunc(func(_ context.Context, id string) (string, bool) {
		l, ok := labels[id]
		return l, ok
	})
	if err := Resolve(context.Background(), qs, lab); err != nil {
		t.Fatal(err)
	}
	if got := findQ(t, qs, "0").Answers; !slices.Equal(got, []string{"Bernhard Riemann"}) {
		t.Errorf("Q0 answers %q", got)
	}
	// Two of the four Siemens exchanges have labels: the others are dropped.
	if got := findQ(t, qs, "5").Answers; !slices.Equal(got, []string{"New York Stock Exchange", "Frankfurt Stock Exchange"}) {
		t.Errorf("Q5 answers %q", got)
	}
	// No label at all: the ids stand in.
	if got := findQ(t, qs, "25").Answers; !slices.Equal(got, []string{"L30607"}) {
		t.Errorf("Q25 answers %q", got)
	}
	for _, q := range qs {
		if _, ok := q.Meta[MetaUnlabeled]; ok {
			t.Fatalf("question %s still unlabeled", q.ID)
		}
		// Only "Which egyptian pyramid is the tallest?" has an empty result
		// set in the file.
		if len(q.Answers) == 0 && q.ID != "313" {
			t.Fatalf("question %s has no gold after Resolve", q.ID)
		}
	}
}

func TestRealToGGold(t *testing.T) {
	t.Run("qald_10-en", func(t *testing.T) {
		qs := loadReal(t, "qald_10-en.json", FormatQALD10En)
		q := qs[0]
		if q.Question != "After whom is the Riemannian geometry named?" || !slices.Equal(q.Answers, []string{"Bernhard Riemann"}) ||
			!slices.Equal(q.AnswerIDs, []string{"Q42299"}) || q.TopicEntities["Q761383"] != "Riemannian geometry" {
			t.Errorf("first question %+v", q)
		}
		siemens := []string{"New York Stock Exchange", "Frankfurt Stock Exchange", "SIX Swiss Exchange", "XETRA"}
		if !slices.Equal(qs[5].Answers, siemens) || len(qs[5].AnswerIDs) != 4 {
			t.Errorf("Siemens answers %q ids %q", qs[5].Answers, qs[5].AnswerIDs)
		}
		if !slices.Equal(qs[7].Answers, []string{"100"}) || qs[7].Type != KindNumber {
			t.Errorf("boiling point %+v", qs[7])
		}
	})
	t.Run("cwq", func(t *testing.T) {
		q := loadReal(t, "freebase-questions/cwq.json", FormatCWQ)[0]
		if q.ID != "WebQTest-832_c334509bb5e02cacae1ba2e80c176499" || q.Type != "composition" ||
			!slices.Equal(q.Answers, []string{"2014 World Series"}) || q.TopicEntities["m.03_dwn"] != "Lou Seal" ||
			q.Meta["webqsp_id"] != "WebQTest-832" {
			t.Errorf("first question %+v", q)
		}
	})
	t.Run("grailqa", func(t *testing.T) {
		qs := loadReal(t, "freebase-questions/graliqa.json", FormatGrailQA)
		q := qs[0]
		if q.ID != "2101960008000" || q.Type != "i.i.d." || !slices.Equal(q.Answers, []string{"The Illusion"}) ||
			!slices.Equal(q.AnswerIDs, []string{"m.0yrltsn"}) || q.TopicEntities["m.0yrlqjm"] != "The Illusion" {
			t.Errorf("first question %+v", q)
		}
		var value Question
		for _, q := range qs {
			if q.Question == "the il turco in italia opera has how many librettists?" {
				value = q
			}
		}
		if !slices.Equal(value.Answers, []string{"1"}) || len(value.AnswerIDs) != 0 {
			t.Errorf("value answer %+v", value)
		}
	})
	t.Run("simpleqa", func(t *testing.T) {
		q := loadReal(t, "freebase-questions/SimpleQA.json", FormatSimpleQA)[0]
		if q.Question != "where is the madam satan located" || !slices.Equal(q.Answers, []string{"United States of America"}) ||
			q.TopicEntities["m.02qkg8m"] != "Madam Satan" || q.Meta["relation"] != "country" {
			t.Errorf("first question %+v", q)
		}
	})
	t.Run("webquestions", func(t *testing.T) {
		q := loadReal(t, "freebase-questions/WebQuestions.json", FormatWebQuestions)[0]
		if q.Question != "what does jamaican people speak?" ||
			!slices.Equal(q.Answers, []string{"Jamaican Creole English Language", "Jamaican English"}) ||
			!maps.Equal(q.TopicEntities, map[string]string{"m.03_r3": "Jamaica"}) ||
			!maps.Equal(q.WikidataTopicEntities, map[string]string{"Q766": "Jamaica"}) {
			t.Errorf("first question %+v", q)
		}
	})
	t.Run("grbench", func(t *testing.T) {
		q := loadReal(t, "grbench-questions/legal.jsonl", FormatGRBench)[0]
		if q.ID != "0" || !slices.Equal(q.Answers, []string{"1901-01-01"}) || q.Meta["domain"] != "legal" {
			t.Errorf("first question %+v", q)
		}
	})
}

func TestRealSampleQALD(t *testing.T) {
	qs := loadReal(t, "qald_10.json", FormatQALD10)
	// The paper evaluates idxs[:500] of 394 questions: all of them, in
	// Python's random.Random(233) order.
	s := Sample(qs, 500, DefaultSeed)
	if len(s) != len(qs) {
		t.Fatalf("sample has %d questions", len(s))
	}
	want := []string{"302", "218", "389", "97", "4"}
	for i, id := range want {
		if s[i].ID != id {
			t.Fatalf("sample[%d] = %s, want %s", i, s[i].ID, id)
		}
	}
}

// BenchmarkLoadCWQ loads the 3.8 MB CWQ file with format detection.
func BenchmarkLoadCWQ(b *testing.B) {
	p := realFile(b, "freebase-questions/cwq.json")
	for b.Loop() {
		if _, err := Load(p, FormatAuto); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadCWQBaseline is the floor: reading the file and decoding it
// into generic maps, without detection, positions or validation.
func BenchmarkLoadCWQBaseline(b *testing.B) {
	p := realFile(b, "freebase-questions/cwq.json")
	for b.Loop() {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		var v []map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}
