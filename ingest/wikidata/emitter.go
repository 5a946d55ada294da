package wikidata

import (
	"context"
	"fmt"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store"
)

// emitter writes batches in input order and keeps the per-stream state the
// end-of-stream pass needs. It runs on the caller's goroutine, so w is
// called from one goroutine only.
type emitter struct {
	rd    *Reader
	name  string
	w     source.Writer
	stats Stats
	// props holds every property entity seen (labels and inverse).
	props map[string]*propInfo
	// hidden holds properties seen with datatype external-id.
	hidden    map[string]bool
	sitelinks bool
	// recycle takes batches once written.
	recycle func(*batch)
}

func newEmitter(rd *Reader, name string, w source.Writer, recycle func(*batch)) *emitter {
	return &emitter{rd: rd, name: name, w: w, props: map[string]*propInfo{}, hidden: map[string]bool{},
		recycle: recycle}
}

// consume writes every batch from order until it is closed or an error
// stops the read.
func (e *emitter) consume(ctx context.Context, order <-chan *batch) error {
	for b := range order {
		select {
		case <-b.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := e.batch(b); err != nil {
			return err
		}
		if b.readErr != nil {
			return b.readErr
		}
		e.recycle(b)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// batch writes one decoded batch.
func (e *emitter) batch(b *batch) error {
	e.stats.Lines += int64(len(b.ends))
	for i := range b.results {
		res := &b.results[i]
		switch {
		case res.err != nil:
			if err := e.rd.opts.Skip(res.err); err != nil {
				return err
			}
			e.stats.Invalid++
			continue
		case res.filtered:
			e.stats.Filtered++
			continue
		case res.empty:
			continue
		}
		if err := e.write(b.quads[res.start:res.end]); err != nil {
			return e.writeErr(b, i, err)
		}
		e.note(&res.info)
	}
	return nil
}

// writeErr positions the writer's error for line i of b (a backend
// check refused one of its quads): file:line: entity id: error, as the
// RDF readers give file:line. The id is read again from the line, which
// is still in b, so that the common path keeps no id per line.
func (e *emitter) writeErr(b *batch, i int, err error) error {
	if id, ok := topLevelID(entityBytes(b.line(i))); ok && id != "" {
		return fmt.Errorf("%s:%d: %s: %w", e.name, b.lineNos[i], id, err)
	}
	return fmt.Errorf("%s:%d: %w", e.name, b.lineNos[i], err)
}

// write passes quads to the writer (in one call when it is a
// source.BatchWriter).
func (e *emitter) write(qs []quad.Quad) error {
	if err := source.WriteAll(e.w, qs); err != nil {
		return err
	}
	e.stats.Quads += int64(len(qs))
	return nil
}

// note merges one entity's side output.
func (e *emitter) note(info *lineInfo) {
	e.stats.Entities++
	e.stats.Statements += int64(info.statements)
	switch info.kind {
	case typeItem:
		e.stats.Items++
	case typeProperty:
		e.stats.Properties++
	case typeLexeme:
		e.stats.Lexemes++
	}
	if info.prop != nil {
		e.props[info.prop.ID] = info.prop
		if info.prop.External {
			e.hidden[info.prop.ID] = true
		}
	}
	for _, p := range info.hidden {
		e.hidden[p] = true
	}
	e.sitelinks = e.sitelinks || info.sitelinks
}

// finish writes the property metadata collected over the stream: inverse
// labels, hidden markers and the sitelink predicate's description.
func (e *emitter) finish() error {
	var out []quad.Quad
	out = append(out, e.inverseLabels()...)
	for _, p := range sortedKeys(e.hidden) {
		out = append(out, quad.Quad{Subject: quad.IRI(p), Predicate: quad.IRI(store.GroveHidden), Object: quad.String(hiddenTrue)})
	}
	if e.sitelinks {
		s := quad.IRI(SitelinkPredicate)
		out = append(out,
			quad.Quad{Subject: s, Predicate: predLabel, Object: quad.LangString{Value: "Wikipedia article", Lang: "en"}},
			quad.Quad{Subject: s, Predicate: quad.IRI(store.GroveHidden), Object: quad.String(hiddenTrue)})
	}
	if err := e.write(out); err != nil {
		return fmt.Errorf("%s: property metadata after the last line: %w", e.name, err)
	}
	return nil
}

// inverseLabels returns <P> grove:inverseLabel "label of the inverse" for
// every property with an inverse property (P1696), in each chosen
// language where both have a label.
func (e *emitter) inverseLabels() []quad.Quad {
	var out []quad.Quad
	ids := make([]string, 0, len(e.props))
	for id, p := range e.props {
		if p.Inverse != "" {
			ids = append(ids, id)
		}
	}
	sortIDs(ids)
	for _, id := range ids {
		p := e.props[id]
		inv, ok := e.props[p.Inverse]
		if !ok {
			continue
		}
		for _, lang := range e.rd.langs.langs {
			own, invLabel := labelIn(p.Labels, lang), labelIn(inv.Labels, lang)
			if own != "" && invLabel != "" {
				out = append(out, quad.Quad{Subject: quad.IRI(id), Predicate: quad.IRI(store.GroveInverseLabel),
					Object: quad.LangString{Value: quad.String(invLabel), Lang: lang}})
			}
		}
	}
	return out
}

// labelIn returns the label in lang, falling back to "mul".
func labelIn(ts []langText, lang string) string {
	fallback := ""
	for _, t := range ts {
		switch t.Lang {
		case lang:
			return t.Text
		case mulLanguage:
			fallback = t.Text
		}
	}
	return fallback
}

// sortedKeys returns the keys of m in id order.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortIDs(out)
	return out
}
