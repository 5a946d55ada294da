package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/labelindex"
)

// labelBuild writes the label indexes of a load's graphs on a goroutine of
// its own while the keys are written: the indexes depend only on the
// labels read and the global ids the dictionary phase gave them, and the
// write phase leaves part of the second core idle (its last step, the P
// lists, runs on one goroutine). The indexes are named in the graphs' meta
// records only after the keys are flushed (labelBuild.commit), so a
// failed or killed load leaves unused files at most, which Open removes.
type labelBuild struct {
	runs   int // sorted runs the builders had spilled
	cancel context.CancelFunc
	done   chan struct{}
	idx    []*preparedMain
	err    error
}

// startSearch starts writing the label index of every graph this load
// labels. Each builder's run files are removed as soon as its graph is
// written (all of them go with the load's spill directory anyway).
func (l *Loader) startSearch(ctx context.Context) *labelBuild {
	ctx, cancel := context.WithCancel(ctx)
	lb := &labelBuild{cancel: cancel, done: make(chan struct{})}
	for _, b := range l.labels {
		lb.runs += b.Runs()
	}
	go func() {
		defer close(lb.done)
		for g, b := range l.labels {
			p, err := l.db.prepareSearch(ctx, l.names[g], b)
			if cerr := b.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("label index of graph %q: %w", l.names[g], cerr)
			}
			if err != nil {
				lb.err = err
				return
			}
			lb.idx = append(lb.idx, p)
		}
	}()
	return lb
}

// commit waits for the indexes and names them in the graphs' meta records.
func (lb *labelBuild) commit(db *DB) error {
	<-lb.done
	if lb.err != nil {
		return lb.err
	}
	for len(lb.idx) > 0 {
		p := lb.idx[0]
		lb.idx = lb.idx[1:]
		if err := db.commitPrepared(p); err != nil {
			return err
		}
	}
	return nil
}

// abort stops the build and removes the indexes not committed. It may
// follow commit.
func (lb *labelBuild) abort(db *DB) {
	lb.cancel()
	<-lb.done
	for _, p := range lb.idx {
		db.discardPrepared(p)
	}
	lb.idx = nil
}

// Label builders of a bulk load. They share 1/labelShare of the loader's
// budget (the sorters of the map phase hold a third of it at the same
// time) and spill sorted runs into the load's spill directory, so memory
// stays flat whatever the number of labels. With several graphs, the
// largest builder is spilled while their total passes the share;
// labelCheckEvery is how many labels are read between two such checks.
const (
	labelShare      = 8
	labelCheckEvery = 1 << 12
)

// labelBuilder returns the label builder of a graph label id, creating
// it.
func (l *Loader) labelBuilder(g uint64) *labelindex.Builder {
	b := l.labels[g]
	if b == nil {
		b = labelindex.NewSpillingBuilder(labelindex.SpillOptions{Dir: l.sd.path, Budget: l.budget / labelShare})
		l.labels[g] = b
	}
	return b
}

// boundLabels reports a builder's spill error and, when several graphs'
// builders together pass the share, spills the largest ones.
func (l *Loader) boundLabels() error {
	var total, runs int64
	for _, b := range l.labels {
		if err := b.Err(); err != nil {
			return diskErr(err)
		}
		total += b.Footprint()
		runs += b.RunBytes()
	}
	l.sd.notePeak(l.sd.live.Load() + runs)
	for len(l.labels) > 1 && total > l.budget/labelShare {
		big := l.largestLabelBuilder()
		before := big.Footprint()
		if err := big.Spill(); err != nil {
			return diskErr(err)
		}
		if big.Footprint() == before {
			// Spill frees a builder's pairs, so this cannot happen while
			// total (the sum of the footprints) is above the budget; it
			// only keeps the loop finite should Spill ever keep memory.
			break
		}
		total -= before - big.Footprint()
	}
	return nil
}

// largestLabelBuilder returns the builder holding the most memory.
func (l *Loader) largestLabelBuilder() *labelindex.Builder {
	var big *labelindex.Builder
	for _, b := range l.labels {
		if big == nil || b.Footprint() > big.Footprint() {
			big = b
		}
	}
	return big
}

// Search finds entity candidates for a mention.
func (db *DB) Search(ctx context.Context, graph, text string, limit int) ([]store.Candidate, error) {
	if err := db.usable(ctx); err != nil {
		return nil, err
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
	// The indexes are taken before the read snapshot: writers commit
	// before they install an index, so an index is never newer than the
	// snapshot. An older one may still name a pair the snapshot no longer
	// has; every hit is checked against the snapshot below.
	views := make([]*searchIndex, 0, len(graphs))
	defer func() {
		for _, si := range views {
			si.release()
		}
	}()
	for _, g := range graphs {
		si, err := db.acquire(g)
		if err != nil {
			return nil, err
		}
		views = append(views, si)
	}
	var out []store.Candidate
	err := db.view(ctx, func(txn *badger.Txn) error {
		for i, g := range graphs {
			for j, h := range searchIndexHits(views[i].view, text, 2*max(limit, 0)) { // 0: every hit
				if j%ctxCheckEvery == ctxCheckEvery-1 {
					if err := ctxErr(ctx); err != nil {
						return err
					}
				}
				c, err := db.candidate(txn, g, h)
				if errors.Is(err, badger.ErrKeyNotFound) {
					continue // an entity the snapshot no longer has
				}
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
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, err
}

// candidate turns an index hit into a ranked candidate. The score orders
// by match kind, then edit distance, then popularity (log degree, < 1).
// Its Graphs is the graph of the index hit, as on the other backends.
func (db *DB) candidate(txn *badger.Txn, graph string, h labelindex.Hit) (store.Candidate, error) {
	e, err := db.entity(txn, h.ID)
	if err != nil {
		return store.Candidate{}, err
	}
	e.Graphs = []string{graph}
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
func searchIndexHits(idx *labelindex.View, text string, limit int) []labelindex.Hit {
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
	fresh := db.preds.fresh(txn)
	if fresh {
		if n, ok := db.degrees.Get(id); ok {
			return n, nil
		}
	}
	groups, err := db.groupCounts(txn, id, spaceSPO, spaceOPS)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, gi := range groups {
		n += gi.count
	}
	if fresh {
		db.preds.fill(txn, func() { db.degrees.Set(id, n, 1) })
	}
	return n, nil
}
