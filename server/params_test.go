package server

import (
	"bytes"
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/grove-kg/grove/store"
)

var testLimits = queryLimits{maxIDs: 3, maxResults: 100, defaultLimit: 20}

func TestParseQuery(t *testing.T) {
	cases := []struct {
		name  string
		query string
		spec  querySpec
		want  kgQuery
		err   string
	}{
		{"one id", "id=a", entitySpec, kgQuery{IDs: []string{"a"}}, ""},
		{"ids and defaults", "id=a&id=b", relationsSpec, kgQuery{IDs: []string{"a", "b"}, Dir: store.Both, Limit: 100}, ""},
		{"edges", "id=a&relation=r&dir=in&limit=7", edgesSpec,
			kgQuery{IDs: []string{"a"}, Relation: "r", Dir: store.In, Limit: 7}, ""},
		{"edges default dir and limit", "id=a&relation=r", edgesSpec, kgQuery{IDs: []string{"a"}, Relation: "r", Limit: 20}, ""},
		{"search default limit", "q=x", searchSpec, kgQuery{Text: "x", Limit: 10}, ""},
		{"neighbors both", "id=a&dir=both", neighborsSpec, kgQuery{IDs: []string{"a"}, Dir: store.Both, Limit: 20}, ""},
		{"unknown", "id=a&foo=1", entitySpec, kgQuery{}, `unknown query parameter "foo" (allowed: id)`},
		{"none allowed", "x=1", querySpec{}, kgQuery{}, "takes none"},
		{"missing id", "", entitySpec, kgQuery{}, `missing query parameter "id"`},
		{"empty id", "id=", entitySpec, kgQuery{}, "is empty"},
		{"too many ids", "id=a&id=b&id=c&id=d", relationsSpec, kgQuery{}, "too many ids: 4 (at most 3"},
		{"repeated relation", "id=a&relation=r&relation=s", edgesSpec, kgQuery{}, `"relation" given 2 times`},
		{"blank q", "q=%20", searchSpec, kgQuery{}, `"q" is empty`},
		{"bad dir", "id=a&relation=r&dir=left", edgesSpec, kgQuery{}, `"dir"`},
		{"both not allowed", "id=a&relation=r&dir=both", edgesSpec, kgQuery{}, `must be "out" or "in"`},
		{"limit zero", "q=x&limit=0", searchSpec, kgQuery{}, "from 1 to 100"},
		{"limit text", "q=x&limit=ten", searchSpec, kgQuery{}, `not "ten"`},
		{"limit huge", "q=x&limit=99999999999999999999", searchSpec, kgQuery{}, "from 1 to 100"},
		{"invalid utf8", "id=%ff", entitySpec, kgQuery{}, "not valid UTF-8"},
		{"newline", "id=a%0Ab", entitySpec, kgQuery{}, "control characters"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := url.ParseQuery(c.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseQuery(v, c.spec, testLimits)
			if c.err != "" {
				var ae *apiError
				if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &ae) || ae.status != 400 {
					t.Fatalf("err = %v, want 400 containing %q", err, c.err)
				}
				return
			}
			if err != nil || !sameQuery(got, c.want) {
				t.Fatalf("parseQuery = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

func sameQuery(a, b kgQuery) bool {
	return strings.Join(a.IDs, "\x00") == strings.Join(b.IDs, "\x00") && a.Relation == b.Relation &&
		a.Graph == b.Graph && a.Text == b.Text && a.Dir == b.Dir && a.Limit == b.Limit
}

// FuzzParseQuery: any query string either parses into values within the
// limits or fails with a 400 whose message is valid UTF-8.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"id=a", "id=a&id=b&dir=both&limit=3", "q=x&graph=g&limit=0", "id=%ff", "relation=r&dir=in"} {
		f.Add(s)
	}
	specs := []querySpec{entitySpec, relationsSpec, edgesSpec, neighborsSpec, degreeSpec, searchSpec, sameAsSpec, featuresSpec}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		for _, spec := range specs {
			q, err := parseQuery(v, spec, testLimits)
			if err != nil {
				var ae *apiError
				if !errors.As(err, &ae) || ae.status != 400 || !utf8.ValidString(ae.msg) {
					t.Fatalf("error %v is not a clean 400", err)
				}
				continue
			}
			if len(q.IDs) > testLimits.maxIDs || (spec.limit != absent && (q.Limit < 1 || q.Limit > testLimits.maxResults)) {
				t.Fatalf("out of limits: %+v", q)
			}
			if (spec.id == required || spec.ids == required) && len(q.IDs) == 0 {
				t.Fatalf("required id missing: %+v", q)
			}
			for _, id := range q.IDs {
				if id == "" || !utf8.ValidString(id) || len(id) > maxIDBytes {
					t.Fatalf("bad id accepted: %q", id)
				}
			}
			if q.Dir == store.Both && !spec.allowBoth {
				t.Fatalf("both accepted for %+v", spec)
			}
		}
	})
}

var testAskLimits = Config{}.Defaults().Ask

func TestCheckParams(t *testing.T) {
	caps := map[string]float64{"k": 5, "tau": 1}
	cases := []struct {
		name   string
		params map[string]any
		err    string
	}{
		{"ok", map[string]any{"k": 3.0, "tau": "0.8", "flag": true, "mode": "fast"}, ""},
		{"at cap", map[string]any{"k": 5.0}, ""},
		{"over cap", map[string]any{"k": 5.5}, "exceeds this server's cap of 5"},
		{"numeric string over cap", map[string]any{"tau": "1.5"}, "cap of 1"},
		{"negative", map[string]any{"k": -2.0}, "non-negative"},
		{"not adjustable", map[string]any{"depth": 3.0}, `"depth" is not adjustable on this server (adjustable: k, tau)`},
		{"model", map[string]any{"Model": "x"}, "server chooses the model"},
		{"api key", map[string]any{"api_key": "x"}, "server chooses the model"},
		{"object", map[string]any{"k": map[string]any{}}, "number, string or boolean"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkParams(c.params, caps)
			if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("checkParams = %v, want %q", err, c.err)
			}
		})
	}
}

