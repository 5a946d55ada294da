package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/subgraph"
	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/literal"
	"github.com/grove-kg/grove/store/query"
)

func (a *app) statsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "Show the database's graphs and exact counts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if b, err := a.backend(); err != nil {
				return err
			} else if b != backendBadger {
				return a.withKG(cmd.Context(), func(kg store.KG) error {
					graphs, err := kg.Graphs(cmd.Context())
					if err != nil {
						return err
					}
					// The same shape as badger's: an object whose graphs
					// are a list, empty rather than null.
					out := struct {
						Backend string            `json:"backend"`
						Graphs  []store.GraphInfo `json:"graphs"`
					}{string(b), append([]store.GraphInfo{}, graphs...)}
					return a.emit(out, func(w io.Writer) error { return printGraphs(w, graphs) })
				})
			}
			db, err := a.openDB(true)
			if err != nil {
				return err
			}
			defer db.Close()
			graphs, err := db.Graphs(cmd.Context())
			if err != nil {
				return err
			}
			if graphs == nil {
				graphs = []store.GraphInfo{} // "graphs": [], as /v1/graphs answers, not null
			}
			nodeDeletes, err := db.UnfinishedNodeDeletes()
			if err != nil {
				return err
			}
			runs, err := db.UnfinishedWriteRuns()
			if err != nil {
				return err
			}
			out := struct {
				Dir         string                    `json:"dir"`
				Counts      engine.Stats              `json:"counts"`
				Graphs      []store.GraphInfo         `json:"graphs"`
				Interrupted *engine.Interrupted       `json:"interrupted_ingest,omitempty"`
				Segments    int                       `json:"node_block_segments"`
				Unfinished  bool                      `json:"merge_unfinished,omitempty"`
				Compression string                    `json:"table_compression"`
				NodeDeletes []engine.NodeDeleteRecord `json:"unfinished_node_deletes,omitempty"`
				WriteRuns   []engine.WriteRun         `json:"unfinished_write_runs,omitempty"`
			}{db.Dir(), db.Counts(), graphs, db.Interrupted(), db.Segments(), db.MergeUnfinished(), db.TableCompression(),
				nodeDeletes, runs}
			return a.emit(out, func(w io.Writer) error {
				fmt.Fprintf(w, "database %s: %d quads, %d nodes, %s tables\n", out.Dir, out.Counts.Quads, out.Counts.Nodes, out.Compression)
				if out.Segments > 1 {
					fmt.Fprintf(w, "node blocks in %d segments (one lookup each per node; grove optimize merges them)\n", out.Segments)
				}
				if err := printGraphs(w, graphs); err != nil {
					return err
				}
				if in := out.Interrupted; in != nil {
					fmt.Fprintf(w, "warning: an ingest into graph %q did not finish; %s; re-run it to complete\n", in.Graph, engine.InterruptedReads)
				}
				for _, r := range out.WriteRuns {
					fmt.Fprintln(w, "warning: "+r.String())
				}
				if out.Unfinished {
					fmt.Fprintln(w, "warning: a grove optimize run did not finish; reads are correct, writes are refused until it is run again")
				}
				for _, r := range out.NodeDeletes {
					fmt.Fprintf(w, "warning: a delete of node %s stopped after %d of its quads; every count is consistent, "+
						"delete the node again to finish it\n", r.Node, r.Deleted)
				}
				return nil
			})
		},
	}
}

// printGraphs prints one line per graph.
func printGraphs(w io.Writer, graphs []store.GraphInfo) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GRAPH\tQUADS\tRELATIONS\tLABELS")
	for _, g := range graphs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\n", g.Name, g.Quads, g.Relations, g.Labels)
	}
	return tw.Flush()
}

