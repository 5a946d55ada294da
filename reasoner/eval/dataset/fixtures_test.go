package dataset

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func loadFixture(t *testing.T, name string, want Format) []Question {
	t.Helper()
	p := filepath.Join("testdata", name)
	got, err := Detect(p)
	if err != nil {
		t.Fatalf("Detect(%s): %v", name, err)
	}
	if got != want {
		t.Fatalf("Detect(%s) = %q, want %q", name, got, want)
	}
	qs, err := Load(p, want)
	if err != nil {
		t.Fatalf("Load(%s): %v", name, err)
	}
	return qs
}

func Test2Wiki(t *testing.T) {
	qs := loadFixture(t, "2wiki.json", Format2Wiki)
	if len(qs) != 3 {
		t.Fatalf("got %d questions", len(qs))
	}
	q := qs[0]
	if q.ID != "fixture-compositional-1" || q.Type != "compositional" || !slices.Equal(q.Answers, []string{"Małgorzata Braunek"}) {
		t.Errorf("first question %+v", q)
	}
	wantEv := [][3]string{
		{"Polish-Russian War", "director", "Xawery Żuławski"},
		{"Xawery Żuławski", "mother", "Małgorzata Braunek"},
	}
	if !reflect.DeepEqual(q.Evidences, wantEv) {
		t.Errorf("evidences %q", q.Evidences)
	}
	if qs[2].Type != "bridge_comparison" || !slices.Equal(qs[2].Answers, []string{"no"}) || len(qs[2].Evidences) != 4 {
		t.Errorf("third question %+v", qs[2])
	}
}

func TestMusicBrainzCSV(t *testing.T) {
	qs := loadFixture(t, "musicbrainz_wikidata.csv", FormatMusicBrainz)
	if len(qs) != 3 {
		t.Fatalf("got %d questions, want 3 (blank row skipped)", len(qs))
	}
	tests := []struct {
		id, answer, typ, notes string
		prefix                 string
	}{
		{"0", "Fearless Tour: Omaha", "Bridge Comparison", "fixture row", "Which venue was opened more recently, the venue"},
		{"1", "Fixture Song", "Bridge", "", "The father of Alexander Newley"},
		{"3", "12", "Qualification Bridge Aggregation", "quoted, with comma", "The sibling of Teppo Ruohonen that was born in 1949, has"},
	}
	for i, tt := range tests {
		q := qs[i]
		if q.ID != tt.id || !slices.Equal(q.Answers, []string{tt.answer}) || q.Type != tt.typ ||
			q.Meta["Notes"] != tt.notes || !strings.HasPrefix(q.Question, tt.prefix) {
			t.Errorf("row %d: %+v", i, q)
		}
	}
}

func TestWebQSP(t *testing.T) {
	for _, file := range []string{"webqsp.json", "webqsp_original.json"} {
		t.Run(file, func(t *testing.T) {
			qs := loadFixture(t, file, FormatWebQSP)
			if file == "webqsp_original.json" {
				if len(qs) != 1 || qs[0].ID != "WebQTrn-0" || !slices.Equal(qs[0].Answers, []string{"Jaxon Bieber"}) ||
					qs[0].TopicEntities["m.06w2sn5"] != "Justin Bieber" {
					t.Fatalf("got %+v", qs)
				}
				return
			}
			q := qs[0]
			if q.ID != "WebQTest-0" || q.Question != "what does jamaican people speak?" ||
				!slices.Equal(q.Answers, []string{"Jamaican English", "Jamaican Creole English Language"}) ||
				!slices.Equal(q.AnswerIDs, []string{"m.01428y", "m.04ygk0"}) || q.TopicEntities["m.03_r3"] != "Jamaica" ||
				!strings.Contains(q.Meta["sparql"], "languages_spoken") {
				t.Errorf("first question %+v", q)
			}
			// A Value answer and an unnamed entity (its MID stands in).
			if !slices.Equal(qs[1].Answers, []string{"1967", "m.0unnamed"}) || !slices.Equal(qs[1].AnswerIDs, []string{"m.0unnamed"}) {
				t.Errorf("second question %+v", qs[1])
			}
		})
	}
}

