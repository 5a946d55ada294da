package grbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/cayleygraph/quad"
	json "github.com/goccy/go-json"

	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store"
)

// Options configure a Reader.
type Options struct {
	// Options are the shared reader options: SkipInvalid and OnSkip are
	// honoured (a bad node, or an edge whose target cannot be resolved, is
	// skipped whole). Languages and Graph are not used: GRBench has neither
	// language tags nor blank nodes.
	source.Options
	// TextFeatures maps a node type to the features tried in order for its
	// label (rdfs:label, the text entity search matches). Types not listed
	// use the GRBench defaults, then name, title, full_name, case_name,
	// label. An empty list gives the type no label.
	TextFeatures map[string][]string
	// EdgeTargets maps an edge type to the node type of its neighbors, as
	// "type.edge" (edges of nodes of that type) or "edge" (any node). It
	// overrides the built-in GRBench table.
	EdgeTargets map[string]string
	// NoDefaults disables the built-in GRBench tables for edges and text
	// features; the "Source-verb-Target" rule and resolution by id remain.
	NoDefaults bool
	// Logger receives a summary per file; nil means slog.Default().
	Logger *slog.Logger
}

// Reader reads GRBench graph.json files. It implements source.Reader.
type Reader struct {
	opts Options
}

// New returns a Reader.
func New(opts Options) *Reader {
	return &Reader{opts: opts}
}

// Read streams the graph in r node by node and writes its quads to w. Bad
// nodes are reported as *source.Error naming the node type, id, field and
// byte offset, through Options.Skip; malformed JSON and errors from w stop
// the read (errors from w positioned at the node's line, field and byte
// offset).
func (rd *Reader) Read(ctx context.Context, name string, r io.Reader, w source.Writer) error {
	run := &run{
		opts:  rd.opts,
		name:  name,
		w:     w,
		res:   newResolver(rd.opts.EdgeTargets, rd.opts.NoDefaults),
		ids:   newIDIndex(),
		said:  map[string]bool{},
		texts: map[string]bool{},
		preds: map[string]quad.Value{},
		types: map[string]quad.Value{},
		lines: &lineIndex{r: r},
	}
	dec := json.NewDecoder(newNaNFilter(run.lines))
	dec.UseNumber()
	if err := run.document(ctx, dec); err != nil {
		return err
	}
	if err := run.finish(ctx); err != nil {
		return err
	}
	logger := rd.opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	logger.Debug("grbench: read graph", "file", name, "nodes", run.nodes,
		"types", len(run.ids.types), "quads", run.quads, "resolved_by_id", run.byID, "skipped", run.skipped)
	return nil
}

// run is the state of one Read.
type run struct {
	opts Options
	name string
	w    source.Writer
	res  *resolver
	ids  *idIndex
	// lines gives the line of a node's offset for write errors.
	lines *lineIndex
	// deferred holds edges whose target type is decided after reading.
	deferred []deferredEdge
	// said records predicates whose label ("pred") and inverse label
	// ("\x00pred") were written; texts records "type\x00feature" pairs
	// whose grove:textFeature was written.
	said, texts map[string]bool
	// preds and types hold one quad value per predicate and type name.
	preds, types map[string]quad.Value

	nodes, quads, byID, skipped int64
}

// deferredEdge is an edge of an unknown edge type, kept until every node id
// is known.
type deferredEdge struct {
	subj     quad.Value
	from     string
	node     string
	edge     string
	neighbor string
	index    int
	off      int64
	line     int64
}

// errorf builds a positioned error at a node field and byte offset.
func (r *run) errorf(field string, off int64, format string, args ...any) *source.Error {
	return source.Errorf(r.name, 0, field, "at byte %d: "+format, append([]any{off}, args...)...)
}

// skip reports a bad record; it returns non-nil when the read must stop.
func (r *run) skip(err *source.Error) error {
	r.skipped++
	return r.opts.Skip(err)
}

// document reads the top-level object, one "<type>_nodes" section at a time.
func (r *run) document(ctx context.Context, dec *json.Decoder) error {
	if err := r.expect(dec, '{', "top level"); err != nil {
		return err
	}
	for dec.More() {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return r.errorf("top level", off, "%w", err)
		}
		key, _ := tok.(string)
		if err := r.section(ctx, dec, key, off); err != nil {
			return err
		}
	}
	if err := r.expect(dec, '}', "top level"); err != nil {
		return err
	}
	off := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return r.errorf("top level", off, "unexpected data after the graph object (a file holds one JSON object)")
	}
	return nil
}