func (a *app) kgCmd() *cobra.Command {
	cmd := groupCmd(&cobra.Command{Use: "kg", Short: "Call the KG interface (search, entity, relations, edges, ...)",
		Long: "Call the KG interface (search, entity, relations, edges, ...).\n\n" +
			"The text names an entity, relation or qualifier value the KG has no label for as the reasoners show\n" +
			"it to the model: a mediator (a Freebase CVT, a Wikidata statement node: an unlabelled node with edges\n" +
			"of its own) by its id and its contents, \"_:film/6873 (actor: Harrison Ford; character: Rick Deckard)\",\n" +
			"anything else by its id followed by \"(no label in the KG)\"."})
	cmd.AddCommand(a.kgSearch(), a.kgEntity(), a.kgRelations(), a.kgEdges(), a.kgNeighbors(),
		a.kgDegree(), a.kgFeatures(), a.kgSameAs())
	return cmd
}

// atLeast refuses a numeric flag below min.
func atLeast[T int | int64](flag string, v, min T) error {
	if v < min {
		return fmt.Errorf("%s %d: want at least %d", flag, v, min)
	}
	return nil
}

// atMost refuses an integer flag over max.
func atMost[T int | int64](flag string, v, max T) error {
	if v > max {
		return fmt.Errorf("%s %d: want at most %d", flag, v, max)
	}
	return nil
}

// positive refuses a duration flag that is zero or negative.
func positive(flag string, d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("%s %s: want a positive duration", flag, d)
	}
	return nil
}

// groupCmd makes cmd, a command that only groups others, print its help
// when run alone and refuse an unknown subcommand with an error (cobra
// printed the help and exited 0 for "grove kg bogus").
func groupCmd(cmd *cobra.Command) *cobra.Command {
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("unknown command %q for %q (see %s --help)", args[0], cmd.CommandPath(), cmd.CommandPath())
		}
		return nil
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	return cmd
}

// withKG opens the configured backend (--kg-backend) and runs fn.
func (a *app) withKG(ctx context.Context, fn func(kg store.KG) error) error {
	kg, closer, err := a.openKG(ctx)
	if err != nil {
		return err
	}
	defer closer.Close()
	return fn(kg)
}

func (a *app) kgSearch() *cobra.Command {
	var graph string
	var limit int
	cmd := &cobra.Command{
		Use:   "search TEXT",
		Short: "Find entities by label or alias (exact, prefix, fuzzy)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := atLeast("--limit", limit, 1); err != nil {
				return err
			}
			return a.withKG(cmd.Context(), func(kg store.KG) error {
				cands, err := kg.Search(cmd.Context(), graph, args[0], limit)
				if err != nil {
					return err
				}
				return a.emit(cands, func(w io.Writer) error {
					tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "ID\tLABEL\tGRAPH\tMATCH\tSCORE\tDESCRIPTION")
					for _, c := range cands {
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f\t%s\n", c.ID, labelColumn(c.Entity), c.Graph, c.Match, c.Score, literal.Clip(c.Description, 60))
					}
					return tw.Flush()
				})
			})
		},
	}
	cmd.Flags().StringVar(&graph, "graph", "", "graph to search (default: all)")
	cmd.Flags().IntVar(&limit, "limit", 10, "maximum candidates")
	return cmd
}

func (a *app) kgEntity() *cobra.Command {
	return &cobra.Command{
		Use:   "entity ID",
		Short: "Show an entity's label, description, aliases and graphs",
		Long: "Show an entity's label, description, aliases and graphs.\n\n" +
			"Blank nodes are scoped per graph at ingest: the source file's _:100000, loaded with --graph film,\n" +
			"is _:film/100000, so two graphs never share a blank node. Name it so here and in every interface:\n" +
			"  grove kg entity _:film/100000\n" +
			"  grove query 'g.V(\"_:film/100000\").Out().All()'\n" +
			"(On a badger database with one graph, Cayley queries also accept the file's own name, _:100000.)",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withKG(cmd.Context(), func(kg store.KG) error {
				e, err := kg.Entity(cmd.Context(), args[0])
				if err != nil {
					return withSearchHint(err)
				}
				return a.emit(e, func(w io.Writer) error {
					fmt.Fprintf(w, "%s\t%s\n", e.ID, labelColumn(e))
					if e.Description != "" {
						fmt.Fprintf(w, "  description: %s\n", e.Description)
					}
					if len(e.Aliases) > 0 {
						fmt.Fprintf(w, "  aliases: %s\n", strings.Join(e.Aliases, "; "))
					}
					fmt.Fprintf(w, "  graphs: %s\n", strings.Join(e.Graphs, ", "))
					if g, local, ok := scopedBlank(e.ID, e.Graphs); ok {
						fmt.Fprintf(w, "  blank node: scoped to graph %s at ingest (the source file's _:%s)\n", g, local)
					}
					return nil
				})
			})
		},
	}
}