func TestCWQOriginal(t *testing.T) {
	q := loadFixture(t, "cwq_original.json", FormatCWQ)[0]
	if !slices.Equal(q.Answers, []string{"Germany"}) || !slices.Equal(q.AnswerIDs, []string{"m.0345h"}) ||
		q.Meta["aliases"] != "Federal Republic of Germany | Deutschland" || q.Type != "superlative" ||
		q.TopicEntities["m.0f8l9c"] != "France" {
		t.Errorf("got %+v", q)
	}
}

func TestPlainJSONLRoundTrip(t *testing.T) {
	qs := loadFixture(t, "plain.jsonl", FormatJSONL)
	if len(qs) != 3 {
		t.Fatalf("got %d questions", len(qs))
	}
	if qs[0].ID != "p1" || qs[0].TopicEntities["Q25188"] != "Inception" || qs[2].ID != "2" ||
		qs[2].Evidences[0] != [3]string{"Q64", "capital of", "Q183"} || qs[1].Meta["source"] != "fixture" {
		t.Errorf("got %+v", qs)
	}
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, qs); err != nil {
		t.Fatal(err)
	}
	back, err := parse("roundtrip.jsonl", buf.Bytes(), FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, qs) {
		t.Errorf("round trip changed questions:\n%+v\n%+v", back, qs)
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range Formats() {
		got, err := ParseFormat(strings.ToUpper(string(f)))
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	if f, err := ParseFormat("auto"); err != nil || f != FormatAuto {
		t.Errorf("auto: %q %v", f, err)
	}
	if _, err := ParseFormat("hotpot"); err == nil || !strings.Contains(err.Error(), "qald10") {
		t.Errorf("unknown format error %v", err)
	}
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		name, data string
		format     Format
		line       int64
		field      string
	}{
		{"grbench missing question", `{"qid": "0", "question": "q", "answer": "a"}` + "\n\n" + `{"qid": "1", "answer": "a"}`,
			FormatGRBench, 3, "question"},
		{"grbench object answer", `{"qid": "0", "question": "q", "answer": {"x": 1}}`, FormatGRBench, 1, "answer"},
		{"jsonl answers not a list", `{"id": "a", "question": "q", "answers": "x"}`, FormatJSONL, 1, "answers"},
		{"2wiki short evidence", "[\n{\"_id\": \"a\", \"question\": \"q\", \"answer\": \"x\",\n \"evidences\": [[\"s\", \"r\"]]}\n]",
			Format2Wiki, 2, "evidences[0]"},
		{"qald no english", `{"questions": [` + "\n" + `{"id": 1, "question": [{"language": "de", "string": "Wer?"}], "answers": []}]}`,
			FormatQALD10, 2, "question[language=en].string"},
		{"qald unknown binding", `{"questions": [{"id": 1, "question": [{"language": "en", "string": "Who?"}],` + "\n" +
			`"answers": [{"results": {"bindings": [{"result": {"type": "weird", "value": "x"}}]}}]}]}`,
			FormatQALD10, 1, "answers[0]"},
		{"qald one line, second record", `{"questions": [{"id": 1, "question": [{"language": "en", "string": "Who?"}], ` +
			`"answers": [{"boolean": true}]}, {"id": 2, "question": [{"language": "de", "string": "Wer?"}], "answers": []}]}`,
			FormatQALD10, 1, "question[language=en].string"},
		{"qald missing questions", `{"dataset": {}}`, FormatQALD10, 1, "questions"},
		{"grailqa bad qid", `[{"qid": [1], "question": "q", "answer": []}]`, FormatGrailQA, 1, "qid"},
		{"csv no answer column", "Question,Type\nq,t\n", FormatMusicBrainz, 1, "header"},
		{"csv bad quote", "Question,Answer\n\"q,a\n", FormatMusicBrainz, 2, "column 6"},
		{"truncated array", "[\n{\"question\": \"q\", \"answer\": \"a\", \"relation\": \"r\"},\n{\"question\": ", FormatSimpleQA, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse("bad.txt", []byte(tt.data), tt.format)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *Error", err)
			}
			if se.File != "bad.txt" || se.Line != tt.line || se.Field != tt.field {
				t.Errorf("got %s (line %d field %q), want line %d field %q", err, se.Line, se.Field, tt.line, tt.field)
			}
			if strings.HasPrefix(tt.name, "qald one line") && !strings.Contains(err.Error(), "(record 2)") {
				t.Errorf("%v does not name the record", err)
			}
		})
	}
}

