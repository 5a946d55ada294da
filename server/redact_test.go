package server

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
)

// TestRedactText checks the redaction of error texts: the listed URL, its
// host and host:port, and the text of network errors, which name the
// host, its resolved address and the DNS server.
func TestRedactText(t *testing.T) {
	r := newRedactor([]string{"http://llm-secret.internal.invalid:8000/v1", "http://127.0.0.1:18799/v1"})
	cases := []struct {
		name, in, want string
	}{
		{"dns error", `openai chat m, task "t": attempt 1 of 1: Post "http://llm-secret.internal.invalid:8000/v1/chat/completions": ` +
			`dial tcp: lookup llm-secret.internal.invalid on 10.255.255.53:53: no such host`,
			`openai chat m, task "t": attempt 1 of 1: Post "[redacted]/chat/completions": the model server could not be reached`},
		{"connection refused", `Post "[redacted]/chat/completions": dial tcp 127.0.0.1:18799: connect: connection refused`,
			`Post "[redacted]/chat/completions": the model server could not be reached`},
		{"reset", `read tcp 10.0.0.2:51234->10.0.0.9:8000: read: connection reset by peer`, "the model server could not be reached"},
		{"bare dns error", `lookup other.internal on 10.0.0.53:53: server misbehaving`, "the model server could not be reached"},
		{"host alone", `model llm-secret.internal.invalid answered 500`, "model [redacted] answered 500"},
		{"host and port", `llm-secret.internal.invalid:8000 answered 500`, "[redacted] answered 500"},
		{"certificate", `tls: failed to verify certificate: x509: certificate is valid for a.internal, not b.internal`,
			"the model server could not be reached"},
		{"ordinary text", `model call budget of this run exhausted (at most 2 calls)`, "model call budget of this run exhausted (at most 2 calls)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := r.text(c.in); got != c.want {
				t.Errorf("text(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

// dnsFailure is a transport whose every request fails as a failed DNS
// lookup of the model host does.
type dnsFailure struct{}

func (dnsFailure) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host",
		Name: "llm-secret.internal.invalid", Server: "10.255.255.53:53", IsNotFound: true}}
}

// TestAskModelUnreachable runs /v1/ask and /v1/ask/stream against a model
// server that cannot be reached (a host that does not resolve; a closed
// port): neither the answer, its trace, the streamed events nor the model
// description may name the host, its port or an address.
func TestAskModelUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().(*net.TCPAddr)
	ln.Close()
	port := closed.AddrPort().Port()
	cases := []struct {
		name   string
		url    string
		client *http.Client
		banned []string
	}{
		{"unresolved host", "http://llm-secret.internal.invalid:8000/v1", &http.Client{Transport: dnsFailure{}},
			[]string{"llm-secret", "10.255.255.53", ":8000", "dial tcp", "lookup"}},
		{"closed port", closed.String(), nil,
			[]string{"127.0.0.1", fmt.Sprintf(":%d", port), "dial tcp", "connection refused"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := c.url
			if !strings.HasPrefix(url, "http") {
				url = "http://" + url + "/v1"
			}
			m, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: url, Model: "m", HTTPClient: c.client, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			ts := startServer(t, Config{}, testDB(t), Deps{Model: m, Reasoners: registry(), Redact: []string{url}})
			st, _, body := ts.do("POST", "/v1/ask", bladeRunner, nil)
			if st != 502 || !strings.Contains(string(body), unreachable) {
				t.Fatalf("ask: status %d: %.600s", st, body)
			}
			res := decode[askBody](t, body)
			if res.Model.Endpoint != Redacted || res.Model.Server != "" || res.Trace == nil ||
				res.Trace.Model.Endpoint != Redacted || res.Trace.Model.Server != "" ||
				len(res.Trace.ModelCalls) == 0 || !strings.Contains(res.Trace.ModelCalls[0].Error, unreachable) {
				t.Errorf("model %+v, trace %.600s", res.Model, body)
			}
			ch, _, _ := ts.stream(t, bladeRunner)
			var events strings.Builder
			for ev := range ch {
				events.WriteString(ev.name + " " + ev.data + "\n")
			}
			if !strings.Contains(events.String(), "event model_call") && !strings.Contains(events.String(), "model_call ") {
				t.Errorf("no model_call event: %.600s", events.String())
			}
			for _, b := range c.banned {
				if strings.Contains(string(body), b) {
					t.Errorf("answer names %q: %.800s", b, body)
				}
				if strings.Contains(events.String(), b) {
					t.Errorf("stream names %q: %.800s", b, events.String())
				}
			}
		})
	}
}

// TestRedactCacheSources: the origins of cached samples in a trace are
// hidden like the model's endpoint.
func TestRedactCacheSources(t *testing.T) {
	src := func() []llm.CacheSource {
		return []llm.CacheSource{{Endpoint: "http://<host>:8000/v1", Server: "0a1b2c3d", Model: "m", Samples: 2}}
	}
	tr := &trace.Trace{CacheSources: src(), ModelCalls: []trace.ModelCall{{CacheSources: src()}}}
	newRedactor(nil).trace(tr)
	for _, ss := range [][]llm.CacheSource{tr.CacheSources, tr.ModelCalls[0].CacheSources} {
		if ss[0].Endpoint != Redacted || ss[0].Server != "" || ss[0].Model != "m" || ss[0].Samples != 2 {
			t.Errorf("cache source not redacted: %+v", ss[0])
		}
	}
}
