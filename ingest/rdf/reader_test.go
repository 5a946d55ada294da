package rdf

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cayleygraph/quad"
	"github.com/klauspost/compress/gzip"

	"github.com/grove-kg/grove/ingest/internal/inputtest"
	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store/storetest/datadir"
)

// readAll runs a Reader over text and collects the quads.
func readAll(t *testing.T, opts Options, text string) ([]quad.Quad, error) {
	t.Helper()
	var got []quad.Quad
	w := source.WriterFunc(func(q quad.Quad) error { got = append(got, q); return nil })
	err := New(opts).Read(context.Background(), "test.nq", strings.NewReader(text), w)
	return got, err
}

const badLines = `<a> <p> <b> .
# comment

<a> <p> "unterminated .
<a> <p> <c> .
<a> 1 <c> .
<a> <p> <d> .`

func TestReaderErrorLine(t *testing.T) {
	_, err := readAll(t, Options{}, badLines)
	var se *source.Error
	var syn *SyntaxError
	if !errors.As(err, &se) || !errors.As(err, &syn) {
		t.Fatalf("error %v: want a *source.Error wrapping a *SyntaxError", err)
	}
	if se.File != "test.nq" || se.Line != 4 || syn.Column != 9 || syn.Term != TermObject {
		t.Errorf("error %q: want test.nq line 4, object column 9", err)
	}
	if want := "test.nq:4: object at column 9: unterminated literal"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestReaderSkipInvalid(t *testing.T) {
	var skipped []*source.Error
	opts := Options{Options: source.Options{SkipInvalid: true, OnSkip: func(e *source.Error) { skipped = append(skipped, e) }}}
	got, err := readAll(t, opts, badLines)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Errorf("got %d quads, want 3: %v", len(got), got)
	}
	var lines []int64
	for _, e := range skipped {
		lines = append(lines, e.Line)
	}
	if len(lines) != 2 || lines[0] != 4 || lines[1] != 6 {
		t.Errorf("skipped lines %v, want [4 6]", lines)
	}
}

func TestReaderBOM(t *testing.T) {
	got, err := readAll(t, Options{}, "\ufeff<s> <p> <o> .\n\ufeff<s> <p> <o> .\n")
	if len(got) != 1 || err == nil || !strings.HasPrefix(err.Error(), "test.nq:2: subject at column 1") {
		t.Errorf("got %v, %v; want the first line read and a BOM on line 2 reported", got, err)
	}
}

func TestReaderLabels(t *testing.T) {
	text := "<s> <p> <o> <g1> .\n<s> <p> <o2> .\n"
	tests := []struct {
		name   string
		keep   bool
		labels []quad.Value
	}{
		{"default drops labels", false, []quad.Value{nil, nil}},
		{"KeepLabels", true, []quad.Value{quad.IRI("g1"), nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(t, Options{KeepLabels: tc.keep}, text)
			if err != nil {
				t.Fatal(err)
			}
			for i, q := range got {
				if q.Label != tc.labels[i] {
					t.Errorf("quad %d label %v, want %v", i, q.Label, tc.labels[i])
				}
			}
		})
	}
}

func TestReaderBlankNodesScopedByGraph(t *testing.T) {
	text := "_:b1 <p> _:b2 .\n"
	read := func(graph string) quad.Quad {
		got, err := readAll(t, Options{Options: source.Options{Graph: graph}}, text)
		if err != nil || len(got) != 1 {
			t.Fatalf("graph %q: %v %v", graph, got, err)
		}
		return got[0]
	}
	film, again, music := read("film"), read("film"), read("music")
	if film.Subject != quad.BNode("film/b1") || film.Object != quad.BNode("film/b2") {
		t.Errorf("film: %v", film)
	}
	if film != again {
		t.Errorf("re-reading gave %v then %v", film, again)
	}
	if music.Subject == film.Subject {
		t.Errorf("two graphs share blank node %v", music.Subject)
	}
}

func TestReaderTransform(t *testing.T) {
	drop := func(q quad.Quad) (quad.Quad, bool) {
		if q.Predicate == quad.IRI("secret") {
			return q, false
		}
		q.Predicate = quad.IRI("x:" + string(q.Predicate.(quad.IRI)))
		return q, true
	}
	got, err := readAll(t, Options{Transform: drop}, "<s> <p> <o> .\n<s> <secret> <o> .\n<s> <q> \"v\" .\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Predicate != quad.IRI("x:p") || got[1].Predicate != quad.IRI("x:q") {
		t.Errorf("got %v", got)
	}
}

func TestReaderLongLines(t *testing.T) {
	huge := `<s> <p> "` + strings.Repeat("x", 3*readBufSize/2) + `" .`
	text := "<s> <p> <o> .\n" + huge + "\n<s> <p> <o2> .\n" + huge
	got, err := readAll(t, Options{}, text)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || len(string(got[1].Object.(quad.String))) != 3*readBufSize/2 || got[2].Object != quad.IRI("o2") {
		t.Fatalf("got %d quads", len(got))
	}

	var skipped []int64
	opts := Options{MaxLineBytes: 1000, Options: source.Options{SkipInvalid: true, OnSkip: func(e *source.Error) { skipped = append(skipped, e.Line) }}}
	short := `<s> <p> "` + strings.Repeat("y", 2000) + `" .`
	got, err = readAll(t, opts, "<s> <p> <o> .\n"+short+"\n<s> <p> <o2> .\n"+huge)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(skipped) != 2 || skipped[0] != 2 || skipped[1] != 4 {
		t.Errorf("got %d quads, skipped lines %v; want 2 quads, lines [2 4]", len(got), skipped)
	}
	_, err = readAll(t, Options{MaxLineBytes: 1000}, short)
	if err == nil || !strings.Contains(err.Error(), "test.nq:1: line too long (limit 1000 bytes)") {
		t.Errorf("error %v", err)
	}
}

