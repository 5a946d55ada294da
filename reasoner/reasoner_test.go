package reasoner

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

func TestParamsInt(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want int
		err  string
	}{
		{nil, 7, ""},
		{3, 3, ""},
		{int64(4), 4, ""},
		{uint8(5), 5, ""},
		{6.0, 6, ""},
		{float32(2), 2, ""},
		{json.Number("8"), 8, ""},
		{" 9 ", 9, ""},
		{2.5, 7, "not an integral value"},
		{math.Inf(1), 7, "not an integral value"},
		{"abc", 7, "not a decimal integer"},
		{true, 7, "not a number"},
		{uint64(math.MaxUint64), 7, "out of range"},
		{[]int{1}, 7, "not a number"},
	} {
		got, err := Params{"k": tc.v}.Int("k", 7)
		if got != tc.want || !errMatches(err, tc.err) {
			t.Errorf("Int(%#v) = %d, %v; want %d, %q", tc.v, got, err, tc.want, tc.err)
		}
		if tc.err != "" && !strings.Contains(err.Error(), `parameter "k": want an integer`) {
			t.Errorf("error %q does not name the key and type", err)
		}
	}
	if got, err := (Params(nil)).Int("k", 1); got != 1 || err != nil {
		t.Errorf("nil params: %d %v", got, err)
	}
}

func errMatches(err error, want string) bool {
	if want == "" {
		return err == nil
	}
	return err != nil && strings.Contains(err.Error(), want)
}

func TestParamsOtherTypes(t *testing.T) {
	p := Params{"f": "0.5", "n": 2, "nan": math.NaN(), "b": "true", "bb": 1, "s": "x", "sn": 3,
		"d": "1.5s", "dd": time.Second, "bad": "soon", "num": json.Number("0.25")}
	check := func(name string, got, want any, err error, wantErr string) {
		t.Helper()
		if got != want || !errMatches(err, wantErr) {
			t.Errorf("%s = %v, %v; want %v, %q", name, got, err, want, wantErr)
		}
	}
	f, err := p.Float("f", 1)
	check("Float(f)", f, 0.5, err, "")
	f, err = p.Float("n", 1)
	check("Float(n)", f, 2.0, err, "")
	f, err = p.Float("num", 1)
	check("Float(num)", f, 0.25, err, "")
	f, err = p.Float("nan", 1)
	check("Float(nan)", f, 1.0, err, "not a finite number")
	f, err = p.Float("s", 1)
	check("Float(s)", f, 1.0, err, "want a number")
	b, err := p.Bool("b", false)
	check("Bool(b)", b, true, err, "")
	b, err = p.Bool("bb", false)
	check("Bool(bb)", b, false, err, "want a boolean")
	s, err := p.String("s", "")
	check("String(s)", s, "x", err, "")
	s, err = p.String("sn", "def")
	check("String(sn)", s, "def", err, "want a string, got int 3")
	d, err := p.Duration("d", 0)
	check("Duration(d)", d, 1500*time.Millisecond, err, "")
	d, err = p.Duration("dd", 0)
	check("Duration(dd)", d, time.Second, err, "")
	d, err = p.Duration("bad", time.Minute)
	check("Duration(bad)", d, time.Minute, err, "want a duration")
	var pe *ParamError
	if _, err := p.Duration("bad", 0); !errors.As(err, &pe) || pe.Key != "bad" {
		t.Errorf("error is not a *ParamError: %v", err)
	}
}

func TestParamsReader(t *testing.T) {
	r := Params{"k": "x", "tau": 0.9, "extra": 1, "other": 2}.Reader()
	if k := r.Int("k", 3); k != 3 {
		t.Errorf("k = %d", k)
	}
	if tau := r.Float("tau", 0.8); tau != 0.9 {
		t.Errorf("tau = %g", tau)
	}
	r.Bool("b", false)
	r.String("s", "")
	r.Duration("d", 0)
	err := r.Done()
	if err == nil || !strings.Contains(err.Error(), `parameter "k"`) ||
		!strings.Contains(err.Error(), `unknown parameter(s) "extra", "other" (known: b, d, k, s, tau)`) {
		t.Errorf("Done = %v", err)
	}
	if err := (Params{"k": 1}).Reader().Done(); err == nil {
		t.Error("an unread key was accepted")
	}
	r = Params{"k": 1}.Reader()
	r.Int("k", 0)
	if err := r.Done(); err != nil {
		t.Errorf("Done = %v", err)
	}
}

