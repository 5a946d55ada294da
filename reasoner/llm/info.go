package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/url"
	"strings"
)

// Info names the model behind a result, so that every trace, eval manifest
// and report says which model produced it. It never holds secrets: the
// endpoint's host, credentials and query are redacted.
type Info struct {
	// Name is the configured model name ("Qwen2.5-7B-Instruct") or a
	// policy's own name ("lexical-baseline (not an LLM)").
	Name string `json:"name"`
	// Provider says what produced the text: ProviderOpenAI, or a
	// non-LLM policy such as "lexical", "scripted" or "simulated".
	Provider string `json:"provider"`
	// Endpoint is the base URL with the host redacted
	// ("http://<host>:8000/v1"); empty for in-process policies.
	Endpoint string `json:"endpoint,omitempty"`
	// Server tells apart servers whose redacted endpoints read the same
	// (two machines serving on port 8000): ServerID of the full base URL,
	// a fingerprint that does not name the host. Empty for in-process
	// policies. Same ignores it, so runs recorded before it existed resume.
	Server string `json:"server,omitempty"`
	// NotLLM marks deterministic or simulated policies: their results
	// must never be read as a language model's.
	NotLLM bool `json:"not_llm,omitempty"`
	// Params are the generation settings the model layer applies to every
	// request (API endpoint kind, extra body fields, default max tokens).
	// Per-step settings (temperature, n) are the methods' parameters and are
	// recorded with them.
	Params map[string]any `json:"params,omitempty"`
}

// ProviderOpenAI is Info.Provider of OpenAI-compatible servers.
const ProviderOpenAI = "openai-compatible"

// String is a one-line description: "name (provider, endpoint)", with
// "NOT AN LLM" for non-LLM policies.
func (i Info) String() string {
	parts := []string{i.Provider}
	if i.Endpoint != "" {
		parts = append(parts, i.Endpoint)
	}
	if i.NotLLM {
		parts = append(parts, "NOT AN LLM")
	}
	return fmt.Sprintf("%s (%s)", i.Name, strings.Join(parts, ", "))
}

// Same reports whether a and b name the same model with the same settings.
func (i Info) Same(o Info) bool {
	return i.Name == o.Name && i.Provider == o.Provider && i.Endpoint == o.Endpoint && i.NotLLM == o.NotLLM &&
		fmt.Sprint(i.Params) == fmt.Sprint(o.Params)
}

// Describer is implemented by models that can name themselves. Wrappers
// (the cache, Stats) need not: Describe looks through Unwrap.
type Describer interface {
	Describe() Info
}

// Describe returns what m says about itself, looking through wrappers that
// have an Unwrap() Model method. A model that cannot name itself is
// described by its Go type, with Provider "unknown".
func Describe(m Model) Info {
	for m != nil {
		if d, ok := m.(Describer); ok {
			info := d.Describe()
			info.Params = maps.Clone(info.Params)
			return info
		}
		u, ok := m.(interface{ Unwrap() Model })
		if !ok {
			break
		}
		m = u.Unwrap()
	}
	if m == nil {
		return Info{Name: "none", Provider: "none"}
	}
	return Info{Name: fmt.Sprintf("%T", m), Provider: "unknown"}
}

// ServerID is a short fingerprint of a base URL's scheme, host, port and
// path (credentials and the query left out, the host lower-cased): equal
// for one server, different for two hosts behind the same redacted
// endpoint. "" when raw has no host.
func ServerID(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.TrimSuffix(u.EscapedPath(), "/")))
	return hex.EncodeToString(sum[:4])
}

// RedactEndpoint keeps what tells endpoints apart without naming a host:
// scheme, port and path ("https://<host>/v1", "http://<host>:8000/v1").
// Credentials, the host and the query are dropped.
func RedactEndpoint(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return "<redacted>"
	}
	host := "<host>"
	if p := u.Port(); p != "" {
		host += ":" + p
	}
	return u.Scheme + "://" + host + u.EscapedPath()
}
