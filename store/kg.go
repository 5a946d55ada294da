// Package store defines Grove's knowledge-graph interface: the small set of
// operations that KG-QA reasoners need (entity search and linking, the
// relations of entities in both directions, the edges along a relation, node
// features and degrees, and links between graphs).
//
// The interface is deliberately backend-neutral. The local implementation is
// store/engine, a Cayley QuadStore built directly on Badger; store/sparqlkg
// serves the same interface from a remote SPARQL 1.1 endpoint and
// store/sqlkg from Cayley's SQL schema on PostgreSQL or CockroachDB.
// Reasoners depend only on the KG interface declared here, and every
// backend passes the same conformance suite, store/kgtest, which checks the
// contract written on KG below.
//
// Identifiers. Every node is identified by a string id that is unique across
// the whole database: an IRI without angle brackets ("Q64", "m.0f8l9c",
// "/en/blade_runner", "http://example.org/x") or a blank node ("_:film/b12").
// Each KG is a named graph; the quad label is the KG's name.
package store

import (
	"cmp"
	"context"
	"errors"
	"slices"
)

// Direction selects which side of an edge the given entities are on.
type Direction int

const (
	// Out follows edges from subject to object.
	Out Direction = iota
	// In follows edges from object back to subject.
	In
	// Both means Out and In together (only for listing relations and degrees).
	Both
)

// String returns "out", "in" or "both".
func (d Direction) String() string {
	switch d {
	case Out:
		return "out"
	case In:
		return "in"
	case Both:
		return "both"
	}
	return "invalid"
}

// MarshalText encodes the direction as "out", "in" or "both" (JSON too).
func (d Direction) MarshalText() ([]byte, error) {
	if d < Out || d > Both {
		return nil, errors.New("invalid direction")
	}
	return []byte(d.String()), nil
}