// FuzzParamsInt checks that Int never panics, that a successful parse
// round-trips through its decimal form, and that failures are
// *ParamError values naming the key.
func FuzzParamsInt(f *testing.F) {
	for _, s := range []string{"3", " -4 ", "1e3", "0x10", "9223372036854775808", "", "+7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Params{"k": s}.Int("k", 0)
		if err != nil {
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Key != "k" {
				t.Fatalf("Int(%q) error %v is not a ParamError for k", s, err)
			}
			return
		}
		back, err := Params{"k": strconv.Itoa(n)}.Int("k", 0)
		if err != nil || back != n {
			t.Fatalf("Int(%q) = %d does not round-trip: %d, %v", s, n, back, err)
		}
	})
}

type fakeReasoner struct{ deps Deps }

func (f fakeReasoner) Answer(context.Context, Query) (*trace.Trace, error) {
	return &trace.Trace{}, nil
}

func TestRegistry(t *testing.T) {
	reg := NewRegistry()
	reg.Register("b", "second", func(d Deps, p Params) (Reasoner, error) { return fakeReasoner{d}, p.CheckKeys("x") })
	reg.Register("a", "first", func(d Deps, p Params) (Reasoner, error) { return fakeReasoner{d}, nil })
	if got := reg.Names(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("names = %v", got)
	}
	if got := reg.Methods(); len(got) != 2 || got[0] != (Method{"a", "first"}) {
		t.Errorf("methods = %v", got)
	}
	if _, err := reg.New("b", Deps{}, Params{"x": 1}); err != nil {
		t.Error(err)
	}
	if _, err := reg.New("b", Deps{}, Params{"y": 1}); err == nil || !strings.Contains(err.Error(), `method b: unknown parameter(s) "y"`) {
		t.Errorf("err = %v", err)
	}
	if _, err := reg.New("c", Deps{}, nil); err == nil || !strings.Contains(err.Error(), "registered: [a b]") {
		t.Errorf("err = %v", err)
	}
	for name, f := range map[string]func(){
		"duplicate": func() { reg.Register("a", "", func(Deps, Params) (Reasoner, error) { return nil, nil }) },
		"empty":     func() { reg.Register("", "", func(Deps, Params) (Reasoner, error) { return nil, nil }) },
		"nil":       func() { reg.Register("z", "", nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s registration did not panic", name)
				}
			}()
			f()
		}()
	}
	var zero Registry
	zero.Register("x", "", func(Deps, Params) (Reasoner, error) { return fakeReasoner{}, nil })
	if !slices.Equal(zero.Names(), []string{"x"}) {
		t.Error("zero registry unusable")
	}
}

func TestDepsAndQuery(t *testing.T) {
	db := storetest.Open(t, map[string]string{"g": "<a> <p> <b> .\n"})
	if _, err := (Deps{Model: lexical.Policy{}}).WithDefaults(); err == nil {
		t.Error("no error without KG")
	}
	if _, err := (Deps{KG: db}).WithDefaults(); err == nil {
		t.Error("no error without model")
	}
	d, err := Deps{KG: db, Model: lexical.Policy{}}.WithDefaults()
	if err != nil || d.Evaluator == nil || d.Logger == nil {
		t.Errorf("defaults = %+v, %v", d, err)
	}
	for _, tc := range []struct {
		q   Query
		err string
	}{
		{Query{Question: "q"}, ""},
		{Query{Question: " \n"}, "empty question"},
		{Query{Question: "q", Graphs: []string{""}}, "graphs[0] is empty"},
		{Query{Question: "q", TopicEntities: []string{"Q1", " "}}, "topic_entities[1] is empty"},
	} {
		if err := tc.q.Validate(); !errMatches(err, tc.err) {
			t.Errorf("%+v: %v, want %q", tc.q, err, tc.err)
		}
	}
}

func TestResolveGraphs(t *testing.T) {
	db := storetest.Open(t, map[string]string{"b": "<a> <p> <b> .\n", "a": "<x> <p> <y> .\n"})
	ctx := context.Background()
	for _, tc := range []struct {
		graphs []string
		want   []string
		err    string
	}{
		{nil, []string{"a", "b"}, ""},
		{[]string{"b", "a", "b"}, []string{"b", "a"}, ""},
		{[]string{"c"}, nil, `graph "c": not found (have `},
	} {
		got, err := ResolveGraphs(ctx, db, Query{Question: "q", Graphs: tc.graphs})
		if !slices.Equal(got, tc.want) || !errMatches(err, tc.err) {
			t.Errorf("%v: %v, %v", tc.graphs, got, err)
		}
		if tc.err != "" && !errors.Is(err, store.ErrNotFound) {
			t.Errorf("error does not wrap ErrNotFound: %v", err)
		}
	}
}
