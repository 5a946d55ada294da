// Package engine is Grove's storage engine: a knowledge-graph store on
// Badger v4 that is at the same time a Cayley graph.QuadStore (so Gizmo,
// GraphQL and MQL run on it unchanged) and an implementation of store.KG,
// the interface the reasoners use.
//
// # Layout
//
// Every term (IRI, blank node, literal) is stored once in a dictionary:
// term -> 8-byte id, and id -> term packed 16 consecutive ids per key (ids
// are handed out sequentially). Quads are not stored one key each: for
// every node and direction one node block lists its (predicate, graph,
// count) groups and holds the members of small groups (at most 8) inline;
// larger groups are posting lists of sorted, delta-encoded ids in chunks of
// up to 4,096 ids,
//
//	R <S|O> <node>          node block: (p, g, count [, members]) per group
//	S <s> <p> <g> <chunk>   objects of a large (s, p) group in graph g
//	O <o> <p> <g> <chunk>   subjects of a large (o, p) group in graph g
//	P <p> <g> <chunk>       subjects having p in graph g
//
// so a typical entity costs one key per direction, and the questions
// reasoners ask most — which relations does this entity have, how many
// edges each, what are its few values — are one point read whatever the
// entity's degree (a hub such as Wikidata's "human" has millions of
// incoming edges but a few hundred relations). See keys.go, summary.go and
// idblock.go for the exact encodings. Bulk and incremental writes use this
// one layout.
//
// Node blocks are split by graph into up to eight segments (segment.go):
// segment 0 under R<S|O><node>, segment k under R<s|o><k><node>. Each
// graph's groups live in one segment, so a node's block is the union of
// its blocks in the segments in use, read as one (readBlock; one point
// read per segment). Every graph is in segment 0 unless a large bulk load
// of new graphs into a database that already held data gave them a
// segment of their own; a database with such a segment has format version
// 4, one without keeps version 3. MergeSegments (grove optimize) moves
// every block back into segment 0, crash-safe (segmerge.go).
//
// # Bulk loads
//
// The bulk Loader keeps memory bounded by LoadOptions.MaxMemory whatever
// the input size, with QLever's scheme for dictionary encoding: the input
// is read in batches, each with a dense batch-local vocabulary; a full
// batch is spilled (vocabulary sorted by term, quads in local ids) to a
// temporary directory inside the database directory, by a background
// goroutine while reading goes on. WriteQuad only checks a quad and queues
// it: a feed goroutine (feed.go) encodes and interns the terms, so the
// caller's parser and the interning run on two cores. The batch vocabulary (termtable.go) is
// an open-addressing hash table over an arena of term bytes: no
// allocation and nothing for the garbage collector to scan per term; it is
// sorted for the spill by an MSD radix sort on 8-byte digits that skips a
// group's long shared prefix (a datatype IRI, a URL's host) in one pass.
// The vocabulary is too large for the CPU cache, so the feed goroutine
// takes a block of quads at a time (Loader.addBlock): it encodes and
// hashes the block's objects and loads their hash slots in one loop, so
// the cache misses overlap, before interning them; predicates, few and
// repeated, come from a small cache by name (Loader.predicate) and
// subjects from the batch's last subject. Commit then
// runs these phases, each logged and reported to LoadOptions.Progress:
//
//   - dictionary: one k-way merge of the batch vocabularies with the stored
//     dictionary (an iterator over the term keys) gives every term its
//     global id — new ids in term order, so both dictionary keyspaces
//     come out sorted — and writes each batch's local -> global array
//     and the list of new entries (dictlist.go); the merge and the
//     stored lookups run on two goroutines. Beyond 256 batches the
//     vocabularies are merged in groups first and the group maps composed
//     back into batch maps (vocabgroup.go), so the phase holds at most
//     512 files whatever the input size;
//   - map: each batch's quads go through its array into two external
//     sorters (sorted runs on disk: a radix sort on the first field, then
//     each run of it by the rest), the S order on one goroutine
//     and the O order on another; the two take turns, batch by batch, at
//     adding the labels to the label index builders. A sorter left with
//     more than 255 runs merges its oldest runs into longer ones first
//     (extsort.go), so the write phase's merges hold at most 256 open
//     runs each whatever the input size (from ~1.4B quads at 2 GiB). The
//     two sorters are then settled: their last runs are spilled and their
//     buffers dropped, leaving the write phase's memory to Badger;
//   - write: merging the runs streams every keyspace in key order through
//     Badger's StreamWriter. The dictionary goes first: the term -> id
//     keys, ended before the id blocks, so a crash never leaves an id
//     block whose term key is missing (the re-run would number that term
//     again). Then the S and O
//     sides concurrently, merged with stored blocks and lists by a
//     sequential scan, with the P sorter fed from a third goroutine and
//     the P lists written as soon as the S side is done, then the
//     counters. No posting list is held whole, however large a hub: a
//     list past 256Ki ids is spooled to the temporary directory chunk by
//     chunk until its length, which its first chunk records, is known,
//     and a stored list is merged as it is read, chunk by chunk
//     (listwriter.go). Records go into the StreamWriter's buffers hand-encoded
//     (kvwriter.go putKV), not through protobuf reflection. Badger builds
//     each table in memory, so the tables are sized from the budget the
//     database was opened with (Options.LoadMemory, db.go bulkTableSize),
//     and GoMemoryLimit gives the Go memory limit that leaves the GC room.
//     Badger keeps every table open and mapped, so before this phase the
//     load checks that its tables will fit under the limits on open files
//     and memory maps, and is refused otherwise (tablelimit.go);
//   - labels: the label and alias entries found while reading are merged
//     into each graph's label index. The index files are written on a
//     goroutine of their own while the write phase runs (they need only
//     the global ids), and named in the graphs' meta records once the
//     keys are flushed; this phase waits for them (search.go labelBuild).
//
// Into a database that already holds data (another graph, say) the keys go
// through an incremental StreamWriter, as tables one level above the
// stored ones (kvwriter.go). A load of at least a million quads whose
// graphs are all new writes their node blocks into a segment of its own,
// a key range no stored table covers: the stored blocks are neither read
// nor rewritten, even where the new graph shares every entity with the
// stored ones (segment.go). Otherwise each group goes to its graph's
// segment, and every node block the load touches there is written whole:
// the stored blocks of a direction and segment are read by one forward
// iterator in node order (a merge join with the R keyspace), and their
// entries are copied byte for byte between the new groups without being
// decoded (blockmerge.go); only a group present in both, the same graph
// loaded again, has its members merged with the new ones as they are
// read, and its stored chunk keys past the new last chunk are deleted. Badger's compactors then merge
// the new level into the stored one (the compact phase). The keyspaces get
// versions in the order they should be merged (kvwriter.go compactLate):
// node blocks first, since they may leave stale blocks below, the
// dictionary last, since its few new terms would make the merge rewrite
// every stored term table; what is left above once the level is under its
// target size stays there. The load returns
// only when no level is due for compaction (kvwriter.go waitCompactions),
// so the database is as compact at exit whatever the timing.
//
// Temporary files are compact (spillcodec.go): sorted term lists are
// front-coded, batch quads and id maps are varint deltas, sorted runs
// store the first differing key field as a delta — about 24 bytes per
// quad at the peak of a 20M-quad load, where plain records took 48.
// Options.CompressTemp adds s2 compression (about 14 bytes per quad, for
// about 10% more CPU).
//
// Nothing touches the database before the write phase: a parse error, a
// cancelled context (SIGINT) or a full disk while spilling leave it as it
// was, and the temporary files are removed in every case (a later Open
// removes those of a killed process). Before writing, the loader checks the
// free disk space and leaves a marker with the id ranges it reserves
// (those of the runs of an interrupted load it re-runs, and its own); a
// crash mid-write leaves the earlier data intact and is reported on the
// next open; until the load is re-run, reads hide the groups of its new
// (unregistered) graphs and the terms its runs numbered (loadfilter.go),
// never those of writes between the runs, but not edges it added to
// graphs registered before it. Re-running the same load
// completes it (loads are idempotent) and recomputes the counters. Every dictionary stream is
// ended (its last table written) before any list key is written, so a
// list never names an id whose term was not stored
// (TestDictionaryStreamsEndBeforeLists). StreamWriter.Prepare (which drops every key) is used
// only after a positive check that the keyspace is empty.
//
// # Incremental writes
//
// ApplyDeltas (Cayley's writers, `grove ingest --incremental`) applies a
// batch of any practical size in one Badger transaction: the batch edits
// decoded node blocks and posting lists in memory and then writes each
// touched key once — only the changed chunks of a large list, plus its
// chunk 0, which holds the total — so its cost follows the change rather
// than the number of deltas times the list sizes. Terms that no quad uses
// any more are dropped from the dictionary at the end of the batch. Either
// every delta is applied or none; a batch too large for one Badger
// transaction fails whole (use the bulk loader for such loads).
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
// predicate descriptions, resolved ids and degrees are cached; every cache
// but the terms' is valid only for snapshots taken after the last write
// (predcache.go). Literals are rendered for humans by package literal.
//
// # Processes
//
// Badger locks the database directory: a writable Open takes the lock
// alone, read-only Opens (Options.ReadOnly) share it, so any number of
// processes may read one database (grove's read-only commands, several
// evaluations) but none beside a writer. A refused Open returns ErrInUse
// naming the processes holding the lock and how (from /proc/locks on
// Linux; lock.go). A read-only Open of a database whose writer was killed
// replays the writer's log first, through a writable Open it closes at
// once (db.go openBadger).
package engine