// expect reads one delimiter token.
func (r *run) expect(dec *json.Decoder, want json.Delim, field string) error {
	off := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return r.errorf(field, off, "want %q: %w", want, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return r.errorf(field, off, "want %q, got %v", want, tok)
	}
	return nil
}

// section reads the value of one top-level key: an object of nodes.
func (r *run) section(ctx context.Context, dec *json.Decoder, key string, off int64) error {
	typ, ok := strings.CutSuffix(key, "_nodes")
	if !ok || typ == "" || strings.Contains(typ, "/") || escapeID(typ) != typ {
		bad := r.errorf(fmt.Sprintf("%q", key), off, `top-level key must be "<type>_nodes" with a type name free of "/", spaces and IRI-reserved characters`)
		if err := r.skip(bad); err != nil {
			return err
		}
		if err := skipValue(dec); err != nil {
			return r.errorf(fmt.Sprintf("%q", key), off, "%w", err)
		}
		return nil
	}
	ti, err := r.ids.addType(typ)
	if err != nil {
		return r.errorf(key, off, "%w", err)
	}
	if err := r.expect(dec, '{', key); err != nil {
		return err
	}
	for dec.More() {
		if r.nodes%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("grbench: %s: %w", r.name, err)
			}
		}
		if err := r.node(dec, typ, ti); err != nil {
			return err
		}
	}
	return r.expect(dec, '}', key)
}

// node decodes one node and writes its quads, or skips it if it is bad.
func (r *run) node(dec *json.Decoder, typ string, ti uint16) error {
	off := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return r.errorf(typ+"_nodes", off, "%w", err)
	}
	id, _ := tok.(string)
	off = dec.InputOffset()
	var v any
	if err := dec.Decode(&v); err != nil {
		return r.errorf(nodePath(typ, id), off, "%w", err)
	}
	r.nodes++
	n, bad := r.build(typ, id, v)
	if bad != nil {
		return r.skip(r.errorf(nodePath(typ, id)+"."+bad.path, off, "%w", bad.err))
	}
	r.ids.add(id, ti)
	return r.emit(n, nodePos{path: nodePath(typ, id), off: off, line: r.lines.lineAt(off)})
}

// nodePos is where a node starts, for the errors of its writes.
type nodePos struct {
	path      string // paper_nodes["53e9"]
	off, line int64
}

// writeErr positions the writer's error (a backend check refusing a
// value, such as a NUL for PostgreSQL) at the node's line, field and byte
// offset: graph.json:3: paper_nodes["53e9"].features.title: at byte 60: ...
func (r *run) writeErr(pos nodePos, field string, err error) error {
	return source.Errorf(r.name, pos.line, pos.path+field, "at byte %d: %w", pos.off, err)
}

// nodePath names a node in errors: paper_nodes["123"].
func nodePath(typ, id string) string { return fmt.Sprintf("%s_nodes[%q]", typ, id) }

// builtNode is a validated node ready to be written.
type builtNode struct {
	typ, id     string
	subj        quad.Value
	label, text string // label and the feature it came from
	features    []featureValue
	edges       []edge
}

// edge is one neighbor of a node; target is its node type, "" if deferred.
type edge struct {
	pred, target, id string
	index            int
}

// build validates a decoded node and resolves what can be resolved now.
func (r *run) build(typ, id string, v any) (*builtNode, *fieldError) {
	if id == "" {
		return nil, &fieldError{"id", errors.New("empty node id")}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &fieldError{"node", fmt.Errorf("want an object with features and neighbors, got %s", kindOf(v))}
	}
	for _, k := range sortedKeys(m) {
		if k != "features" && k != "neighbors" {
			return nil, &fieldError{k, errors.New(`unknown node key (want "features" and "neighbors")`)}
		}
	}
	n := &builtNode{typ: typ, id: id, subj: nodeIRI(typ, id)}
	if err := r.buildFeatures(n, m["features"]); err != nil {
		return nil, err
	}
	if err := r.buildEdges(n, m["neighbors"]); err != nil {
		return nil, err
	}
	return n, nil
}

