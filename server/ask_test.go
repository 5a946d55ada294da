package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/lexical"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/tot"
	"github.com/grove-kg/grove/reasoner/trace"
)

const bladeRunner = `{"question":"Who directed Blade Runner?","graphs":["movies"]}`

// registry has the real Tree-of-Traversals methods.
func registry() *reasoner.Registry {
	reg := reasoner.NewRegistry()
	tot.Register(reg)
	return reg
}

// lexicalModel is the scripted model of these tests: every reply comes from
// the deterministic lexical policy, after Latency, and ctxErrs counts the
// calls that ended because their context was cancelled.
type lexicalModel struct {
	scripted llm.Scripted
	ctxErrs  atomic.Int64
	calls    atomic.Int64
}

func newLexicalModel(latency time.Duration) *lexicalModel {
	m := &lexicalModel{}
	m.scripted = llm.Scripted{Latency: latency, Default: func(req llm.Request, i int) (string, error) {
		resp, err := lexical.Policy{}.Generate(context.Background(), req)
		if err != nil {
			return "", err
		}
		return resp.Texts[i], nil
	}}
	return m
}

func (m *lexicalModel) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	m.calls.Add(1)
	resp, err := m.scripted.Generate(ctx, req)
	if errors.Is(err, context.Canceled) {
		m.ctxErrs.Add(1)
	}
	return resp, err
}

// Describe names the lexical policy, whose replies these are.
func (m *lexicalModel) Describe() llm.Info { return lexical.Policy{}.Describe() }

func askServer(t *testing.T, cfg Config, model llm.Model) *testServer {
	t.Helper()
	return startServer(t, cfg, testDB(t), Deps{Model: model, Reasoners: registry()})
}

