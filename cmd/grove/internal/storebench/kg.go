package storebench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/labelindex"
	"github.com/grove-kg/grove/store/query"
)

// Latency is the distribution of one operation's warm latency, with the
// same questions asked through Cayley's Gizmo on the same database as the
// baseline (zero when there is no Gizmo equivalent).
type Latency struct {
	Op       string        `json:"op"`
	N        int           `json:"n"`
	P50      time.Duration `json:"p50_ns"`
	P99      time.Duration `json:"p99_ns"`
	GizmoP50 time.Duration `json:"gizmo_p50_ns,omitempty"`
	GizmoP99 time.Duration `json:"gizmo_p99_ns,omitempty"`
}

// Speedup is Gizmo's p50 over Grove's p50.
func (l Latency) Speedup() float64 {
	if l.P50 == 0 || l.GizmoP50 == 0 {
		return 0
	}
	return float64(l.GizmoP50) / float64(l.P50)
}

// KGConfig chooses the entities to query.
type KGConfig struct {
	// IDs are ordinary entities; Hubs are entities with huge degree.
	IDs, Hubs []string
	// N is the number of timed calls per operation (default 2000).
	N int
	// GizmoN is the number of Gizmo calls per operation (default N/10:
	// Gizmo is slow, and its distribution settles quickly).
	GizmoN int
	Seed   uint64
}

// KGLatencies measures Relations, Edges and Search on db, warm.
func KGLatencies(ctx context.Context, db *engine.DB, cfg KGConfig) ([]Latency, error) {
	if len(cfg.IDs) == 0 {
		return nil, fmt.Errorf("no entity ids to query")
	}
	if cfg.N <= 0 {
		cfg.N = 2000
	}
	if cfg.GizmoN <= 0 {
		cfg.GizmoN = max(cfg.N/10, 20)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 7))
	k := &kgBench{db: db, cfg: cfg, rng: rng}
	if err := k.prepare(ctx); err != nil {
		return nil, err
	}
	var out []Latency
	for _, m := range k.ops() {
		l, err := k.measure(ctx, m)
		if err != nil {
			return out, fmt.Errorf("%s: %w", m.name, err)
		}
		out = append(out, l)
	}
	return out, nil
}

type kgBench struct {
	db     *engine.DB
	cfg    KGConfig
	rng    *rand.Rand
	rels   map[string]string // id -> one of its out relations
	inRels map[string]string // hub id -> its first incoming relation
	labels []string          // labels of sampled entities
}

type op struct {
	name  string
	grove func(ctx context.Context, i int) error
	gizmo func(ctx context.Context, i int) error
}

// prepare finds a relation and the label of each sampled entity.
func (k *kgBench) prepare(ctx context.Context) error {
	k.rels, k.inRels = map[string]string{}, map[string]string{}
	for _, id := range k.cfg.Hubs {
		rels, err := k.db.Relations(ctx, []string{id}, store.In)
		if err != nil {
			return err
		}
		if len(rels) > 0 {
			k.inRels[id] = rels[0].ID
		}
	}
	var missing []string
	for _, id := range append(slices.Clone(k.cfg.IDs), k.cfg.Hubs...) {
		e, err := k.db.Entity(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			missing = append(missing, id)
			continue
		}
		if err == nil && e.Label != "" {
			k.labels = append(k.labels, e.Label)
		}
		rels, err := k.db.Relations(ctx, []string{id}, store.Out)
		if err != nil {
			return err
		}
		for _, r := range rels {
			if !r.Hidden {
				k.rels[id] = r.ID
				break
			}
		}
	}
	if len(missing) == len(k.cfg.IDs)+len(k.cfg.Hubs) {
		return fmt.Errorf("the database has none of the entities to query (%s; ids are exact): %w",
			clipIDs(missing, 5), store.ErrNotFound)
	}
	if len(k.labels) == 0 {
		return fmt.Errorf("the sampled entities have no labels")
	}
	return nil
}

// clipIDs quotes the first n ids and counts the rest.
func clipIDs(ids []string, n int) string {
	q := make([]string, 0, n)
	for _, id := range ids[:min(n, len(ids))] {
		q = append(q, strconv.Quote(id))
	}
	if len(ids) > n {
		q = append(q, fmt.Sprintf("and %d more", len(ids)-n))
	}
	return strings.Join(q, ", ")
}

func (k *kgBench) pick(ids []string, i int) string { return ids[(i*7919+int(k.cfg.Seed))%len(ids)] }

func (k *kgBench) ops() []op {
	ops := []op{
		{"relations", k.relations(k.cfg.IDs), k.gizmoRelations(k.cfg.IDs)},
		{"edges", k.edges(k.cfg.IDs), k.gizmoEdges(k.cfg.IDs)},
		{"search-exact", k.search(false), k.gizmoSearch()},
		{"search-fuzzy", k.search(true), nil},
	}
	if len(k.cfg.Hubs) > 0 {
		ops = append(ops,
			op{"relations-hub", k.relations(k.cfg.Hubs), k.gizmoRelations(k.cfg.Hubs)},
			op{"edges-hub-in", k.edgesIn(k.cfg.Hubs), k.gizmoEdgesIn(k.cfg.Hubs)})
	}
	return ops
}

