package wikidata

import (
	"bytes"
	stdjson "encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEachMember(t *testing.T) {
	tests := []struct {
		in      string
		want    string // "key=value;" for each member
		wantErr string
	}{
		{`{}`, "", ""},
		{` [ ] `, "", ""},
		{`{"a":1}`, `"a"=1;`, ""},
		{`{ "a" : "x" , "b":{"c":[1,2,{"d":"}"}]}, "e":null }`, `"a"="x";"b"={"c":[1,2,{"d":"}"}]};"e"=null;`, ""},
		{`{"a\"b":"q\\"}`, `"a\"b"="q\\";`, ""},
		{`{"a":1,}`, "", "byte 7: want a member name"},
		{`{"a" 1}`, "", "byte 5: want ':'"},
		{`{"a":1 "b":2}`, "", "byte 7: want ',' or '}'"},
		{`{"a":[1,2}`, "", "byte 9: unexpected '}'"},
		{`{"a":"unterminated}`, "", "unterminated string"},
		{`{"a":{"b":1}`, "", "unexpected end"},
		{`{"a":1}x`, "", "byte 7: unexpected 'x' after the value"},
		{`["a"]`, "", "byte 0: want an object"},
		{``, "", "want an object"},
		{`{"a":@}`, "", "byte 5: unexpected '@'"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got strings.Builder
			err := eachMember([]byte(tt.in), 0, func(key, val []byte, _ int) error {
				got.WriteString(string(key) + "=" + string(val) + ";")
				return nil
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got.String() != tt.want {
				t.Fatalf("got %q, %v; want %q", got.String(), err, tt.want)
			}
		})
	}
}

func TestEachElement(t *testing.T) {
	tests := []struct{ in, want, wantErr string }{
		{`[]`, "", ""},
		{`[1, "a", {"b":[2]}]`, `1;"a";{"b":[2]};`, ""},
		{`[1,]`, "", "unexpected ']'"},
		{`[1 2]`, "", "want ',' or ']'"},
		{`{}`, "", "want an array"},
		{`[1`, "", "unexpected end"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got strings.Builder
			err := eachElement([]byte(tt.in), 0, func(val []byte, _ int) error {
				got.WriteString(string(val) + ";")
				return nil
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got.String() != tt.want {
				t.Fatalf("got %q, %v; want %q", got.String(), err, tt.want)
			}
		})
	}
}

func TestUnquote(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`"S\u00e3o Paulo"`, "São Paulo"},
		{`"a\"b\\c\n"`, "a\"b\\c\n"},
		{`""`, ""},
	}
	for _, tt := range tests {
		got, err := unquote([]byte(tt.in))
		if err != nil || got != tt.want {
			t.Errorf("unquote(%s) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{``, `"`, `abc`, `"\x"`, "\"a\xffb\"", "\"\\n\xc3\"", "\"\xed\xa0\x80\""} {
		if _, err := unquote([]byte(bad)); err == nil {
			t.Errorf("unquote(%s): want error", bad)
		}
	}
}

func TestTopLevelID(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		wantOK bool
	}{
		{`{"type":"item","id":"Q64","labels":{}}`, "Q64", true},
		{`{"claims":{"P1":[{"id":"Q1$x"}]},"id":"Q2"}`, "Q2", true},
		{`{"type":"item"}`, "", false},
		{`{"type":"item","id":"Q64"`, "Q64", true}, // stops at the id
		{`{"type":`, "", false},
		{`not json`, "", false},
	}
	for _, tt := range tests {
		got, ok := topLevelID([]byte(tt.in))
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("topLevelID(%s) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

// stdKeys lists the top-level keys of a JSON object with encoding/json.
func stdKeys(data []byte) ([]string, bool) {
	dec := stdjson.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil || tok != stdjson.Delim('{') {
		return nil, false
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, false
		}
		keys = append(keys, k.(string))
		var skip stdjson.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, false
		}
	}
	return keys, true
}

// FuzzEachMember checks that the lax scanner accepts every valid JSON
// object and sees the same top-level keys as encoding/json.
func FuzzEachMember(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":{"b":[1,"}",{"c":null}]},"d":"\u00e9"}`, `{"a":"\"}"}`, `[]`, `{"a":[}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var keys []string
		err := eachMember(data, 0, func(key, _ []byte, _ int) error {
			k, err := unquote(key)
			keys = append(keys, k)
			return err
		})
		_, _ = topLevelID(data)
		if !stdjson.Valid(data) || !utf8.Valid(data) {
			return // encoding/json takes invalid UTF-8; the scanner refuses it
		}
		want, isObject := stdKeys(data)
		if !isObject {
			return
		}
		if err != nil {
			t.Fatalf("valid object %q rejected: %v", data, err)
		}
		if strings.Join(keys, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("keys of %q = %q, want %q", data, keys, want)
		}
	})
}

// skipContainerRef is a plain byte-at-a-time skipContainer, the reference
// the scanner's (strings eight bytes at a time) is checked against. (A
// word-at-a-time skipContainer that found every quote and bracket of a
// word with SWAR was tried and was 7-10% slower on dump-like entities:
// between strings there are only a few bytes.)
func skipContainerRef(b []byte, i int) (int, error) {
	var stack []byte
	for j := i; j < len(b); j++ {
		switch c := b[j]; c {
		case '"':
			k := j + 1
			for ; k < len(b) && b[k] != '"'; k++ {
				if b[k] == '\\' {
					k++
				}
			}
			if k >= len(b) {
				return 0, synErr(len(b), "unterminated string starting at byte %d", j)
			}
			j = k
		case '{', '[':
			stack = append(stack, c+2)
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return 0, synErr(j, "unexpected %q", c)
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, eofErr(len(b))
}

var skipContainerCases = []string{
	`{}`, `[]`, `{"a":1}x`, `[1,[2,{"b":"]"}],3]`, `{"a\"":"\\"}`, `{"x":"y\\\"}"}`,
	`{"a":[1,2}`, `{"a":"unterminated}`, `{"a":{"b":1}`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
	`{"hash":"fa278ebfc458360e5aed63d5058cca83c46134f1","snaks":{"P248":[{"snaktype":"value","property":"P248",` +
		`"datavalue":{"value":{"entity-type":"item","numeric-id":5375741,"id":"Q5375741"},"type":"wikibase-entityid"},` +
		`"datatype":"wikibase-item"}]},"snaks-order":["P248"]}, "after"`,
	`{"ends with a backslash":"\`, `["[{]"]`, `{"a":"\u00e9\u4e2d"}`, "{\"\xff\xfe\":[]}",
}

// TestSkipContainer checks skipContainer against the plain reference: same end, same error, at every start offset of each case
// (so that bytes of interest fall at every place in a word).
func TestSkipContainer(t *testing.T) {
	for _, c := range skipContainerCases {
		for pad := range 9 {
			b := []byte(strings.Repeat(" ", pad) + c)
			checkSkipContainer(t, b, pad)
		}
	}
}

func checkSkipContainer(t *testing.T, b []byte, i int) {
	t.Helper()
	got, err := skipContainer(b, i)
	want, wantErr := skipContainerRef(b, i)
	if got != want || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("skipContainer(%q, %d) = %d, %v; want %d, %v", b, i, got, err, want, wantErr)
	}
}

// FuzzSkipContainer checks skipContainer against the reference on any
// input starting with a bracket.
func FuzzSkipContainer(f *testing.F) {
	for _, c := range skipContainerCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || (b[0] != '{' && b[0] != '[') {
			return
		}
		checkSkipContainer(t, b, 0)
	})
}