func TestAsk(t *testing.T) {
	ts := askServer(t, Config{}, newLexicalModel(0))
	st, _, body := ts.do("POST", "/v1/ask", bladeRunner, nil)
	if st != 200 {
		t.Fatalf("status %d: %s", st, body)
	}
	res := decode[askBody](t, body)
	if !res.Answer.Found || !strings.Contains(res.Answer.Text, "Ridley Scott") || res.Trace == nil ||
		res.Trace.Method != "tot" || len(res.Trace.Nodes) < 2 || res.Trace.Totals.ModelCalls == 0 || res.Error != "" {
		t.Fatalf("ask = %s", body)
	}
	if res.Model.Name != lexical.ModelName || !res.Model.NotLLM || res.Trace.Model.Name != lexical.ModelName {
		t.Errorf("the answer does not name the lexical policy: %+v, trace %+v", res.Model, res.Trace.Model)
	}
	// Compositions work on the server as in ask and eval.
	st, _, body = ts.do("POST", "/v1/ask", `{"question":"Who directed Blade Runner?","method":"chain->tot"}`, nil)
	if res := decode[askBody](t, body); st != 200 || res.Trace == nil || res.Trace.Method != "chain->tot" ||
		res.Trace.Params["fallback"] != "tot" {
		t.Errorf("composed method: status %d: %.300s", st, body)
	}
	_, metrics := ts.get("/metrics")
	for _, want := range []string{
		`grove_reasoning_runs_total{method="tot",outcome="ok"} 1`,
		`grove_model_calls_total{outcome="ok",task="tot/`,
		`grove_model_tokens_total{kind="prompt"}`,
		`grove_model_cache_hits_total 0`,
		`grove_reasoning_runs_in_flight 0`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	st, body = ts.get("/v1/methods")
	m := decode[methodsBody](t, body)
	if st != 200 || m.Default != "tot" || len(m.Methods) != 2 || m.Methods[0].Name != "chain" || m.ParamCaps["k"] != 5 {
		t.Errorf("methods = %s", body)
	}
}

func TestAskValidation(t *testing.T) {
	ts := askServer(t, Config{MaxBodyBytes: 1024, Ask: AskLimits{MaxQuestionBytes: 100}}, newLexicalModel(0))
	big := `{"question":"` + strings.Repeat("x", 2000) + `"}`
	cases := []struct {
		name, body, want string
		status           int
	}{
		{"syntax", `{"question": "x",}`, "invalid JSON at byte", 400},
		{"not an object", `["x"]`, `invalid JSON: field "" must be`, 400},
		{"wrong type", `{"question": 3}`, `field "question" must be a string`, 400},
		{"unknown field", `{"question":"x","model":"gpt-4"}`, `unknown field "model"`, 400},
		{"trailing data", `{"question":"x"} {}`, "unexpected data after", 400},
		{"empty body", ``, "empty request body", 400},
		{"empty question", `{"question":"  "}`, `"question" is missing or empty`, 400},
		{"long question", `{"question":"` + strings.Repeat("y", 101) + `"}`, "at most 100", 400},
		{"too large", big, "request body too large (limit 1024 bytes)", 413},
		{"unknown method", `{"question":"x","method":"magic"}`, `unknown method "magic"`, 400},
		{"unknown graph", `{"question":"x","graphs":["nope"]}`, `unknown graph "nope"`, 404},
		{"unknown topic", `{"question":"x","topic_entities":["zz"]}`, `"zz"`, 404},
		{"param over cap", `{"question":"x","params":{"k":6}}`, `"k" = 6 exceeds this server's cap of 5`, 400},
		{"param string over cap", `{"question":"x","params":{"max_depth":"11"}}`, "cap of 10", 400},
		{"max tokens", `{"question":"x","params":{"max_tokens":4096}}`, `"max_tokens" is set by the server (its ask.max_tokens)`, 400},
		{"param negative", `{"question":"x","params":{"k":-1}}`, "non-negative", 400},
		{"param not adjustable", `{"question":"x","params":{"zeta":1}}`, `"zeta" is not adjustable`, 400},
		{"param model", `{"question":"x","params":{"model":"gpt-4o"}}`, "server chooses the model", 400},
		{"param endpoint", `{"question":"x","params":{"base_url":"http://evil"}}`, "server chooses the model", 400},
		{"param nested", `{"question":"x","params":{"k":[1]}}`, "number, string or boolean", 400},
		{"param unknown to method", `{"question":"x","params":{"flavour":"x"}}`, `unknown parameter(s) "flavour"`, 400},
		{"param wrong type for method", `{"question":"x","params":{"k":"three"}}`, `parameter "k": want an integer`, 400},
		{"chain with k", `{"question":"x","method":"chain","params":{"k":2}}`, "chain always uses k=1", 400},
		{"two bad params", `{"question":"x","params":{"k":0,"max_depth":0}}`,
			`parameter "k" must be at least 1, got 0; parameter "max_depth" must be at least 1, got 0`, 400},
		{"gzip body", "\x1f\x8b\x08\x00", `Content-Encoding "gzip" is not supported: send the JSON body uncompressed`, 415},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hdr := map[string]string{"Content-Type": "application/json"}
			if c.status == 415 {
				hdr["Content-Encoding"] = "gzip"
			}
			st, _, body := ts.do("POST", "/v1/ask", c.body, hdr)
			msg := decode[errorBody](t, body).Error
			if st != c.status || !strings.Contains(msg, c.want) || strings.ContainsAny(msg, "\r\n") {
				t.Fatalf("status %d body %s; want %d and %q", st, body, c.status, c.want)
			}
		})
	}
}

// sseEv is one parsed event.
type sseEv struct {
	name string
	data string
}

// readSSE parses events from r until EOF, sending each to ch.
func readSSE(r io.Reader, ch chan<- sseEv) {
	defer close(ch)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var ev sseEv
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.name != "" {
				ch <- ev
			}
			ev = sseEv{}
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.data += strings.TrimPrefix(line, "data: ")
		}
	}
}

// stream starts POST /v1/ask/stream and returns the event channel and a
// cancel func that drops the connection.
func (ts *testServer) stream(t *testing.T, body string) (<-chan sseEv, *http.Response, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "POST", ts.url+"/v1/ask/stream", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan sseEv, 1024)
	if resp.StatusCode != 200 {
		close(ch)
		return ch, resp, cancel
	}
	go readSSE(resp.Body, ch)
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	return ch, resp, cancel
}