// buildFeatures flattens the features and picks the label.
func (r *run) buildFeatures(n *builtNode, v any) *fieldError {
	if v == nil {
		return nil
	}
	fm, ok := v.(map[string]any)
	if !ok {
		return &fieldError{"features", fmt.Errorf("want an object, got %s", kindOf(v))}
	}
	feats, err := flattenFeatures(fm, nil)
	if err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return fe
		}
		return &fieldError{"features", err}
	}
	n.features = feats
	for _, name := range r.textFeatures(n.typ) {
		if s := textOf(feats, name); s != "" {
			n.label, n.text = s, name
			break
		}
	}
	return nil
}

// textFeatures returns the label features tried for a node type.
func (r *run) textFeatures(typ string) []string {
	if names, ok := r.opts.TextFeatures[typ]; ok {
		return names
	}
	if !r.opts.NoDefaults {
		if names, ok := defaultTextFeatures[typ]; ok {
			return names
		}
	}
	return genericTextFeatures
}

// buildEdges reads the neighbors object: edge type -> list of ids, or edge
// type -> object of lists (GRBench's "Dict" form, e.g. citations grouped
// by depth), which is flattened.
func (r *run) buildEdges(n *builtNode, v any) *fieldError {
	if v == nil {
		return nil
	}
	nm, ok := v.(map[string]any)
	if !ok {
		return &fieldError{"neighbors", fmt.Errorf("want an object, got %s", kindOf(v))}
	}
	for _, pred := range sortedKeys(nm) {
		path := "neighbors." + pred
		if pred == "" {
			return &fieldError{"neighbors", errors.New("empty edge type")}
		}
		ids, err := neighborIDs(path, nm[pred], nil)
		if err != nil {
			return err
		}
		target := r.res.target(n.typ, pred)
		for i, id := range ids {
			n.edges = append(n.edges, edge{pred: pred, target: target, id: id, index: i})
		}
	}
	return nil
}

