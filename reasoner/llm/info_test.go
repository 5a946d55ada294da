package llm

import (
	"context"
	"strings"
	"testing"
)

func TestRedactEndpoint(t *testing.T) {
	cases := []struct{ in, want string }{
		{"http://gpu-7.internal:8000/v1", "http://<host>:8000/v1"},
		{"https://user:secret@api.example.com/v1?key=abc", "https://<host>/v1"},
		{"not a url", "<redacted>"},
		{"", "<redacted>"},
	}
	for _, c := range cases {
		got := RedactEndpoint(c.in)
		if got != c.want {
			t.Errorf("RedactEndpoint(%q) = %q, want %q", c.in, got, c.want)
		}
		for _, secret := range []string{"gpu-7", "internal", "secret", "example", "abc"} {
			if strings.Contains(got, secret) {
				t.Errorf("RedactEndpoint(%q) = %q leaks %q", c.in, got, secret)
			}
		}
	}
}

// opaque is a model that cannot name itself.
type opaque struct{}

func (opaque) Generate(context.Context, Request) (Response, error) { return Response{}, nil }

func TestDescribe(t *testing.T) {
	oa, err := NewOpenAI(OpenAIConfig{BaseURL: "http://10.1.2.3:8000/v1", Model: "qwen", APIKey: "sk-x"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		m    Model
		want Info
	}{
		{"openai behind stats", NewStats(oa), Info{Name: "qwen", Provider: ProviderOpenAI}},
		{"scripted", &Scripted{}, Info{Name: ScriptedModelName, Provider: "scripted", NotLLM: true}},
		{"unknown", NewStats(opaque{}), Info{Name: "llm.opaque", Provider: "unknown"}},
		{"nil", nil, Info{Name: "none", Provider: "none"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Describe(c.m)
			if got.Name != c.want.Name || got.Provider != c.want.Provider || got.NotLLM != c.want.NotLLM {
				t.Fatalf("Describe = %+v, want %+v", got, c.want)
			}
			if s := got.String(); strings.Contains(s, "10.1.2.3") || strings.Contains(s, "sk-x") {
				t.Fatalf("description leaks the endpoint or key: %s", s)
			}
		})
	}
}