func TestAskStream(t *testing.T) {
	ts := askServer(t, Config{}, newLexicalModel(0))
	ch, resp, _ := ts.stream(t, bladeRunner)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	var events []sseEv
	for ev := range ch {
		events = append(events, ev)
	}
	if len(events) < 4 || events[0].name != "start" || events[len(events)-1].name != "result" {
		t.Fatalf("events: %v", names(events))
	}
	seen := map[int]bool{}
	counts := map[string]int{}
	for _, ev := range events {
		counts[ev.name]++
		switch ev.name {
		case "node":
			var n trace.Node
			mustJSON(t, ev.data, &n)
			if len(n.Parents) > 0 && !seen[n.Parents[0]] {
				t.Errorf("node %d arrived before its parent %d", n.ID, n.Parents[0])
			}
			seen[n.ID] = true
		case "node_update":
			var n trace.Node
			mustJSON(t, ev.data, &n)
			if !seen[n.ID] {
				t.Errorf("update of node %d before the node", n.ID)
			}
		case "model_call":
			if strings.Contains(ev.data, `"prompt"`) || strings.Contains(ev.data, `"messages"`) {
				t.Errorf("model_call event carries the prompt: %.200s", ev.data)
			}
		}
	}
	var res askBody
	mustJSON(t, events[len(events)-1].data, &res)
	if !res.Answer.Found || !strings.Contains(res.Answer.Text, "Ridley Scott") || len(res.Trace.Nodes) != counts["node"] {
		t.Fatalf("result %+v with %d node events", res.Answer, counts["node"])
	}
	if counts["node_update"] == 0 || counts["model_call"] != res.Trace.Totals.ModelCalls || counts["kg_call"] != res.Trace.Totals.KGCalls {
		t.Errorf("event counts %v, totals %+v", counts, res.Trace.Totals)
	}
}

func names(evs []sseEv) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.name)
	}
	return out
}

func mustJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("decode %.200s: %v", s, err)
	}
}

// waitFor polls cond until it holds or the (generous) deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAskConcurrencyLimit(t *testing.T) {
	ts := askServer(t, Config{MaxConcurrentRuns: 1, RetryAfter: 7 * time.Second}, newLexicalModel(time.Hour))
	ch, _, cancel := ts.stream(t, bladeRunner)
	if ev := <-ch; ev.name != "start" {
		t.Fatalf("first event %q", ev.name)
	}
	st, hdr, body := ts.do("POST", "/v1/ask", bladeRunner, nil)
	if st != 429 || hdr.Get("Retry-After") != "7" || !strings.Contains(string(body), "too many reasoning runs in flight (at most 1)") {
		t.Fatalf("second run: %d %q %s", st, hdr.Get("Retry-After"), body)
	}
	cancel()
	waitFor(t, "the slot to be released", func() bool { return ts.s.ask.inFlight() == 0 })
	_, metrics := ts.get("/metrics")
	if !strings.Contains(string(metrics), `grove_reasoning_runs_total{method="tot",outcome="rejected"} 1`) {
		t.Errorf("rejection not counted")
	}
}

func TestAskClientDisconnectCancelsRun(t *testing.T) {
	for _, path := range []string{"/v1/ask/stream", "/v1/ask"} {
		t.Run(path, func(t *testing.T) {
			model := newLexicalModel(time.Hour)
			ts := askServer(t, Config{}, model)
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.url+path, strings.NewReader(bladeRunner))
			done := make(chan error, 1)
			go func() {
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					_, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				done <- err
			}()
			waitFor(t, "the first model call", func() bool { return model.calls.Load() > 0 })
			cancel()
			<-done
			waitFor(t, "the run to be cancelled", func() bool { return model.ctxErrs.Load() > 0 && ts.s.ask.inFlight() == 0 })
			_, metrics := ts.get("/metrics")
			if !strings.Contains(string(metrics), `grove_reasoning_runs_total{method="tot",outcome="cancelled"} 1`) {
				t.Errorf("cancelled run not counted")
			}
			if path == "/v1/ask" {
				// The request is recorded as 499 (the stream had answered 200).
				waitFor(t, "the request to be recorded as 499", func() bool {
					_, m := ts.get("/metrics")
					return strings.Contains(string(m), `grove_http_request_duration_seconds_count{code="499",method="POST",route="POST /v1/ask"} 1`)
				})
				if !strings.Contains(ts.logs.String(), `"status":499`) {
					t.Errorf("access log lacks status 499")
				}
			}
		})
	}
}