// neighborIDs collects the ids of one edge type. Ids are strings; numbers
// are accepted and kept in their JSON form.
func neighborIDs(path string, v any, out []string) ([]string, *fieldError) {
	switch x := v.(type) {
	case nil:
		return out, nil
	case []any:
		for i, e := range x {
			var id string
			switch s := e.(type) {
			case string:
				id = s
			case json.Number:
				id = string(s)
			default:
				return nil, &fieldError{fmt.Sprintf("%s[%d]", path, i), fmt.Errorf("neighbor id must be a string, got %s", kindOf(e))}
			}
			if id == "" {
				return nil, &fieldError{fmt.Sprintf("%s[%d]", path, i), errors.New("empty neighbor id")}
			}
			out = append(out, id)
		}
		return out, nil
	case map[string]any:
		for _, k := range sortedKeys(x) {
			var err *fieldError
			if out, err = neighborIDs(path+"."+k, x[k], out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, &fieldError{path, fmt.Errorf("want a list of neighbor ids, got %s", kindOf(v))}
}

// kindOf names a decoded JSON value's kind for error messages.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// skipValue consumes the value whose first token is next.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("skipping the value: %w", err)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// nodeIRI is the id of a node: "<type>/<id>", the id percent-escaped where
// it holds bytes that IRIs cannot carry.
func nodeIRI(typ, id string) quad.IRI { return quad.IRI(typ + "/" + escapeID(id)) }

// escapeID percent-escapes control bytes, space, '%' and the characters
// that N-Triples forbids in IRIs; other ids are returned unchanged.
func escapeID(id string) string {
	if !strings.ContainsFunc(id, func(c rune) bool { return c < 0x80 && mustEscape(byte(c)) }) {
		return id
	}
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if mustEscape(c) {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func mustEscape(c byte) bool {
	return c <= ' ' || c == 0x7f || strings.IndexByte(`<>"{}|^`+"`"+`\%`, c) >= 0
}

// predicate metadata and node quads ------------------------------------------

// emit writes a built node's quads; edges of unresolved type are deferred.
// A write error names the node's field.
func (r *run) emit(n *builtNode, pos nodePos) error {
	if err := r.write(n.subj, store.GroveNodeType, r.typeName(n.typ)); err != nil {
		return r.writeErr(pos, "", err)
	}
	if n.label != "" {
		if err := r.textFeature(n.typ, n.text); err != nil {
			return r.writeErr(pos, ".features."+n.text, err)
		}
		if err := r.write(n.subj, store.RDFSLabel, quad.String(n.label)); err != nil {
			return r.writeErr(pos, ".features."+n.text, err)
		}
	}
	for _, f := range n.features {
		if err := r.describe(f.name, false); err != nil {
			return r.writeErr(pos, ".features."+f.name, err)
		}
		if err := r.write(n.subj, f.name, f.value); err != nil {
			return r.writeErr(pos, ".features."+f.name, err)
		}
	}
	for _, e := range n.edges {
		if e.target == "" {
			r.deferred = append(r.deferred, deferredEdge{subj: n.subj, from: n.typ, node: n.id, edge: e.pred,
				neighbor: e.id, index: e.index, off: pos.off, line: pos.line})
			continue
		}
		if err := r.writeEdge(n.subj, e.pred, e.target, e.id); err != nil {
			return r.writeErr(pos, fmt.Sprintf(".neighbors.%s[%d]", e.pred, e.index), err)
		}
	}
	return nil
}

// writeEdge writes one IRI edge and, the first time, the edge's labels.
func (r *run) writeEdge(subj quad.Value, pred, target, id string) error {
	if err := r.describe(pred, true); err != nil {
		return err
	}
	return r.write(subj, pred, nodeIRI(target, id))
}

// describe writes a predicate's label and, for edges, its inverse label,
// the first time the predicate is used.
func (r *run) describe(pred string, isEdge bool) error {
	label := strings.ReplaceAll(pred, "_", " ")
	if !r.said[pred] {
		r.said[pred] = true
		if err := r.write(quad.IRI(pred), store.RDFSLabel, quad.String(label)); err != nil {
			return err
		}
	}
	if !isEdge || r.said["\x00"+pred] {
		return nil
	}
	r.said["\x00"+pred] = true
	return r.write(quad.IRI(pred), store.GroveInverseLabel, quad.String(label+" (inverse)"))
}

// textFeature records, once per node type and feature, which feature gave
// the type's labels: <type> grove:textFeature "title".
func (r *run) textFeature(typ, feature string) error {
	key := typ + "\x00" + feature
	if r.texts[key] {
		return nil
	}
	r.texts[key] = true
	return r.write(quad.IRI(typ), store.GroveTextFeature, quad.String(feature))
}

// write sends one quad; the caller positions its error.
func (r *run) write(s quad.Value, p string, o quad.Value) error {
	r.quads++
	return r.w.WriteQuad(quad.Quad{Subject: s, Predicate: r.predicate(p), Object: o})
}

// predicate returns p as a quad value, reusing one interface value per
// predicate so that writing a quad does not allocate for it.
func (r *run) predicate(p string) quad.Value {
	return interned(r.preds, p, func(p string) quad.Value { return quad.IRI(p) })
}

// typeName returns the grove:nodeType literal of a node type, shared like
// predicates.
func (r *run) typeName(typ string) quad.Value {
	return interned(r.types, typ, func(typ string) quad.Value { return quad.String(typ) })
}

// interned returns m's value for key, made by mk and kept in m the first
// time, so that a value many quads use is one interface value. Not safe
// for concurrent use (m is written).
func interned(m map[string]quad.Value, key string, mk func(string) quad.Value) quad.Value {
	v, ok := m[key]
	if !ok {
		v = mk(key)
		m[key] = v
	}
	return v
}

// finish resolves the deferred edges now that every node id is known: by
// the neighbor id's node type when it is unique, else by the edge name
// ("also_viewed_item" -> item). Edges that stay unresolved are bad input.
func (r *run) finish(ctx context.Context) error {
	for i, d := range r.deferred {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("grbench: %s: %w", r.name, err)
			}
		}
		target, known := r.ids.lookup(d.neighbor)
		if target != "" {
			r.byID++
		} else {
			target = nameTarget(d.edge, r.ids.types)
		}
		if target == "" {
			if err := r.skip(r.unresolved(d, known)); err != nil {
				return err
			}
			continue
		}
		if err := r.writeEdge(d.subj, d.edge, target, d.neighbor); err != nil {
			pos := nodePos{path: nodePath(d.from, d.node), off: d.off, line: d.line}
			return r.writeErr(pos, fmt.Sprintf(".neighbors.%s[%d]", d.edge, d.index), err)
		}
	}
	r.deferred = nil
	return nil
}

// unresolved explains why a deferred edge has no target type.
func (r *run) unresolved(d deferredEdge, known bool) *source.Error {
	field := fmt.Sprintf("%s.neighbors.%s[%d]", nodePath(d.from, d.node), d.edge, d.index)
	why := "is not a node of this file"
	if known {
		why = "is a node of several types"
	}
	return r.errorf(field, d.off, "neighbor %q %s and edge type %q names no node type; map it with EdgeTargets", d.neighbor, why, d.edge)
}