// TestReaderEndlessLine: input without a line end fails at the line limit
// (it was read for ever, ignoring Ctrl-C); skipping invalid lines, the
// rest of the line is discarded until the context is cancelled.
func TestReaderEndlessLine(t *testing.T) {
	const max = 1 << 16
	discard := source.WriterFunc(func(quad.Quad) error { return nil })
	in := &inputtest.Endless{Limit: 64 * max}
	err := New(Options{MaxLineBytes: max}).Read(t.Context(), "zero.nt", in, discard)
	if !errors.Is(err, errLineTooLong) || in.N > max+2*readBufSize {
		t.Errorf("error %v after %d bytes, want line too long within %d", err, in.N, max+2*readBufSize)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	in = &inputtest.Endless{Limit: 1 << 30, After: 8 * max, Cancel: cancel}
	skipped := 0
	opts := Options{MaxLineBytes: max, Options: source.Options{SkipInvalid: true, OnSkip: func(*source.Error) { skipped++ }}}
	err = New(opts).Read(ctx, "zero.nt", in, discard)
	if !errors.Is(err, context.Canceled) || skipped != 1 {
		t.Errorf("skipping: error %v after %d bytes, %d lines skipped; want context.Canceled, 1", err, in.N, skipped)
	}
}

// TestReaderReadErrorMidLine: a line cut by a read error (a truncated
// gzip stream) is not parsed; the read error is reported with its line.
func TestReaderReadErrorMidLine(t *testing.T) {
	r := io.MultiReader(strings.NewReader("<s> <p> <o> .\n<s> <p> \"cut"), iotest.ErrReader(errors.New("bad gzip")))
	err := New(Options{}).Read(t.Context(), "x.nt", r, source.WriterFunc(func(quad.Quad) error { return nil }))
	if err == nil || err.Error() != "x.nt:2: bad gzip" {
		t.Errorf("err = %v, want x.nt:2: bad gzip", err)
	}
}

func TestReaderStops(t *testing.T) {
	text := strings.Repeat("<s> <p> <o> .\n", 3*ctxCheckEvery)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := New(Options{}).Read(ctx, "x.nt", strings.NewReader(text), source.WriterFunc(func(quad.Quad) error { return nil }))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: %v", err)
	}

	boom := errors.New("disk full")
	n := 0
	w := source.WriterFunc(func(quad.Quad) error {
		if n++; n == 3 {
			return boom
		}
		return nil
	})
	err = New(Options{}).Read(context.Background(), "x.nt", strings.NewReader(text), w)
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "x.nt:3: ") {
		t.Errorf("writer error: %v", err)
	}
}

// TestFilmSample reads the real Freebase film sample (cayley's
// 30kmoviedata): 471,705 quads, relative IRIs, CVT blank nodes.
func TestFilmSample(t *testing.T) {
	film := datadir.Film(t)
	f, err := os.Open(film)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	bySubject := make(map[quad.Value][]quad.Quad)
	n := 0
	w := source.WriterFunc(func(q quad.Quad) error {
		n++
		if q.Subject == quad.IRI("/en/blade_runner") || q.Subject == quad.BNode("film/6873") {
			bySubject[q.Subject] = append(bySubject[q.Subject], q)
		}
		return nil
	})
	if err := New(Options{Options: source.Options{Graph: "film"}}).Read(context.Background(), film, zr, w); err != nil {
		t.Fatal(err)
	}
	if n != 471705 {
		t.Errorf("read %d quads, want 471705", n)
	}
	br := bySubject[quad.IRI("/en/blade_runner")]
	mustHave(t, br, quad.Quad{Subject: quad.IRI("/en/blade_runner"), Predicate: quad.IRI("name"), Object: quad.String("Blade Runner")})
	mustHave(t, br, quad.Quad{Subject: quad.IRI("/en/blade_runner"), Predicate: quad.IRI("/film/film/starring"), Object: quad.BNode("film/6873")})
	mustHave(t, br, quad.Quad{Subject: quad.IRI("/en/blade_runner"), Predicate: quad.IRI("/film/film/directed_by"), Object: quad.IRI("/en/ridley_scott")})
	cvt := bySubject[quad.BNode("film/6873")]
	mustHave(t, cvt, quad.Quad{Subject: quad.BNode("film/6873"), Predicate: quad.IRI("/film/performance/actor"), Object: quad.IRI("/en/harrison_ford")})
	mustHave(t, cvt, quad.Quad{Subject: quad.BNode("film/6873"), Predicate: quad.IRI("/film/performance/character"), Object: quad.String("Rick Deckard")})
}

func mustHave(t *testing.T, got []quad.Quad, want quad.Quad) {
	t.Helper()
	for _, q := range got {
		if q == want {
			return
		}
	}
	t.Errorf("missing %v in %v", want, got)
}

// TestReaderEmptyGraphLabel: with KeepLabels, the label <> is an error
// naming the line (it made a graph named "" that no command could name);
// without, labels are dropped and it loads.
func TestReaderEmptyGraphLabel(t *testing.T) {
	text := "<s> <p> <o> <g> .\n<s> <p> <o2> <> .\n"
	if _, err := readAll(t, Options{KeepLabels: true}, text); err == nil || !strings.Contains(err.Error(), "test.nq:2: graph label <> is empty") {
		t.Errorf("KeepLabels: error %v", err)
	}
	if got, err := readAll(t, Options{}, text); err != nil || len(got) != 2 {
		t.Errorf("labels dropped: %d quads, %v", len(got), err)
	}
}