// withSearchHint adds to a not-found error how to find an entity's id.
func withSearchHint(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w; ids are exact: `grove kg search TEXT` finds an entity's id by its name", err)
	}
	return err
}

// knownGraph returns a not-found error naming graph when the KG does not
// hold it ("" is any graph), as kg search and /v1/sameas answer (kg
// sameas --graph nosuch printed nothing).
func knownGraph(ctx context.Context, kg store.KG, graph string) error {
	if graph == "" {
		return nil
	}
	gs, err := kg.Graphs(ctx)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(gs, func(g store.GraphInfo) bool { return g.Name == graph }) {
		return fmt.Errorf("graph %q: %w (grove stats lists the graphs)", graph, store.ErrNotFound)
	}
	return nil
}

// unknownIDs returns a not-found error naming the ids the KG does not
// have (a batch call skips them silently), nil when it has them all.
func unknownIDs(ctx context.Context, kg store.KG, ids []string) error {
	var missing []string
	for _, id := range ids {
		if _, err := kg.Entity(ctx, id); errors.Is(err, store.ErrNotFound) {
			missing = append(missing, strconv.Quote(id))
		} else if err != nil {
			return err
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return withSearchHint(fmt.Errorf("no entity %s in the KG: %w", strings.Join(missing, ", "), store.ErrNotFound))
}

// noEdges explains an empty edge list: ids the KG does not have, or a
// relation none of them has in direction d.
func noEdges(ctx context.Context, kg store.KG, relation string, ids []string, d store.Direction) error {
	if err := unknownIDs(ctx, kg, ids); err != nil {
		return err
	}
	rels, err := kg.Relations(ctx, ids, d)
	if err != nil {
		return err
	}
	var names []string
	for _, r := range rels {
		if r.ID == relation {
			return nil // edges of another graph or beyond a filter: nothing to explain
		}
		if !r.Hidden && !slices.Contains(names, r.ID) {
			names = append(names, r.ID)
		}
	}
	have := "it has none in that direction"
	if len(names) > 0 {
		have = "its relations: " + strings.Join(names, ", ")
	}
	return fmt.Errorf("no relation %q on %s (direction %s); %s", relation, strings.Join(ids, ", "), d, have)
}

// scopedBlank splits a blank node id scoped at ingest, "_:GRAPH/LOCAL",
// by the graphs the node is in (the longest that prefixes it: a graph name
// may hold a slash), reporting whether it is one.
func scopedBlank(id string, graphs []string) (graph, local string, ok bool) {
	rest, isBlank := strings.CutPrefix(id, "_:")
	if !isBlank {
		return "", "", false
	}
	for _, g := range graphs {
		if l, found := strings.CutPrefix(rest, g+"/"); found && l != "" && g != "" && len(g) > len(graph) {
			graph, local, ok = g, l, true
		}
	}
	return graph, local, ok
}

// dirFlag adds --dir, a direction out, in or both.
func dirFlag(cmd *cobra.Command, def string) *string {
	return cmd.Flags().String("dir", def, "direction: out, in or both")
}

// edgeDirection parses kg edges' --dir: out or in, since an edge list has
// one direction (as KG.Edges and /v1/edges).
func edgeDirection(dir string) (store.Direction, error) {
	d, err := store.ParseDirection(dir)
	if err != nil {
		return d, fmt.Errorf("--dir: %w", err)
	}
	if d == store.Both {
		return d, errors.New("--dir both: edges are listed one direction at a time: use --dir out or --dir in")
	}
	return d, nil
}

func (a *app) kgRelations() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "relations ID...",
		Short: "List the relation types of entities with edge counts",
		Args:  cobra.MinimumNArgs(1),
	}
	dir := dirFlag(cmd, "both")
	cmd.Flags().BoolVar(&all, "all", false, "include hidden relations (labels, external ids, statement nodes)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		d, err := store.ParseDirection(*dir)
		if err != nil {
			return fmt.Errorf("--dir: %w", err)
		}
		return a.withKG(cmd.Context(), func(kg store.KG) error {
			rels, err := kg.Relations(cmd.Context(), args, d)
			if err != nil {
				return err
			}
			if len(rels) == 0 {
				if err := unknownIDs(cmd.Context(), kg, args); err != nil {
					return err
				}
			}
			var shown []store.Relation
			for _, r := range rels {
				if all || !r.Hidden {
					shown = append(shown, r)
				}
			}
			return a.emit(shown, func(w io.Writer) error {
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "DIR\tRELATION\tLABEL\tCOUNT\tGRAPH")
				for _, r := range shown {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", r.Dir, r.ID, subgraph.RelText(r), r.Count, r.Graph)
				}
				return tw.Flush()
			})
		})
	}
	return cmd
}