// FuzzDecodeAsk: any body either decodes into a request within the limits
// or fails with a 400 (or 413) carrying a clean message.
func FuzzDecodeAsk(f *testing.F) {
	for _, s := range []string{
		bladeRunner,
		`{"question":"q","method":"tot","params":{"k":3,"max_depth":"7","x":true}}`,
		`{"question":"q","topic_entities":["a","b"],"graphs":[""]}`,
		`{"question":1}`, `{"question":"q"} x`, `{`, `null`, `{"params":{"k":1e400}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeAsk(bytes.NewReader(body), testAskLimits, 10)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.status != 400 || !utf8.ValidString(ae.msg) || ae.msg == "" {
				t.Fatalf("error %v is not a clean 400", err)
			}
			return
		}
		if strings.TrimSpace(req.Question) == "" || len(req.Question) > testAskLimits.MaxQuestionBytes ||
			len(req.TopicEntities) > 10 || len(req.Graphs) > maxAskGraphs {
			t.Fatalf("accepted out of limits: %+v", req)
		}
		for k, v := range req.Params {
			if f, numeric, _ := numericValue(v); numeric && (f > testAskLimits.ParamCaps[k] || f < 0) {
				t.Fatalf("param %s=%v over its cap", k, v)
			}
		}
	})
}

func TestRedactor(t *testing.T) {
	r := newRedactor([]string{"/srv/grove/db", "abc", "hunter2-key"})
	cases := []struct{ in, want string }{
		{"", ""},
		{`POST "https://api.example.com/v1/chat": 401`, `POST "[redacted]": 401`},
		{"open /srv/grove/db/000001.vlog: EOF", "open [redacted]/000001.vlog: EOF"},
		{"bad key sk-proj-ABCDEFGH1234", "bad key [redacted]"},
		{"header Bearer abcdefghijklmnop", "header [redacted]"},
		{"key hunter2-key rejected", "key [redacted] rejected"},
		{"abc is too short to be redacted", "abc is too short to be redacted"},
		{"plain model error", "plain model error"},
	}
	for _, c := range cases {
		if got := r.text(c.in); got != c.want {
			t.Errorf("text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	c := Config{MaxResults: 10}.Defaults()
	if c.Addr != DefaultAddr || c.DefaultLimit != 10 || c.MaxConcurrentRuns != 2 || c.Ask.ParamCaps["k"] != 5 ||
		c.Ask.MaxModelCalls != 400 || c.MaxBodyBytes != 1<<20 {
		t.Fatalf("defaults %+v", c)
	}
	bad := Config{MaxIDs: -1}.Defaults()
	if err := bad.validate(); err == nil {
		t.Error("negative limit accepted")
	}
}