// UnmarshalText parses "out", "in" or "both".
func (d *Direction) UnmarshalText(b []byte) error {
	v, err := ParseDirection(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// ParseDirection parses "out", "in" or "both".
func ParseDirection(s string) (Direction, error) {
	switch s {
	case "out", "":
		return Out, nil
	case "in":
		return In, nil
	case "both":
		return Both, nil
	}
	return 0, errors.New(`direction must be "out", "in" or "both"`)
}

// ErrNotFound is returned (wrapped) when an entity or graph does not exist.
var ErrNotFound = errors.New("not found")

// ErrDiskFull is returned (wrapped) when a write is refused or stopped
// because the database's disk is full or nearly so. The wrapping error says
// what was kept: a refused transaction wrote nothing, a stopped bulk load
// left the database as it was before the load.
var ErrDiskFull = errors.New("disk full")

// ErrTooManyFiles is returned (wrapped) when a write is refused or stopped
// because the process is at its limit of open files or memory maps; the
// wrapping error names the limit to raise.
var ErrTooManyFiles = errors.New("too many open files")

// ErrUnavailable is matched (errors.Is) by the error of a call the store's
// database did not answer in time on its own (the SQL backend's idle bound,
// sqlkg.ErrIdleTimeout): the store is unreachable or stopped, not the
// request wrong. The server answers it with a 503.
var ErrUnavailable = errors.New("store unavailable: the database did not answer (stopped, unreachable, or silent past the idle bound)")

// ErrOutcomeUnknown is matched (errors.Is) by the error of a write whose
// outcome the store cannot tell: its context ended while the database
// committed it (the SQL backend's sqlkg.ErrCommitUnknown), so it may have
// been applied. The server says so instead of "nothing was written".
var ErrOutcomeUnknown = errors.New("the write's outcome is unknown")

// GraphInfo describes one named graph (one KG).
type GraphInfo struct {
	Name      string `json:"name"`
	Quads     int64  `json:"quads"`
	Relations int64  `json:"relations"`
	// Labels counts the entries of the graph's label index (an entity and
	// one of its labels or aliases, normalized) on badger; the sql and
	// sparql backends do not count them and report 0.
	Labels int64 `json:"labels"`
}

// Entity is a node with its human-readable description.
type Entity struct {
	ID          string   `json:"id"`
	Label       string   `json:"label,omitempty"`
	Description string   `json:"description,omitempty"`
	Aliases     []string `json:"aliases,omitempty"`
	Graphs      []string `json:"graphs,omitempty"`
	// Literal is set when the node is a literal value rather than an entity;
	// then Label holds the value rendered for humans.
	Literal bool `json:"literal,omitempty"`
}

// Name returns the label, or the id when the entity has no label.
func (e Entity) Name() string {
	if e.Label != "" {
		return e.Label
	}
	return e.ID
}

// Candidate is one result of Search. Its Entity.Graphs is [Graph], the
// graph whose label or alias matched, not every graph the entity is in
// (Entity lists those).
type Candidate struct {
	Entity
	Graph string `json:"graph"`
	// Matched is the label or alias that matched the query text.
	Matched string `json:"matched"`
	// Match is "exact", "prefix", "fuzzy" (an edit distance of 1 or 2:
	// the embedded store only) or "word" (the SPARQL backend: a hit of the
	// endpoint's word index, bif:contains or ql:contains-word, or of the
	// wikidata-api search, that is neither exact nor a prefix).
	Match string `json:"match"`
	// Distance is the edit distance between query and Matched (0 for
	// exact); for "word" it ranks the hit, it is not how the hit matched.
	Distance int `json:"distance"`
	// Score ranks candidates: higher is better.
	Score float64 `json:"score"`
}

// Relation is a relation type an entity set has in one direction.
type Relation struct {
	ID           string    `json:"id"`
	Label        string    `json:"label"`
	InverseLabel string    `json:"inverse_label"`
	Dir          Direction `json:"dir"`
	Graph        string    `json:"graph"`
	// Count is the number of edges of this relation, in this direction, from
	// the given entities.
	Count int64 `json:"count"`
	// AtLeast marks Count as a lower bound: a remote backend capped the
	// count of a hub's edges rather than let the aggregation time out.
	AtLeast bool `json:"at_least,omitempty"`
	// Hidden marks relations that reasoners normally hide (external ids,
	// labels, links).
	Hidden bool `json:"hidden,omitempty"`
}

// DisplayLabel is Label for outgoing relations and InverseLabel for incoming.
func (r Relation) DisplayLabel() string {
	if r.Dir == In {
		return r.InverseLabel
	}
	return r.Label
}

// Edge is one (subject, relation, object) fact. Subject and Object are always
// in the direction stored in the graph, whatever direction was followed.
type Edge struct {
	Subject  Entity `json:"subject"`
	Relation string `json:"relation"`
	// RelationLabel is the forward label of Relation ("directed by").
	RelationLabel string `json:"relation_label"`
	Object        Entity `json:"object"`
	Graph         string `json:"graph"`
	// Qualifiers qualify the statement (Wikidata "start time: 2003"). A
	// fact made by several statements (George Washington held one position
	// twice, 1775-1788 and from 1798) has the qualifiers of each: every
	// qualifier names its statement node in Feature.Statement, the
	// qualifiers of one statement are consecutive, and Statements returns
	// them grouped. Never read two statements' qualifiers as one: their
	// dates cannot be paired.
	Qualifiers []Feature `json:"qualifiers,omitempty"`
}

// Statements returns the qualifiers grouped per statement node, in order:
// one group per distinct Feature.Statement, by first appearance (the
// qualifiers without a statement node form one group of their own).
func (e Edge) Statements() [][]Feature { return GroupQualifiers(e.Qualifiers) }

// GroupQualifiers groups qualifiers per statement node (see
// Edge.Statements); the groups hold copies of the features.
func GroupQualifiers(fs []Feature) [][]Feature {
	var out [][]Feature
	index := map[string]int{}
	for _, f := range fs {
		i, ok := index[f.Statement]
		if !ok {
			i = len(out)
			index[f.Statement] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], f)
	}
	return out
}

// SortQualifiers orders qualifiers by statement node, then relation,
// value id and value, in place: each statement's qualifiers are
// consecutive and the order does not depend on how a backend read them.
func SortQualifiers(fs []Feature) {
	slices.SortFunc(fs, func(a, b Feature) int {
		return cmp.Or(cmp.Compare(a.Statement, b.Statement), cmp.Compare(a.Relation, b.Relation),
			cmp.Compare(a.ValueID, b.ValueID), cmp.Compare(a.Value, b.Value))
	})
}

// Feature is a literal-valued property of a node ("release date: 1982"),
// or a qualifier of an edge.
type Feature struct {
	Relation string `json:"relation"`
	Name     string `json:"name"`
	Value    string `json:"value"`
	Graph    string `json:"graph"`
	// ValueID is the id of the value when it is a node rather than a
	// literal (a qualifier "replaces: Q888614"); Value is then its label,
	// or the id itself when the node has no label.
	ValueID string `json:"value_id,omitempty"`
	// Statement is the statement node a qualifier belongs to (see
	// Edge.Qualifiers); "" for a node's own features.
	Statement string `json:"statement,omitempty"`
	// Qualifiers qualify the statements behind a node's own feature
	// ("population: 67,000,000" with "point in time: 2021"), as
	// Edge.Qualifiers do an edge: each statement's together, naming its
	// node; GroupQualifiers groups them. A qualifier has none. Every
	// backend fills it; the SPARQL backend when its dialect names the
	// statement prefixes (README, "What differs between the backends").
	Qualifiers []Feature `json:"qualifiers,omitempty"`
}

// KG is the interface reasoners use. Every backend (store/engine, a SPARQL
// endpoint, Cayley's SQL store) honours the same contract, which
// store/kgtest checks:
//
//   - Concurrency: implementations are safe for concurrent use, including
//     reads while the backend is being written; a read sees each write
//     entirely or not at all.
//   - Ownership: every returned slice, and every slice inside a returned
//     value (Entity.Aliases, Entity.Graphs, Edge.Qualifiers, ...), belongs to
//     the caller, who may modify it. Implementations never return a slice
//     they keep (a cache entry, say) and never keep a slice a caller passed in.
//   - Ids are exact: "Q30" never matches "Q3012". Relation ids are the
//     predicate ids as stored (the same form as entity ids).
//   - Limits: limit <= 0 means no limit, for every method that takes one.
//     A positive limit caps the result length and bounds the work done: a
//     hub with millions of edges costs O(limit), not O(degree).
//   - Unknown ids: a single-id method (Entity, Neighbors, Degree, Features,
//     SameAs) returns an error wrapping ErrNotFound when the id does not occur
//     in the database. Batch methods (Relations, Edges) skip unknown ids: one
//     bad id never fails the batch, and a batch of only unknown ids returns an
//     empty result. An unknown relation (in Edges, Neighbors, Degree) has no
//     edges: empty result or 0, no error.
//   - Hidden and literal: relation "" in Neighbors and Degree means every
//     relation that Relations lists with Hidden false (label, alias and
//     description predicates, links such as owl:sameAs and grove:
//     predicates are listed as Hidden). Degree counts edges, literal-valued ones included, exactly as
//     the Count of those relations would add up; Neighbors returns distinct
//     non-literal nodes only. A named relation is followed whether hidden or
//     not.
//   - Errors: invalid arguments (a bad Direction) return a descriptive error;
//     a cancelled ctx returns an error wrapping ctx.Err(). A remote backend
//     wraps transport failures with the endpoint and never panics.
//   - Close: a backend holding resources implements io.Closer. Close is
//     idempotent; after it every method returns an error wrapping ErrClosed.
//   - Read-only backends: writers are optional interfaces; a backend that
//     cannot be written returns an error wrapping ErrReadOnly when asked to.
type KG interface {
	// Graphs lists the named graphs (KGs) in the database, sorted by name.
	Graphs(ctx context.Context) ([]GraphInfo, error)
	// Search returns up to limit entity candidates for a mention in one graph
	// ("" = all graphs) by exact, prefix and fuzzy match over labels and
	// aliases, best first. A graph that does not exist returns ErrNotFound.
	Search(ctx context.Context, graph, text string, limit int) ([]Candidate, error)
	// Entity returns an entity's label, description, aliases and graphs. An id
	// that does not occur in the database returns an error wrapping ErrNotFound.
	Entity(ctx context.Context, id string) (Entity, error)
	// Relations lists the relation types of the given entities in direction
	// dir (Out, In or Both), with edge counts summed over the entities, in a
	// deterministic order (graph, direction, label, id).
	Relations(ctx context.Context, ids []string, dir Direction) ([]Relation, error)
	// Edges returns up to limit edges of relation from the given entities in
	// direction dir (Out or In), in a deterministic order: by input id, then
	// as stored. The stored order follows term ids numbered at load, so it
	// is the same for one database and for the same input loaded the same
	// way, but differs between loads of the same data by other paths (a
	// bulk and an incremental load), and so does which edges limit keeps.
	Edges(ctx context.Context, ids []string, relation string, dir Direction, limit int) ([]Edge, error)
	// Neighbors returns up to limit distinct non-literal nodes reached from id
	// along relation ("" = every non-hidden relation) in direction dir (Out,
	// In or Both).
	Neighbors(ctx context.Context, id, relation string, dir Direction, limit int) ([]Entity, error)
	// Degree counts the edges of id along relation ("" = every non-hidden
	// relation) in direction dir (Out, In or Both).
	Degree(ctx context.Context, id, relation string, dir Direction) (int64, error)
	// Features returns the literal-valued properties of a node, excluding its
	// labels and aliases (which are its name, see Entity).
	Features(ctx context.Context, id string) ([]Feature, error)
	// SameAs returns the ids of the same entity in graph (cross-KG links), or
	// in every other graph when graph is "".
	SameAs(ctx context.Context, id, graph string) ([]Link, error)
}

// ErrClosed is returned (wrapped) by every method of a KG after Close.
var ErrClosed = errors.New("knowledge graph is closed")

// ErrReadOnly is returned (wrapped) when a read-only backend is asked to
// write.
var ErrReadOnly = errors.New("knowledge graph backend is read-only")

// ErrUnstorable is returned (wrapped) when a write holds a value the
// backend cannot store, such as a NUL character in PostgreSQL text; the
// error names the quad and says why, and nothing of the write was
// applied. It is the client's data, not a fault of the store.
var ErrUnstorable = errors.New("the backend cannot store this value")

// ErrNoQuadStore is returned (wrapped) when Cayley's queries (Gizmo,
// GraphQL, MQL), quad reads or quad writes are asked of a backend that has
// no Cayley quad store: the SPARQL backend, whose endpoint answers SPARQL
// itself.
var ErrNoQuadStore = errors.New("no Cayley quad store")

// Link says that an entity is the same as Target in Graph.
type Link struct {
	Target Entity `json:"target"`
	Graph  string `json:"graph"`
	// Via is the predicate that established the link (owl:sameAs, P434, ...).
	Via string `json:"via"`
}