func (a *app) kgEdges() *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "edges RELATION ID...",
		Short: "List the edges of entities along a relation",
		Args:  cobra.MinimumNArgs(2),
	}
	dir := cmd.Flags().String("dir", "out", "direction: out or in")
	cmd.Flags().IntVar(&limit, "limit", 50, "maximum edges (0 = all)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		d, err := edgeDirection(*dir)
		if err != nil {
			return err
		}
		if err := atLeast("--limit", limit, 0); err != nil {
			return err
		}
		return a.withKG(cmd.Context(), func(kg store.KG) error {
			edges, err := kg.Edges(cmd.Context(), args[1:], args[0], d, limit)
			if err != nil {
				return err
			}
			if len(edges) == 0 {
				if err := noEdges(cmd.Context(), kg, args[0], args[1:], d); err != nil {
					return fmt.Errorf("%w (the relation comes first: grove kg edges RELATION ID...)", err)
				}
			}
			if err := a.emit(edges, func(w io.Writer) error {
				med, err := edgeMediators(cmd.Context(), kg, edges, args[1:])
				if err != nil {
					return err
				}
				for _, e := range edges {
					fmt.Fprintf(w, "%s -%s-> %s%s\n", med.withID(e.Subject),
						subgraph.RelationText(e.Relation, e.RelationLabel, "", store.Out), med.withID(e.Object),
						statementsText(e.Qualifiers))
				}
				return nil
			}); err != nil {
				return err
			}
			return cutNote(cmd.Context(), a.stderr, kg, args[1:], args[0], d, len(edges), limit)
		})
	}
	return cmd
}

func (a *app) kgNeighbors() *cobra.Command {
	var rel string
	var limit int
	cmd := &cobra.Command{Use: "neighbors ID", Short: "List an entity's neighbours", Args: cobra.ExactArgs(1)}
	dir := dirFlag(cmd, "both")
	cmd.Flags().StringVar(&rel, "relation", "", "only along this relation")
	cmd.Flags().IntVar(&limit, "limit", 50, "maximum neighbours (0 = all)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		d, err := store.ParseDirection(*dir)
		if err != nil {
			return fmt.Errorf("--dir: %w", err)
		}
		if err := atLeast("--limit", limit, 0); err != nil {
			return err
		}
		return a.withKG(cmd.Context(), func(kg store.KG) error {
			// One more than the limit tells a cut list from a full one (the
			// degree counts edges, and two edges may lead to one neighbour).
			ns, err := kg.Neighbors(cmd.Context(), args[0], rel, d, limit+min(limit, 1))
			if err != nil {
				return err
			}
			cut := limit > 0 && len(ns) > limit
			if cut {
				ns = ns[:limit]
			}
			if err := a.emit(ns, func(w io.Writer) error {
				med, err := mediators(cmd.Context(), kg, ns, func(store.Entity) string { return args[0] })
				if err != nil {
					return err
				}
				for _, n := range ns {
					fmt.Fprintf(w, "%s\t%s\n", n.ID, med.label(n))
				}
				return nil
			}); err != nil {
				return err
			}
			if cut {
				fmt.Fprintf(a.stderr, "grove: the first %d neighbours are shown; there are more (--limit 0 shows all)\n", limit)
			}
			return nil
		})
	}
	return cmd
}