func (k *kgBench) relations(ids []string) func(context.Context, int) error {
	return func(ctx context.Context, i int) error {
		_, err := k.db.Relations(ctx, []string{k.pick(ids, i)}, store.Both)
		return err
	}
}

func (k *kgBench) edges(ids []string) func(context.Context, int) error {
	return func(ctx context.Context, i int) error {
		id := k.pick(ids, i)
		rel, ok := k.rels[id]
		if !ok {
			return nil
		}
		_, err := k.db.Edges(ctx, []string{id}, rel, store.Out, 50)
		return err
	}
}

// edgesIn lists 50 incoming "instance of"-like edges of a hub.
func (k *kgBench) edgesIn(ids []string) func(context.Context, int) error {
	return func(ctx context.Context, i int) error {
		id := k.pick(ids, i)
		rel, ok := k.inRels[id]
		if !ok {
			return nil
		}
		_, err := k.db.Edges(ctx, []string{id}, rel, store.In, 50)
		return err
	}
}

func (k *kgBench) search(fuzzy bool) func(context.Context, int) error {
	return func(ctx context.Context, i int) error {
		text := k.labels[(i*31)%len(k.labels)]
		if fuzzy {
			text = typo(labelindex.Normalize(text), i)
		}
		_, err := k.db.Search(ctx, "", text, 10)
		return err
	}
}

// typo swaps two adjacent runes so that the query is one edit away.
func typo(s string, i int) string {
	r := []rune(s)
	if len(r) < 4 {
		return s
	}
	j := 1 + i%(len(r)-2)
	r[j], r[j+1] = r[j+1], r[j]
	return string(r)
}

func (k *kgBench) gizmo(ctx context.Context, q string) error {
	_, err := query.Run(ctx, k.db, "gizmo", q, 50)
	return err
}

func (k *kgBench) gizmoRelations(ids []string) func(context.Context, int) error {
	return func(ctx context.Context, i int) error {
		id := k.pick(ids, i)
		return k.gizmo(ctx, fmt.Sprintf(`g.V(%q).OutPredicates().All(); g.V(%q).InPredicates().All()`, "<"+id+">", "<"+id+">"))
	}
}

func (k *kgBench) gizmoEdges(ids []string) func(context.Context, int) error {
	return func(ctx context.Context, i int) error {
		id := k.pick(ids, i)
		rel, ok := k.rels[id]
		if !ok {
			return nil
		}
		return k.gizmo(ctx, fmt.Sprintf(`g.V(%q).Out(%q).Limit(50).All()`, "<"+id+">", "<"+rel+">"))
	}
}

func (k *kgBench) gizmoEdgesIn(ids []string) func(context.Context, int) error {
	return func(ctx context.Context, i int) error {
		id := k.pick(ids, i)
		rel, ok := k.inRels[id]
		if !ok {
			return nil
		}
		return k.gizmo(ctx, fmt.Sprintf(`g.V(%q).In(%q).Limit(50).All()`, "<"+id+">", "<"+rel+">"))
	}
}

func (k *kgBench) gizmoSearch() func(context.Context, int) error {
	return func(ctx context.Context, i int) error {
		text := k.labels[(i*31)%len(k.labels)]
		return k.gizmo(ctx, fmt.Sprintf(`g.V().Has(%q, %q).All()`, "<"+store.RDFSLabel+">", text))
	}
}

// measure warms up, then times N calls (and GizmoN baseline calls).
func (k *kgBench) measure(ctx context.Context, m op) (Latency, error) {
	l := Latency{Op: m.name, N: k.cfg.N}
	var err error
	if l.P50, l.P99, err = timeCalls(ctx, m.grove, k.cfg.N); err != nil {
		return l, err
	}
	if m.gizmo != nil {
		if l.GizmoP50, l.GizmoP99, err = timeCalls(ctx, m.gizmo, k.cfg.GizmoN); err != nil {
			return l, fmt.Errorf("gizmo: %w", err)
		}
	}
	return l, nil
}

// timeCalls runs fn n times after n/10 warm-up calls and returns p50, p99.
func timeCalls(ctx context.Context, fn func(context.Context, int) error, n int) (time.Duration, time.Duration, error) {
	for i := 0; i < max(n/10, 1); i++ {
		if err := fn(ctx, i); err != nil {
			return 0, 0, err
		}
	}
	ds := make([]time.Duration, n)
	for i := range ds {
		t := time.Now()
		if err := fn(ctx, i); err != nil {
			return 0, 0, err
		}
		ds[i] = time.Since(t)
	}
	slices.Sort(ds)
	return ds[n/2], ds[min(n-1, n*99/100)], nil
}

// OpenTime measures how long opening the database at dir read-only takes
// (as every command that only reads opens it).
func OpenTime(dir string) (time.Duration, error) {
	t := time.Now()
	db, err := engine.Open(dir, engine.Options{ReadOnly: true})
	if err != nil {
		return 0, err
	}
	d := time.Since(t)
	return d, db.Close()
}