func TestAskBudgetAndRedaction(t *testing.T) {
	leaky := &llm.Scripted{Rules: []llm.Rule{{Err: errors.New(
		`POST "https://models.internal.example/v1/chat/completions": 401 bad key sk-live-abcdefghijkl (org grove-secret-org)`)}}}
	cases := []struct {
		name   string
		cfg    Config
		model  llm.Model
		status int
		want   string
		banned []string
	}{
		{name: "budget", cfg: Config{Ask: AskLimits{MaxModelCalls: 2}}, model: newLexicalModel(0),
			status: 502, want: "model call budget of this run exhausted (at most 2 calls)"},
		{name: "redaction", model: leaky, status: 502, want: "reasoning failed",
			banned: []string{"models.internal.example", "sk-live", "grove-secret-org"}},
		{name: "timeout", cfg: Config{AskTimeout: 50 * time.Millisecond}, model: newLexicalModel(time.Hour),
			status: 504, want: "time limit of 50ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := startServer(t, c.cfg, testDB(t), Deps{Model: c.model, Reasoners: registry(),
				Redact: []string{"grove-secret-org"}})
			st, _, body := ts.do("POST", "/v1/ask", bladeRunner, nil)
			if st != c.status || !strings.Contains(string(body), c.want) {
				t.Fatalf("status %d body %.500s", st, body)
			}
			res := decode[askBody](t, body)
			if res.Trace == nil {
				t.Errorf("no partial trace")
			}
			for _, b := range c.banned {
				if strings.Contains(string(body), b) {
					t.Errorf("body leaks %q: %s", b, body)
				}
			}
		})
	}
}

func TestAskModelLimits(t *testing.T) {
	var seen atomic.Int64
	inner := llm.Scripted{Default: func(req llm.Request, i int) (string, error) {
		seen.Store(int64(req.MaxTokens))
		return "unused", nil
	}}
	m := budgetModel{inner: &inner, lim: AskLimits{MaxModelCalls: 10, MaxTokens: 100, MaxSamples: 2}, used: new(atomic.Int64)}
	ctx := context.Background()
	cases := []struct {
		req     llm.Request
		tokens  int64
		wantErr string
	}{
		{llm.Request{N: 1}, 100, ""},
		{llm.Request{N: 2, MaxTokens: 50}, 50, ""},
		{llm.Request{N: 1, MaxTokens: 5000}, 100, ""},
		{llm.Request{N: 3}, 0, "at most 2"},
	}
	for _, c := range cases {
		seen.Store(0)
		_, err := m.Generate(ctx, c.req)
		if (c.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.wantErr)) || seen.Load() != c.tokens {
			t.Errorf("Generate(%+v): err %v, max tokens %d", c.req, err, seen.Load())
		}
	}
}

// TestAskOutlivesRequestTimeout: a run may take longer than the request
// timeout of ordinary routes (it has its own, AskTimeout), streaming or not.
func TestAskOutlivesRequestTimeout(t *testing.T) {
	ts := askServer(t, Config{RequestTimeout: 200 * time.Millisecond}, newLexicalModel(60*time.Millisecond))
	st, _, body := ts.do("POST", "/v1/ask", bladeRunner, nil)
	if st != 200 || !strings.Contains(string(body), "Ridley Scott") {
		t.Fatalf("ask: %d %.300s", st, body)
	}
	ch, _, _ := ts.stream(t, bladeRunner)
	var last sseEv
	for ev := range ch {
		last = ev
	}
	if last.name != "result" || !strings.Contains(last.data, "Ridley Scott") {
		t.Fatalf("stream ended with %q %.300s", last.name, last.data)
	}
}

