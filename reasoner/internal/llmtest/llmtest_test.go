package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

func TestServer(t *testing.T) {
	srv := NewServer(t, HonourN(func(r *Request, i int) string { return r.Text() }))
	tests := []struct {
		name, path, body string
		status           int
		check            func(map[string]any) bool
	}{
		{"chat with n", "/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"n":2}`, 200,
			func(m map[string]any) bool { return len(m["choices"].([]any)) == 2 && m["model"] == "m" }},
		{"completion prompt array", "/completions", `{"model":"m","prompt":["p1"]}`, 200,
			func(m map[string]any) bool { return m["choices"].([]any)[0].(map[string]any)["text"] == "p1" }},
		{"unknown path", "/embeddings", `{}`, 404, func(m map[string]any) bool { return m["error"] != nil }},
		{"bad json", "/chat/completions", `{`, 400, func(m map[string]any) bool { return m["error"] != nil }},
		{"chat without messages", "/chat/completions", `{"model":"m"}`, 400, func(m map[string]any) bool { return m["error"] != nil }},
	}
	for _, tt := range tests {
		status, body := post(t, srv.BaseURL()+tt.path, tt.body)
		if status != tt.status || !tt.check(body) {
			t.Errorf("%s: status %d body %v", tt.name, status, body)
		}
	}
	if srv.RequestCount() != 2 || !srv.Requests()[0].HasN || srv.MaxInFlight() != 1 {
		t.Errorf("recorded %d requests", srv.RequestCount())
	}
}

func TestServerErrorReply(t *testing.T) {
	srv := NewServer(t, func(*Request) Reply {
		return Reply{Status: 429, Message: "slow", Header: map[string]string{"Retry-After": "3"}}
	})
	resp, err := http.Post(srv.BaseURL()+"/completions", "application/json", strings.NewReader(`{"prompt":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" {
		t.Fatalf("status %d, header %v", resp.StatusCode, resp.Header)
	}
}