func (a *app) kgDegree() *cobra.Command {
	var rel string
	cmd := &cobra.Command{Use: "degree ID", Short: "Count an entity's edges", Args: cobra.ExactArgs(1)}
	dir := dirFlag(cmd, "both")
	cmd.Flags().StringVar(&rel, "relation", "", "only along this relation")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		d, err := store.ParseDirection(*dir)
		if err != nil {
			return fmt.Errorf("--dir: %w", err)
		}
		return a.withKG(cmd.Context(), func(kg store.KG) error {
			n, err := kg.Degree(cmd.Context(), args[0], rel, d)
			if err != nil {
				return err
			}
			return a.emit(map[string]int64{"degree": n}, func(w io.Writer) error {
				_, err := fmt.Fprintln(w, n)
				return err
			})
		})
	}
	return cmd
}

func (a *app) kgFeatures() *cobra.Command {
	return &cobra.Command{
		Use:   "features ID",
		Short: "List an entity's literal-valued properties",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withKG(cmd.Context(), func(kg store.KG) error {
				fs, err := kg.Features(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				return a.emit(fs, func(w io.Writer) error {
					for _, f := range fs {
						fmt.Fprintf(w, "%s%s\n", subgraph.QualifierText(f), statementsText(f.Qualifiers))
					}
					return nil
				})
			})
		},
	}
}

// statementsText renders qualifiers one bracket per statement:
// " [start time: 1775; end time: 1788] [start time: 1798]", each named as
// the model reads it (subgraph.QualifierText: an item without a label is
// "Q82821 (no label in the KG)", never a bare id).
func statementsText(qualifiers []store.Feature) string {
	var b strings.Builder
	for _, st := range store.GroupQualifiers(qualifiers) {
		qs := make([]string, len(st))
		for i, q := range st {
			qs[i] = subgraph.QualifierText(q)
		}
		fmt.Fprintf(&b, " [%s]", strings.Join(qs, "; "))
	}
	return b.String()
}

// labelColumn is an entity's label where a table shows it next to its id:
// the label (a literal's value), or literal.NoLabel when the KG has none,
// so that the column never holds a bare id that reads as a name.
func labelColumn(e store.Entity) string {
	if e.Literal || subgraph.HasLabel(e.ID, e.Label) {
		return e.Label
	}
	return literal.NoLabel
}

// entityWithID names an edge's end with its id: "Blade Runner (/m/01)",
// or for an entity without a label its id followed by literal.NoLabel
// (subgraph.EntityText), not the id twice.
func entityWithID(e store.Entity) string {
	if e.Literal || subgraph.HasLabel(e.ID, e.Label) {
		return e.Name() + " (" + e.ID + ")"
	}
	return subgraph.EntityText(e)
}

// cutNote tells, on w (standard error, so that --json output stays one
// document), when a list of edges stopped at --limit: how many the
// ids have along rel in direction d (KG.Degree, summed: one per edge) and
// how to see them all. Nothing when the list was not cut.
func cutNote(ctx context.Context, w io.Writer, kg store.KG, ids []string, rel string, d store.Direction, shown, limit int) error {
	if limit <= 0 || shown < limit {
		return nil
	}
	var total int64
	for _, id := range ids {
		n, err := kg.Degree(ctx, id, rel, d)
		if err != nil {
			return fmt.Errorf("counting the edges: %w", err)
		}
		total += n
	}
	if total <= int64(shown) {
		return nil
	}
	_, err := fmt.Fprintf(w, "grove: %d edges shown of %d (--limit %d; --limit 0 shows all)\n", shown, total, limit)
	return err
}

// mediatorText maps the mediators among a command's entities (Freebase
// CVTs, Wikidata statement nodes: unlabelled nodes with edges of their
// own) to the text the model reads for them (reasoner.DescribeMediators).
type mediatorText map[string]string