// TestAskReplyCap: a model reply longer than its max tokens can explain
// (16 bytes per token, at least 64 KiB) is dropped with an error naming
// the model; neither the answer, its trace nor the stream carries it.
func TestAskReplyCap(t *testing.T) {
	huge := &llm.Scripted{Default: func(llm.Request, int) (string, error) { return strings.Repeat("y", 200<<10), nil }}
	ts := askServer(t, Config{}, huge)
	st, _, body := ts.do("POST", "/v1/ask", bladeRunner, nil)
	if st != 502 || len(body) > 64<<10 || !strings.Contains(string(body), "sent a reply of 204800 bytes (sample 1), "+
		"over the limit of 65536 bytes for 1024 max tokens (does its server ignore max_tokens?); the reply was dropped") {
		t.Fatalf("status %d, %d bytes: %.500s", st, len(body), body)
	}
	ch, _, _ := ts.stream(t, bladeRunner)
	n := 0
	for ev := range ch {
		n += len(ev.data)
	}
	if n > 64<<10 {
		t.Errorf("the stream sent %d bytes", n)
	}

	cases := []struct {
		name      string
		maxTokens int
		reply     int
		ok        bool
	}{
		{"small reply", 100, 1000, true},
		{"at the floor", 100, 64 << 10, true},
		{"over the floor", 100, 64<<10 + 1, false},
		{"16 bytes per token", 8192, 8192 * 16, true},
		{"over 16 bytes per token", 8192, 8192*16 + 1, false},
		{"no max tokens: the server's", 0, 64<<10 + 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inner := &llm.Scripted{Default: func(llm.Request, int) (string, error) { return strings.Repeat("z", c.reply), nil }}
			_, err := llm.Bounded(inner, 1024).Generate(context.Background(), llm.Request{Prompt: "p", MaxTokens: c.maxTokens})
			if (err == nil) != c.ok {
				t.Fatalf("reply of %d bytes for %d tokens: %v", c.reply, c.maxTokens, err)
			}
		})
	}
}

// TestAskMaxTokens: every model call of a run is bounded by the server's
// max tokens, which is also the method's max_tokens parameter, so that
// raising it takes effect (the methods' default is 1024).
func TestAskMaxTokens(t *testing.T) {
	for _, tc := range []struct {
		name string
		max  int
		want float64
	}{
		{"default", 0, 1024},
		{"raised", 4096, 4096},
		{"lowered", 300, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := askServer(t, Config{Ask: AskLimits{MaxTokens: tc.max}}, newLexicalModel(0))
			st, _, body := ts.do("POST", "/v1/ask", `{"question":"Who directed Blade Runner?","method":"chain->tot"}`, nil)
			res := decode[askBody](t, body)
			if st != 200 || res.Trace == nil || res.Trace.Params[reasoner.ParamMaxTokens] != tc.want {
				t.Fatalf("status %d, params %v", st, res.Trace.Params)
			}
			for _, c := range res.Trace.ModelCalls {
				if float64(c.MaxTokens) != tc.want {
					t.Errorf("model call %d (%s): max tokens %d, want %g", c.Seq, c.Task, c.MaxTokens, tc.want)
				}
			}
		})
	}
}

// TestAskModelTimeout: a model call that times out (the model's own
// per-call timeout) while the run still has time is a 502 naming the
// model and the timeout; only the run's own deadline is the 504 of the
// server's time limit.
func TestAskModelTimeout(t *testing.T) {
	release := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // a model server that never answers
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer silent.Close()
	defer close(release)
	slow, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: silent.URL + "/v1", Model: "slow-model",
		Timeout: 100 * time.Millisecond, MaxRetries: 1, RetryBaseDelay: time.Millisecond, RetryMaxDelay: time.Millisecond,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		cfg    Config
		model  llm.Model
		status int
		want   []string
	}{
		{name: "model call timeout", cfg: Config{AskTimeout: time.Minute}, model: slow, status: 502,
			want: []string{"reasoning failed", `the model \"slow-model\" did not answer within its per-call timeout`,
				"attempt 2 of 2", "timed out after 100ms"}},
		{name: "run deadline", cfg: Config{AskTimeout: 300 * time.Millisecond}, model: newLexicalModel(time.Hour),
			status: 504, want: []string{"the run exceeded this server's time limit of 300ms"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := askServer(t, c.cfg, c.model)
			for _, path := range []string{"/v1/ask", "/v1/ask/stream"} {
				st, _, body := ts.do("POST", path, bladeRunner, nil)
				if path == "/v1/ask/stream" {
					st = c.status // the stream has begun with 200; its error event says why
				}
				for _, w := range c.want {
					if st != c.status || !strings.Contains(string(body), w) {
						t.Fatalf("%s: status %d, want %d with %q: %.800s", path, st, c.status, w, body)
					}
				}
				if c.status != 504 && strings.Contains(string(body), "time limit") {
					t.Errorf("%s: a model timeout reported as the run's time limit: %.500s", path, body)
				}
				if strings.Contains(string(body), silent.URL) {
					t.Errorf("%s: the model endpoint leaks: %.500s", path, body)
				}
			}
		})
	}
}
