// Package synth generates Wikidata-shaped N-Triples for benchmarks: a
// deterministic graph with power-law degrees (a few hubs such as "human"
// receive a large share of the edges, as Q5 does in Wikidata), about 30%
// literal objects (labels, descriptions, dates and quantities) and every
// entity labelled, so bulk loading, relation listing on hubs and label
// search can be measured at any size without downloading a dump.
package synth

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
)

// Config sizes the graph.
type Config struct {
	// Quads is the number of lines (triples) to write, at least 1:
	// exactly that many, the first Properties of them the relations'
	// labels; the last entity may be cut short. About 1% of the lines
	// repeat an earlier line (an entity drawing the same edge twice),
	// so a load stores about 99% of them. Before this was exact, the
	// last entity was completed (up to a few dozen lines more, and all
	// the property labels when Quads was smaller); every line written
	// then for the same Seed is written now, in the same order.
	Quads int64
	// Seed makes the output reproducible.
	Seed uint64
	// Properties is the number of distinct relations (default 300).
	Properties int
}

// Stats describe what was written.
type Stats struct {
	Quads    int64 `json:"quads"`
	Entities int64 `json:"entities"`
	Literals int64 `json:"literals"`
}

const (
	rdfsLabel  = "<http://www.w3.org/2000/01/rdf-schema#label>"
	schemaDesc = "<http://schema.org/description>"
	// quadsPerEntity is the mean out-degree including literals.
	quadsPerEntity = 10
)

var syllables = strings.Fields("ka lo mi ra ne to vi sa du pe lin mor tan bel cor dan fel gar hol jun kel mar nor pol quin ros sil tor ul ven wil yor zan")

// errFull ends generation when cfg.Quads lines are written.
var errFull = errors.New("synth: all lines written")

// Write generates the graph to w.
func Write(w io.Writer, cfg Config) (Stats, error) {
	if cfg.Quads <= 0 {
		return Stats{}, fmt.Errorf("synth: Quads %d: want at least 1", cfg.Quads)
	}
	if cfg.Properties <= 0 {
		cfg.Properties = 300
	}
	g := &gen{cfg: cfg, w: bufio.NewWriterSize(w, 1<<20), rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))}
	g.entities = max(cfg.Quads/quadsPerEntity, 10)
	g.objZipf = rand.NewZipf(g.rng, 1.2, 1, uint64(g.entities-1))
	g.propZipf = rand.NewZipf(g.rng, 1.1, 1, uint64(cfg.Properties-1))
	err := g.properties()
	for e := int64(1); err == nil && e <= g.entities; e++ {
		err = g.entity(e)
	}
	if err != nil && !errors.Is(err, errFull) {
		return g.st, err
	}
	return g.st, g.w.Flush()
}

type gen struct {
	cfg      Config
	w        *bufio.Writer
	rng      *rand.Rand
	entities int64
	objZipf  *rand.Zipf
	propZipf *rand.Zipf
	st       Stats
}

// line writes one triple, or returns errFull when cfg.Quads are written.
func (g *gen) line(s, p, o string) error {
	if g.st.Quads >= g.cfg.Quads {
		return errFull
	}
	g.st.Quads++
	_, err := fmt.Fprintf(g.w, "%s %s %s .\n", s, p, o)
	return err
}

// properties labels every relation, as Wikidata's property entities do.
func (g *gen) properties() error {
	for p := 1; p <= g.cfg.Properties; p++ {
		if err := g.line(fmt.Sprintf("<P%d>", p), rdfsLabel, fmt.Sprintf("%q@en", g.words(uint64(p)*7919, 2))); err != nil {
			return err
		}
	}
	return nil
}

// entity writes one entity: label, description, a date or quantity, and
// power-law distributed edges.
func (g *gen) entity(e int64) error {
	s := fmt.Sprintf("<Q%d>", e)
	g.st.Entities++
	lits := []struct{ p, o string }{
		{rdfsLabel, fmt.Sprintf("%q@en", g.words(uint64(e), 2+int(e%2)))},
		{schemaDesc, fmt.Sprintf("%q@en", "synthetic entity "+g.words(uint64(e)*31, 3))},
	}
	if e%2 == 0 {
		lits = append(lits, struct{ p, o string }{"<P577>", fmt.Sprintf("\"%04d-%02d-%02d\"^^<http://www.w3.org/2001/XMLSchema#date>", 1800+e%220, 1+e%12, 1+e%28)})
	} else {
		lits = append(lits, struct{ p, o string }{"<P2046>", fmt.Sprintf("\"%d %s\"^^<grove:quantity>", 1+e%100000, "Q712226")})
	}
	for _, l := range lits {
		if err := g.line(s, l.p, l.o); err != nil {
			return err
		}
		g.st.Literals++
	}
	// "instance of" a hub for most entities (Q5-like in-degree).
	if err := g.line(s, "<P31>", fmt.Sprintf("<Q%d>", 1+g.objZipf.Uint64()%16)); err != nil {
		return err
	}
	edges := int(g.rng.ExpFloat64()*float64(quadsPerEntity-len(lits)-1)) + 1
	for i := 0; i < edges; i++ {
		p := 32 + g.propZipf.Uint64()%uint64(g.cfg.Properties-32)
		o := 1 + g.objZipf.Uint64()
		if err := g.line(s, fmt.Sprintf("<P%d>", p), fmt.Sprintf("<Q%d>", o)); err != nil {
			return err
		}
	}
	return nil
}

// words builds a deterministic pseudo-name from n.
func (g *gen) words(n uint64, k int) string {
	parts := make([]string, k)
	for i := range parts {
		var b strings.Builder
		for j := 0; j < 2+int(n%2); j++ {
			b.WriteString(syllables[n%uint64(len(syllables))])
			n = n/uint64(len(syllables)) + uint64(math.MaxUint32&(n*2654435761))
		}
		w := b.String()
		parts[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(parts, " ")
}
