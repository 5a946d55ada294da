package server

import (
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
)

// redactor removes what clients must never see from error texts and
// traces: URLs (model endpoints), things shaped like API keys or bearer
// tokens, the literal strings the host lists (endpoint, key, database
// directory) and, for a listed URL, its host and host:port, and the text
// of network errors (which name the host, its resolved address and the
// DNS server).
type redactor struct {
	literals []string
}

var (
	urlPattern    = regexp.MustCompile(`(?i)\b(?:https?|wss?)://[^\s"'<>]+`)
	secretPattern = regexp.MustCompile(`(?i)\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}|(?i)bearer\s+[A-Za-z0-9._~+/=-]{8,}`)
	// netErrPattern matches the text of a *net.OpError ("dial tcp
	// 10.0.0.7:8000: connect: connection refused", "dial tcp: lookup
	// llm.internal on 10.0.0.53:53: no such host", "read tcp a->b: ..."),
	// of a bare *net.DNSError and of certificate errors, to the end of the
	// line: each names hosts or addresses.
	netErrPattern = regexp.MustCompile(`\b(?:(?:dial|read|write) (?:tcp|udp|ip|unix)[46]?\b|lookup \S+ on \S+:|lookup \S+: no such host|tls: |x509: )[^\n]*`)
)

// unreachable replaces the text of a network error.
const unreachable = "the model server could not be reached"

// Redacted replaces every removed piece of text.
const Redacted = "[redacted]"

func newRedactor(literals []string) *redactor {
	var ls []string
	add := func(l string) {
		if len(strings.TrimSpace(l)) >= 4 && !slices.Contains(ls, l) {
			ls = append(ls, l)
		}
	}
	for _, l := range literals {
		add(l)
		// A listed URL's host also appears without the URL (in network
		// errors and the like).
		if u, err := url.Parse(strings.TrimSpace(l)); err == nil && u.Host != "" {
			add(u.Host)
			add(u.Hostname())
		}
	}
	// Longest first, so a key inside a URL is removed whole.
	slices.SortFunc(ls, func(a, b string) int { return len(b) - len(a) })
	return &redactor{literals: ls}
}

// text redacts one string.
func (r *redactor) text(s string) string {
	if s == "" {
		return s
	}
	for _, l := range r.literals {
		s = strings.ReplaceAll(s, l, Redacted)
	}
	s = urlPattern.ReplaceAllString(s, Redacted)
	s = secretPattern.ReplaceAllString(s, Redacted)
	return netErrPattern.ReplaceAllString(s, unreachable)
}

// model hides where a model is served: its endpoint (llm.RedactEndpoint
// keeps the port and path) becomes Redacted; the name and provider stay.
func (r *redactor) model(i llm.Info) llm.Info {
	if i.Endpoint != "" {
		i.Endpoint = Redacted
	}
	i.Server = ""
	return i
}

// sources hides where cached samples were produced, as model does.
func (r *redactor) sources(ss []llm.CacheSource) []llm.CacheSource {
	for i := range ss {
		if ss[i].Endpoint != "" {
			ss[i].Endpoint = Redacted
		}
		ss[i].Server = ""
	}
	return ss
}

// trace redacts the model descriptions and error texts of a trace in
// place and returns it. Model outputs and prompts are the server's own
// text and are left alone.
func (r *redactor) trace(t *trace.Trace) *trace.Trace {
	if t == nil {
		return nil
	}
	t.Model = r.model(t.Model)
	if t.Evaluator != nil {
		ev := r.model(*t.Evaluator)
		t.Evaluator = &ev
	}
	t.Error = r.text(t.Error)
	t.CacheSources = r.sources(t.CacheSources)
	for i := range t.ModelCalls {
		t.ModelCalls[i].Error = r.text(t.ModelCalls[i].Error)
		t.ModelCalls[i].CacheSources = r.sources(t.ModelCalls[i].CacheSources)
	}
	for i := range t.KGCalls {
		t.KGCalls[i].Error = r.text(t.KGCalls[i].Error)
	}
	for i := range t.Warnings {
		t.Warnings[i].Message = r.text(t.Warnings[i].Message)
	}
	for i := range t.Nodes {
		t.Nodes[i].Error = r.text(t.Nodes[i].Error)
	}
	return t
}
