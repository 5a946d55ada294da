// Package engine is Grove's storage engine: a knowledge-graph store on
// Badger v4 that is at the same time a Cayley graph.QuadStore (so Gizmo,
// GraphQL and MQL run on it unchanged) and an implementation of store.KG,
// the interface the reasoners use.
//
// # Layout
//
// Every term (IRI, blank node, literal) is stored once in a dictionary,
// term -> 8-byte id and id -> term. Quads are not stored one key each:
// edges are grouped into posting lists of sorted, delta-encoded ids,
//
//	S <s> <p> <g> <chunk>   objects of (s, p) in graph g
//	O <o> <p> <g> <chunk>   subjects of (o, p) in graph g
//	P <p> <g> <chunk>       subjects having p in graph g
//	R <S|O> <node>          node summary: (p, g, count) of each of its groups
//
// split into chunks of 4,096 ids; chunk 0 starts with the list's length.
// The node summaries make the questions reasoners ask most — which
// relations does this entity have, how many edges each — one point read,
// whatever the entity's degree (a hub such as Wikidata's "human" has
// millions of incoming edges but a few hundred relations). See keys.go for
// the exact encoding.
//
// # Writing
//
// The bulk Loader buffers a whole run in memory (32 bytes per quad plus
// the new terms), so a run that fails to parse leaves the database
// untouched. Commit sorts the quads, merges every group with what is
// stored (re-ingesting a file changes nothing) and writes each keyspace as
// a sorted stream through Badger's StreamWriter, directly into tables.
// Before writing it leaves a marker file with the id range it reserves; a
// crash mid-write therefore leaves the earlier data intact and is reported
// on the next open, and re-running the same load completes it and
// recomputes the counters. Small updates and deletes go through
// ApplyDeltas in ordinary transactions, which keep the lists, summaries,
// counters and dictionary (terms no quad uses any more are dropped) in
// step; Cayley's writers use this path.
//
// # Reading
//
// Labels, descriptions and aliases are ordinary quads whose predicates the
// graph's store.LabelConfig names; the first English (or untagged) label
// wins. Each graph has a label index (package labelindex) under labels/:
// a memory-mapped main index written by bulk loads, plus small delta
// segments that ApplyDeltas writes before its commit and names in the
// graph's meta record, merged into a new main index on a size threshold
// or the next bulk load; the graph's label count is kept in its meta
// record (see labelstore.go). Terms, labels,
// predicate descriptions and degrees are cached. Literals are rendered for
// humans by package literal.
package engine
