package wikidata

import (
	"fmt"
	"log/slog"
	"runtime"
	"strings"

	"github.com/grove-kg/grove/ingest/source"
)

// Defaults for the pipeline limits.
const (
	// DefaultBatchBytes is the input size of one decode batch.
	DefaultBatchBytes = 1 << 20
	// DefaultMaxLineBytes bounds a single entity line (the largest Wikidata
	// entities are a few MiB).
	DefaultMaxLineBytes = 64 << 20
	// maxBatchLines bounds the number of lines in one batch.
	maxBatchLines = 1024
)

// Options configure a Reader. The embedded source.Options supplies
// SkipInvalid, OnSkip and Languages (the languages of labels, descriptions,
// aliases and sitelinks; default "en").
type Options struct {
	source.Options
	// AllRanks emits a direct edge for every non-deprecated statement
	// (preferred and normal), not only the best-ranked ("truthy") ones.
	// Deprecated statements are never emitted.
	AllRanks bool
	// KeepLexemes keeps lexemes (L ids); by default they are skipped.
	KeepLexemes bool
	// SkipSitelinks drops the Wikipedia article links of the chosen
	// languages.
	SkipSitelinks bool
	// IDs, when not empty, keeps only these items and lexemes. Properties
	// are always kept: their labels are the relation labels.
	IDs map[string]bool
	// ClaimFilter, when not empty, keeps only items and lexemes whose
	// statements match it. With both IDs and ClaimFilter an entity is kept
	// when either matches.
	ClaimFilter ClaimFilter
	// Workers is the number of decoding goroutines (default GOMAXPROCS).
	Workers int
	// BatchBytes is the input size of one decode batch (default 1 MiB).
	BatchBytes int
	// MaxLineBytes bounds one input line (default 64 MiB).
	MaxLineBytes int
	// Logger receives debug messages (default slog.Default()).
	Logger *slog.Logger
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if len(o.Languages) == 0 {
		o.Languages = []string{"en"}
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = DefaultBatchBytes
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// filtering reports whether an entity filter is active.
func (o *Options) filtering() bool { return len(o.IDs) > 0 || len(o.ClaimFilter) > 0 }

// ClaimFilter selects entities by their statements. All clauses must hold.
type ClaimFilter []ClaimClause

// ClaimClause holds when the entity has a non-deprecated statement of
// Property whose value is one of Values (any value when Values is empty);
// Negate inverts it.
type ClaimClause struct {
	Property string
	Values   []string
	Negate   bool
}

// ParseClaimFilter parses "P31:Q5,Q6&P17:Q183&~P570": clauses joined by
// "&", each "P" (has the property) or "P:v1,v2" (has one of the values,
// entity ids or exact strings), optionally negated with "~".
func ParseClaimFilter(s string) (ClaimFilter, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var f ClaimFilter
	for _, part := range strings.Split(s, "&") {
		c, err := parseClause(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("claim filter %q: %w", s, err)
		}
		f = append(f, c)
	}
	return f, nil
}

// parseClause parses one "~P31:Q5,Q6" clause.
func parseClause(s string) (ClaimClause, error) {
	var c ClaimClause
	if rest, ok := strings.CutPrefix(s, "~"); ok {
		c.Negate, s = true, strings.TrimSpace(rest)
	}
	prop, vals, hasVals := strings.Cut(s, ":")
	prop = strings.TrimSpace(prop)
	if !isEntityID(prop, 'P') {
		return c, fmt.Errorf("clause %q: %q is not a property id", s, prop)
	}
	c.Property = prop
	if !hasVals {
		return c, nil
	}
	for _, v := range strings.Split(vals, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return c, fmt.Errorf("clause %q: empty value", s)
		}
		c.Values = append(c.Values, v)
	}
	return c, nil
}

// ParseIDs parses a comma- or space-separated list of entity ids
// ("Q64, Q183 P17").
func ParseIDs(s string) (map[string]bool, error) {
	ids := map[string]bool{}
	for _, id := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
		if !isEntityID(id, 0) {
			return nil, fmt.Errorf("entity id list: %q is not a Q, P or L id", id)
		}
		ids[id] = true
	}
	return ids, nil
}

// isEntityID reports whether s is a letter (kind, or any of Q, P, L when
// kind is 0) followed by a positive decimal number without leading zeros.
func isEntityID(s string, kind byte) bool {
	if len(s) < 2 || s[1] == '0' {
		return false
	}
	if kind != 0 && s[0] != kind {
		return false
	}
	if kind == 0 && s[0] != 'Q' && s[0] != 'P' && s[0] != 'L' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
