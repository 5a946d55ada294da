package wikidata

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/synth"
	"github.com/grove-kg/grove/store"
)

// claimsSummary renders claims as "P17:2 P31:1" (property: statements)
// with qualifier properties in brackets: "P17:1[P580,P582]".
func claimsSummary(cs claims) string {
	var parts []string
	for _, c := range cs {
		s := fmt.Sprintf("%s:%d", c.Prop, len(c.Stmts))
		var qs []string
		for _, st := range c.Stmts {
			for _, q := range st.Qualifiers {
				qs = append(qs, fmt.Sprintf("%s/%d", q.Prop, len(q.Snaks)))
			}
		}
		if len(qs) > 0 {
			s += "[" + strings.Join(qs, ",") + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestDecodeEntity(t *testing.T) {
	ls := newLangSet([]string{"en"}, true)
	dv := `{"value":{"id":"Q183"},"type":"wikibase-entityid"}`
	tests := []struct {
		name, line, want, wantErr string
	}{
		{"sorted by number", item("Q1", `"P131":[`+stmt("P131", "normal", "wikibase-item", dv, "")+`],"P17":[`+
			stmt("P17", "normal", "wikibase-item", dv, "")+`,`+stmt("P17", "normal", "wikibase-item", dv, "")+`]`),
			"P17:2 P131:1", ""},
		{"repeated property: the last wins", item("Q1", `"P17":[`+stmt("P17", "normal", "x", dv, "")+`],"P17":[]`), "P17:0", ""},
		{"claims given twice merge", `{"type":"item","id":"Q1","claims":{"P2":[]},"claims":{"P1":[]}}`, "P1:0 P2:0", ""},
		{"empty claims as array", `{"type":"item","id":"Q1","claims":[]}`, "", ""},
		{"null members", `{"type":"item","id":"Q1","labels":null,"claims":null,"sitelinks":null}`, "", ""},
		{"qualifiers, repeated and null", item("Q1", `"P17":[`+stmt("P17", "normal", "x", dv,
			`,"qualifiers":{"P580":[{"snaktype":"novalue"}],"P582":null,"P580":[{"snaktype":"novalue"},{"snaktype":"somevalue"}]}`)+`]`),
			"P17:1[P580/2,P582/0]", ""},
		{"unknown members skipped", `{"type":"item","id":"Q1","x":{"y":[1,{"z":"]"}]},"claims":{"P1":[{"references":[{"a":"}"}],"rank":"normal"}]}}`,
			"P1:1", ""},
		{"truncated in labels", `{"type":"item","id":"Q1","labels":{"en":`, "", "unexpected end of JSON"},
		{"truncated in claims", `{"type":"item","id":"Q1","claims":{"P1":[{"rank":"nor`, "", "unterminated string"},
		{"statement not an object", item("Q1", `"P1":[5]`), "", "want an object"},
		{"rank not a string", item("Q1", `"P1":[{"rank":5}]`), "", "want a string"},
		{"statement id not a string", item("Q1", `"P1":[{"id":5,"rank":"normal"}]`), "", "want a string"},
		{"trailing garbage", `{"type":"item","id":"Q1"} x`, "", `unexpected 'x' after the value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &decoder{ls: ls}
			e, err := d.decode([]byte(tt.line))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := claimsSummary(e.Claims); got != tt.want {
				t.Fatalf("claims = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDecodeSnak(t *testing.T) {
	ls := newLangSet([]string{"en"}, true)
	tests := []struct {
		name, snak     string
		hasValue       bool
		valueType, raw string
	}{
		{"value", `{"snaktype":"value","datavalue":{"value":"abc","type":"string"},"datatype":"url"}`, true, "string", `"abc"`},
		{"null datavalue", `{"snaktype":"value","datavalue":null}`, false, "", ""},
		{"no datavalue", `{"snaktype":"novalue"}`, false, "", ""},
		{"null value", `{"snaktype":"value","datavalue":{"type":"time","value":null}}`, true, "time", ""},
		{"unknown type kept", `{"snaktype":"value","datavalue":{"type":"hologram","value":{"a":1}}}`, true, "hologram", `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &decoder{ls: ls}
			e, err := d.decode([]byte(item("Q1", `"P1":[{"mainsnak":`+tt.snak+`,"rank":"normal"}]`)))
			if err != nil {
				t.Fatal(err)
			}
			sn := e.Claims[0].Stmts[0].Mainsnak
			if sn.HasValue != tt.hasValue || sn.ValueType != tt.valueType || string(sn.Value) != tt.raw {
				t.Fatalf("snak = %v %q %q, want %v %q %q", sn.HasValue, sn.ValueType, sn.Value, tt.hasValue, tt.valueType, tt.raw)
			}
		})
	}
}

func TestClaimsSorted(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"P17 P131 P2", "P2 P17 P131"},
		{"P2 P17 P131", "P2 P17 P131"},
		{"Q5 P9 L1", "L1 P9 Q5"},
		{"P17 x P17", "P17 x"},
		{"P1 P01", "P1 P01"}, // numerically equal: input order
	}
	for _, tt := range tests {
		var cs claims
		for i, p := range strings.Fields(tt.in) {
			cs = append(cs, propClaims{Prop: p, Stmts: make([]statement, i)})
		}
		var got []string
		for _, c := range cs.sorted() {
			got = append(got, c.Prop)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("sorted(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// The last of a repeated property wins.
	cs := claims{{Prop: "P1"}, {Prop: "P1", Stmts: make([]statement, 2)}}.sorted()
	if len(cs) != 1 || len(cs[0].Stmts) != 2 {
		t.Fatalf("repeated property: %+v", cs)
	}
}

func TestSkipString(t *testing.T) {
	const word = 8 // skipString looks at eight bytes at a time
	long := strings.Repeat("a", 6*word)
	tests := []struct {
		name, in string
		want     int // index after the string, -1: error
	}{
		{"short", `"abc",`, 5},
		{"escaped quote", `"a\"b",`, 6},
		{"escaped backslash", `"a\\",`, 5},
		{"escape at a word's last byte", `"` + strings.Repeat("a", word-2) + `\"` + long + `"`, 7*word + 2},
		{"long", `"` + long + `"x`, 6*word + 2},
		{"long with escapes", `"` + long + `\\\"\\"x`, 6*word + 8},
		{"unterminated", `"abc`, -1},
		{"unterminated after escape", `"abc\"`, -1},
		{"unterminated long", `"` + long + `\"`, -1},
		{"escape across words", `"abcdef\"` + "xyz" + `"`, 13},
		{"backslash ends a word", `"abcdefg\\"`, 11},
		{"quote in the second word", `"abcdefghijk"z`, 13},
		{"backslash at the end", `"abcdefghijklmnop\`, -1},
		{"multi-byte text", `"Zürich – Ōsaka 東京"`, len(`"Zürich – Ōsaka 東京"`)},
	}
	for n := range 20 { // the quote at every offset around the word size
		in := `"` + strings.Repeat("b", n) + `"` + long
		tests = append(tests, struct {
			name, in string
			want     int
		}{fmt.Sprintf("quote after %d bytes", n), in, n + 2})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := skipString([]byte(tt.in), 0)
			if tt.want < 0 {
				if err == nil {
					t.Fatalf("skipString(%q) = %d, want an error", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("skipString(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

// skipStringRef is skipString byte by byte.
func skipStringRef(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1
		case '\\':
			j++
		}
	}
	return -1
}

// FuzzSkipString checks skipString against the byte-by-byte reference.
func FuzzSkipString(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"b"x`, `"abcdefgh\\"`, `"abcdefghijklmnop`, `"\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := append([]byte{'"'}, s...)
		got, err := skipString(b, 0)
		if want := skipStringRef(b, 0); (err != nil) != (want < 0) || (err == nil && got != want) {
			t.Fatalf("skipString(%q) = %d, %v; want %d", b, got, err, want)
		}
	})
}

// FuzzDecodeEntity checks that no line panics the decoder, that a reused
// decoder gives what a fresh one gives, and that truncation is reported
// as such.
func FuzzDecodeEntity(f *testing.F) {
	for _, s := range []string{propP131, propP150, propP214, lexL7, itemMul,
		item("Q2", `"P17":[`+stmt("P17", "normal", "wikibase-item", `{"value":{"id":"Q183"},"type":"wikibase-entityid"}`,
			`,"qualifiers":{"P580":[{"snaktype":"value","datavalue":{"value":{"time":"+2010-00-00T00:00:00Z","precision":9},"type":"time"}}]},"qualifiers-order":["P580"]`)+`]`)} {
		f.Add([]byte(s))
	}
	ls := newLangSet([]string{"en", "de"}, true)
	reused := &decoder{ls: ls}
	f.Fuzz(func(t *testing.T, line []byte) {
		fresh := &decoder{ls: ls}
		e1, err1 := fresh.decode(line)
		e2, err2 := reused.decode(line)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Fatalf("fresh: %v, reused: %v", err1, err2)
		}
		if err1 == nil && fmt.Sprintf("%+v", *e1) != fmt.Sprintf("%+v", *e2) {
			t.Fatalf("fresh %+v\nreused %+v", *e1, *e2)
		}
		if err1 == nil && len(line) > 1 {
			if _, err := fresh.decode(line[:len(line)-1]); err == nil && strings.HasSuffix(string(line), "}") &&
				!strings.HasSuffix(strings.TrimSpace(string(line[:len(line)-1])), "}") {
				t.Fatalf("%q cut short decoded without error", line)
			}
		}
		var se *syntaxError
		if err1 != nil && errors.Is(err1, errEOF) && !errors.As(err1, &se) {
			t.Fatalf("EOF error %v is not a syntax error", err1)
		}
	})
}

func TestPredCache(t *testing.T) {
	pc := predCache{}
	tests := []struct {
		kind int
		p    string
		want quad.Value
	}{
		{predDirect, "P17", quad.IRI("P17")},
		{predStatement, "P17", quad.IRI(store.StatementPrefix + "P17")},
		{predValue, "P17", quad.IRI(store.StatementValuePrefix + "P17")},
		{predQualifier, "P580", quad.IRI(store.QualifierPrefix + "P580")},
		{predDirect, "P17", quad.IRI("P17")}, // cached
	}
	for _, tt := range tests {
		if got := pc.get(tt.kind, tt.p); got != tt.want {
			t.Errorf("get(%d, %s) = %v, want %v", tt.kind, tt.p, got, tt.want)
		}
	}
	if len(pc) != 2 {
		t.Fatalf("cache holds %d properties, want 2", len(pc))
	}
	for i := 0; i <= predCacheMax; i++ {
		pc.get(predDirect, "P"+strconv.Itoa(i+1))
	}
	if len(pc) > predCacheMax {
		t.Fatalf("cache grew to %d, over %d", len(pc), predCacheMax)
	}
}

// TestDumpLikeDeterministic reads generated dump-like entities (qualifiers,
// references, many languages) with storage reused across thousands of
// lines: the output must not depend on the workers or the batch size.
func TestDumpLikeDeterministic(t *testing.T) {
	var buf bytes.Buffer
	if _, err := synth.WriteWikidata(&buf, synth.WikidataConfig{Entities: 1500, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	first, st := mustRun(t, Options{Workers: 1, AllRanks: true}, buf.Bytes())
	if st.Entities != 1500 || st.Quads < 10*st.Entities {
		t.Fatalf("stats %+v", st)
	}
	for _, o := range []Options{{Workers: 3, BatchBytes: 20000, AllRanks: true}, {Workers: 2, BatchBytes: 1, AllRanks: true}} {
		again, _ := mustRun(t, o, buf.Bytes())
		if !slices.Equal(first, again) {
			t.Fatalf("output differs with workers=%d batch=%d", o.Workers, o.BatchBytes)
		}
	}
}
