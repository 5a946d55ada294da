package engine

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/labelindex"
)

// searchIndex is one graph's label FST, loaded lazily.
type searchIndex struct {
	idx *labelindex.Index
}

// labelFile is where a graph's label index lives: labels/<hash>.idx, so any
// graph name (an IRI, say) maps to a safe file name.
func (db *DB) labelFile(graph string) string {
	sum := sha256.Sum256([]byte(graph))
	return filepath.Join(db.dir, "labels", hex.EncodeToString(sum[:12])+".idx")
}

// searchIndexFor returns the label index of a graph (nil if it has none).
func (db *DB) searchIndexFor(graph string) (*labelindex.Index, error) {
	db.mu.RLock()
	si, ok := db.search[graph]
	db.mu.RUnlock()
	if ok {
		return si.idx, nil
	}
	if db.opts.InMemory {
		return nil, nil
	}
	data, err := os.ReadFile(db.labelFile(graph))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("label index of graph %q: %w", graph, err)
	}
	idx, err := labelindex.Open(data)
	if err != nil {
		return nil, fmt.Errorf("label index of graph %q: %w", graph, err)
	}
	db.mu.Lock()
	db.search[graph] = &searchIndex{idx: idx}
	db.mu.Unlock()
	return idx, nil
}

// buildSearch merges this load's labels into each touched graph's index.
func (l *Loader) buildSearch(ctx context.Context) (int64, error) {
	for g, b := range l.labels {
		if err := ctxErr(ctx); err != nil {
			return 0, err
		}
		if err := l.db.writeSearch(l.names[g], b); err != nil {
			return 0, err
		}
	}
	return l.nlabels, nil
}

// writeSearch merges b into the graph's index and installs the result.
func (db *DB) writeSearch(graph string, b *labelindex.Builder) error {
	old, err := db.searchIndexFor(graph)
	if err != nil {
		db.log.Warn("rebuilding an unreadable label index from this load only", "graph", graph, "err", err)
		old = nil
	}
	var buf bytes.Buffer
	if err := labelindex.Merge(&buf, old, b); err != nil {
		return fmt.Errorf("label index of graph %q: %w", graph, err)
	}
	data := buf.Bytes()
	idx, err := labelindex.Open(data)
	if err != nil {
		return fmt.Errorf("label index of graph %q: %w", graph, err)
	}
	if !db.opts.InMemory {
		path := db.labelFile(graph)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := writeFileSync(path, data); err != nil {
			return fmt.Errorf("write label index of graph %q: %w", graph, err)
		}
	}
	db.mu.Lock()
	db.search[graph] = &searchIndex{idx: idx}
	db.mu.Unlock()
	return nil
}

// Search finds entity candidates for a mention.
func (db *DB) Search(ctx context.Context, graph, text string, limit int) ([]store.Candidate, error) {
	if limit <= 0 {
		limit = 10
	}
	graphs := []string{graph}
	if graph == "" {
		graphs = graphs[:0]
		for _, g := range db.GraphMetas() {
			graphs = append(graphs, g.Name)
		}
	} else if _, err := db.graphByName(graph); err != nil {
		return nil, err
	}
	var out []store.Candidate
	err := db.view(ctx, func(txn *badger.Txn) error {
		for _, g := range graphs {
			idx, err := db.searchIndexFor(g)
			if err != nil {
				return err
			}
			if idx == nil {
				continue
			}
			for _, h := range searchIndexHits(idx, text, 2*limit) {
				c, err := db.candidate(txn, g, h)
				if err != nil {
					return err
				}
				if text, ok := matchedText(c.Entity, h.Key); ok {
					c.Matched = text
					out = append(out, c)
				}
			}
		}
		return nil
	})
	slices.SortStableFunc(out, func(a, b store.Candidate) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Graph, b.Graph))
	})
	return out[:min(limit, len(out))], err
}

// candidate turns an index hit into a ranked candidate. The score orders
// by match kind, then edit distance, then popularity (log degree, < 1).
func (db *DB) candidate(txn *badger.Txn, graph string, h labelindex.Hit) (store.Candidate, error) {
	e, err := db.entity(txn, h.ID)
	if err != nil {
		return store.Candidate{}, err
	}
	degree, err := db.degree(txn, h.ID)
	if err != nil {
		return store.Candidate{}, err
	}
	match := map[labelindex.MatchKind]string{labelindex.Exact: "exact", labelindex.Prefix: "prefix", labelindex.Fuzzy: "fuzzy"}[h.Match]
	kindScore := map[labelindex.MatchKind]float64{labelindex.Exact: 30, labelindex.Prefix: 20, labelindex.Fuzzy: 10}[h.Match]
	pop := math.Min(0.99, math.Log10(1+float64(degree))/10)
	return store.Candidate{Entity: e, Graph: graph, Matched: h.Key, Match: match, Distance: h.Distance,
		Score: kindScore - float64(h.Distance) + pop}, nil
}

// matchedText returns the entity's label or alias whose normalized form is
// key. Labels deleted after the index was built no longer match, so the
// index never returns text the entity does not have.
func matchedText(e store.Entity, key string) (string, bool) {
	for _, t := range append([]string{e.Label}, e.Aliases...) {
		if labelindex.Normalize(t) == key {
			return t, true
		}
	}
	return "", false
}

// searchIndexHits runs the exact and prefix phases first and the fuzzy
// phase (the expensive one) only when nothing matched exactly: a mention
// that names an entity exactly does not need its misspellings.
func searchIndexHits(idx *labelindex.Index, text string, limit int) []labelindex.Hit {
	hits := idx.Search(text, limit, labelindex.SearchOptions{NoFuzzy: true})
	for _, h := range hits {
		if h.Match == labelindex.Exact {
			return hits
		}
	}
	return idx.Search(text, limit, labelindex.SearchOptions{})
}

// degree is the total number of edges of a node, cached: Search ranks
// candidates by it.
func (db *DB) degree(txn *badger.Txn, id uint64) (int64, error) {
	if n, ok := db.degrees.Get(id); ok {
		return n, nil
	}
	var n int64
	for _, space := range []byte{spaceSPO, spaceOPS} {
		err := nodeGroups(txn, space, id, func(gi groupInfo) error {
			n += gi.count
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	db.degrees.Set(id, n, 1)
	return n, nil
}