func TestDetectErrors(t *testing.T) {
	for _, data := range []string{"", "   ", "[]", `[{"foo": 1}]`, `{"foo": 1}`, "just some text\n", "[1, 2]"} {
		if f, err := detect("x", []byte(data)); err == nil {
			t.Errorf("detect(%q) = %q, want an error", data, f)
		}
	}
	if _, err := Load(filepath.Join("testdata", "missing.json"), FormatAuto); err == nil {
		t.Error("missing file loaded")
	}
}

func TestResolve(t *testing.T) {
	qs := []Question{
		{ID: "a", Answers: []string{"1900"}, AnswerIDs: []string{"Q1", "Q2"}, Meta: map[string]string{MetaUnlabeled: "Q1 Q2"}},
		{ID: "b", Answers: []string{"x"}},
	}
	calls := 0
	lab := LabelerFunc(func(_ context.Context, id string) (string, bool) {
		calls++
		return map[string]string{"Q2": "Two", "Q1": "1900"}[id], id != "Q3"
	})
	if err := Resolve(context.Background(), qs, lab); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(qs[0].Answers, []string{"1900", "Two"}) || qs[0].Meta != nil || calls != 2 {
		t.Errorf("got %+v after %d calls", qs[0], calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Resolve(ctx, qs, lab); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled resolve: %v", err)
	}
	if err := Resolve(context.Background(), qs, nil); err == nil {
		t.Error("nil labeler accepted")
	}
}

// TestQALD10EnPlaceholderLabels: ToG's qald_10-en writes "N" for an answer
// without a label. It is not a gold answer (any answer containing an "n"
// would match it): an id whose label is "N" counts as unlabelled, dropped
// when other ids of the question have labels and used as the gold when
// none has (marked MetaIDsOnly), as Resolve does for QALD-10; a literal
// key is its own answer whatever its label. Real one-letter labels (the
// notes G, E, C) stay.
func TestQALD10EnPlaceholderLabels(t *testing.T) {
	qs := loadFixture(t, "qald_10-en.json", FormatQALD10En)
	for _, tc := range []struct {
		index   int
		answers []string
		ids     []string
		idsOnly bool
	}{
		{0, []string{"L30607"}, []string{"L30607"}, true},
		{1, []string{"G", "E", "C"}, []string{"Q1440231", "Q1622022", "Q843813"}, false},
		{2, []string{"Cher", "Doc"}, []string{"Q10381261", "Q11981082", "Q3712420", "Q13363348"}, false},
		{3, []string{"https://www.npr.org/series/tiny-desk-concerts/"}, nil, false},
	} {
		q := qs[tc.index]
		if !slices.Equal(q.Answers, tc.answers) || !slices.Equal(q.AnswerIDs, tc.ids) ||
			(q.Meta[MetaIDsOnly] == "true") != tc.idsOnly {
			t.Errorf("question %d: answers %q, ids %q, meta %v; want %q, %q, ids only %v", tc.index, q.Answers,
				q.AnswerIDs, q.Meta, tc.answers, tc.ids, tc.idsOnly)
		}
	}
}
