package wikidata

import (
	"bytes"
	stdjson "encoding/json"
	"strings"
	"testing"
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
	for _, bad := range []string{``, `"`, `abc`, `"\x"`} {
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
		if !stdjson.Valid(data) {
			return
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