// mediators describes the unlabelled entities among es; from names the
// node each was reached from (its edge back is left out).
func mediators(ctx context.Context, kg store.KG, es []store.Entity, from func(store.Entity) string) (mediatorText, error) {
	var ids []string
	back := map[string]string{}
	for _, e := range es {
		if e.Literal || subgraph.HasLabel(e.ID, e.Label) || back[e.ID] != "" {
			continue
		}
		ids = append(ids, e.ID)
		back[e.ID] = from(e)
	}
	m, err := reasoner.DescribeMediators(ctx, kg, ids, back)
	if err != nil {
		return nil, fmt.Errorf("describing unlabelled nodes: %w", err)
	}
	return m, nil
}

// edgeMediators describes the unlabelled ends of edges other than the
// queried ids.
func edgeMediators(ctx context.Context, kg store.KG, edges []store.Edge, queried []string) (mediatorText, error) {
	var ends []store.Entity
	other := map[string]string{}
	for _, e := range edges {
		for _, end := range [][2]store.Entity{{e.Subject, e.Object}, {e.Object, e.Subject}} {
			if !slices.Contains(queried, end[0].ID) {
				ends = append(ends, end[0])
				if other[end[0].ID] == "" {
					other[end[0].ID] = end[1].ID
				}
			}
		}
	}
	return mediators(ctx, kg, ends, func(e store.Entity) string { return other[e.ID] })
}

// withID is entityWithID, a mediator named by its id and its contents:
// "m.045j3 (actor: Harrison Ford; character: Rick Deckard)".
func (m mediatorText) withID(e store.Entity) string {
	if t := m[e.ID]; t != "" {
		return e.ID + " " + t
	}
	return entityWithID(e)
}

// label is labelColumn, a mediator's column its contents.
func (m mediatorText) label(e store.Entity) string {
	if t := m[e.ID]; t != "" {
		return t
	}
	return labelColumn(e)
}

func (a *app) kgSameAs() *cobra.Command {
	var graph string
	cmd := &cobra.Command{
		Use:   "sameas ID",
		Short: "Show the same entity in other graphs (cross-KG links)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withKG(cmd.Context(), func(kg store.KG) error {
				if err := knownGraph(cmd.Context(), kg, graph); err != nil {
					return err
				}
				ls, err := kg.SameAs(cmd.Context(), args[0], graph)
				if err != nil {
					return err
				}
				return a.emit(ls, func(w io.Writer) error {
					for _, l := range ls {
						fmt.Fprintf(w, "%s\t%s\t%s\t(via %s)\n", l.Graph, l.Target.ID, labelColumn(l.Target), l.Via)
					}
					return nil
				})
			})
		},
	}
	cmd.Flags().StringVar(&graph, "graph", "", "target graph (default: any)")
	return cmd
}

func (a *app) queryCmd() *cobra.Command {
	var lang string
	var limit int
	cmd := &cobra.Command{
		Use:   "query QUERY",
		Short: "Run a Cayley query (Gizmo, GraphQL or MQL) on the database",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := atLeast("--limit", limit, 1); err != nil {
				return err
			}
			return a.withKG(cmd.Context(), func(kg store.KG) error {
				qs, err := quadStoreOf(kg)
				if err != nil {
					return fmt.Errorf("grove query runs Cayley queries (Gizmo, GraphQL, MQL); %w", err)
				}
				// One more than the limit tells a cut list from a full one.
				res, err := query.Run(cmd.Context(), qs, lang, args[0], limit+1)
				if err != nil {
					return err
				}
				if n := query.LongestList(res); lang == "graphql" && n > limit {
					return fmt.Errorf("graphql: a list in the answer holds %d results, over --limit %d; ask for fewer "+
						"with first: (and offset:), or raise --limit", n, limit)
				}
				if len(res) > limit {
					res = res[:limit]
					defer fmt.Fprintf(a.stderr, "grove: the first %d results are shown; the query has more (--limit)\n", limit)
				}
				return a.printJSON(res)
			})
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "gizmo", "query language: gizmo, graphql or mql")
	cmd.Flags().IntVar(&limit, "limit", 100, "maximum results")
	return cmd
}
