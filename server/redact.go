package server

import (
	"regexp"
	"slices"
	"strings"

	"github.com/grove-kg/grove/reasoner/trace"
)

// redactor removes what clients must never see from error texts and
// traces: URLs (model endpoints), things shaped like API keys or bearer
// tokens, and the literal strings the host lists (endpoint, key, database
// directory).
type redactor struct {
	literals []string
}

var (
	urlPattern    = regexp.MustCompile(`(?i)\b(?:https?|wss?)://[^\s"'<>]+`)
	secretPattern = regexp.MustCompile(`(?i)\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}|(?i)bearer\s+[A-Za-z0-9._~+/=-]{8,}`)
)

// Redacted replaces every removed piece of text.
const Redacted = "[redacted]"

func newRedactor(literals []string) *redactor {
	var ls []string
	for _, l := range literals {
		if len(strings.TrimSpace(l)) >= 4 {
			ls = append(ls, l)
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
	return secretPattern.ReplaceAllString(s, Redacted)
}

// trace redacts the error texts of a trace in place and returns it. Model
// outputs and prompts are the server's own text and are left alone.
func (r *redactor) trace(t *trace.Trace) *trace.Trace {
	if t == nil {
		return nil
	}
	t.Error = r.text(t.Error)
	for i := range t.ModelCalls {
		t.ModelCalls[i].Error = r.text(t.ModelCalls[i].Error)
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
