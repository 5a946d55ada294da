// Package labelindex maps entity labels and aliases to entity ids for one
// named graph. The storage engine builds one index per graph at ingest time
// and answers KG.Search with it; it is what Tree-of-Traversals' initialize(q)
// uses to turn a mention into candidate entities.
//
// # Keys
//
// Every label is reduced to a key by Normalize: Unicode NFKD decomposition
// with combining marks dropped ("Café" -> "cafe"), case folding ("Straße" ->
// "strasse"), punctuation, modifier symbols, separators and control
// characters turned into spaces, runs of spaces collapsed, and the result cut
// to MaxKeyLen bytes at a rune boundary. Queries go through the same function,
// so "Blade-Runner!" finds "blade runner".
//
// # Blob format
//
// Builder.Build writes one self-contained blob (all integers little endian):
//
//	header   64 bytes: magic "GRVLBLIX", version, flags, max key length,
//	         key count, id count, trie edge count, FST length, postings
//	         length, CRC-32C of everything but the CRC field, reserved zero
//	FST      a vellum FST mapping each key to the byte offset of its
//	         postings list
//	postings for each key in key order: uvarint(n), uvarint(first id),
//	         then n-1 uvarint deltas (ids are sorted and de-duplicated, so
//	         every delta is >= 1)
//
// Open checks the header, the lengths and the checksum before it hands the
// FST to vellum, so accidental corruption is reported by Open. A blob that was
// deliberately crafted to pass those checks still never makes the package
// panic or loop: every walk of the FST runs under a recover guard and a step
// budget derived from the header (see Verify), and every postings list is
// decoded with bounds checks.
//
// # Search
//
// Search ranks hits by (match kind, distance, label length difference, key,
// id) and returns at most one hit per id, the best one:
//
//   - Exact: the normalized query is a key.
//   - Prefix: the query is a proper prefix of the key; Distance is the number
//     of extra runes, so shorter labels come first. Keys are collected by
//     iterative deepening (keys at most 1, 2, 4, 8, ... runes longer than the
//     query) so that the shortest completions are found first without walking
//     the whole subtree of a one-letter prefix.
//   - Fuzzy: Levenshtein distance (in runes) within FuzzyDistance of the
//     query: none for queries under 4 runes, 1 for 4-7 runes and 2 for 8 or
//     more. Candidates come from walking the FST with a Levenshtein
//     automaton whose states are rows of the edit-distance table, computed
//     as the walk goes; their distance for ranking is measured with
//     agnivade/levenshtein. vellum's own Levenshtein DFA is not used: building
//     it costs more per query than the walk itself, and it misses matches of
//     long queries at distance 1 (the tests compare the two).
//
// A later phase only runs while fewer than limit distinct ids were found,
// since its hits would rank below every hit already found; likewise only the
// first limit ids of a key are decoded. Without caps the result is exactly
// the top limit of ranking every key (the tests check this against a brute
// force scan). Each phase visits at most SearchOptions.MaxVisit keys and
// takes at most 64 times that in automaton steps, so the cost of a query is
// bounded whatever the index size; a capped phase returns the best hits it
// saw.
//
// # Incremental ingest
//
// Merge writes a new blob from an open Index plus a Builder of new labels by
// streaming both in key order, so the old index is never materialized; the
// result is byte for byte the blob of building everything at once. Iterate
// walks all keys in order for other uses.
//
// # Updates
//
// Small updates do not rewrite the index: WriteSegment writes a Segment,
// the (key, id) pairs one update adds and deletes, and a View is a main
// Index with segments applied in order (a pair is live when the newest
// layer mentioning it adds it). View.Search searches every layer, drops
// pairs a later segment deletes and merges the hits with the same ranking
// and one-hit-per-id rule as Index.Search; View.Compact streams the main
// index with the segments and an optional Builder applied into a new
// blob, the way Merge does.
//
// # Bounded memory
//
// A Builder from NewSpillingBuilder keeps at most about SpillOptions.Budget
// bytes of pairs (16 bytes plus the key per pair). Past the budget it sorts
// them and writes a sorted run to a temporary file: each distinct pair as
// the length of the prefix it shares with the previous key, the rest of
// the key and the id, all uvarints. Building merges the runs and the
// sorted pairs still in memory with a heap into the same key stream an
// in-memory Builder yields (ids grouped per key, duplicates dropped), so
// Build, Merge, View.Compact and WriteSegment have one code path whatever
// was spilled, and the blob is byte for byte the same. A Builder whose
// pairs fit never touches the disk.
//
// The blob itself is written without holding it: its header comes first
// but holds the sections' lengths and CRC, so vellum writes the FST to a
// spool and the postings go to another (memory up to a quarter of the
// budget each, then a temporary file), a second pass over both computes
// the CRC in blob order, and a third copies header, FST and postings to
// the writer. vellum's own builder holds only the unfinished path and a
// fixed-size node registry. Temporary files are removed after a build,
// after an error and when the context passed to MergeContext,
// CompactContext or BuildContext is cancelled; run files last until
// Builder.Close.
//
// # Cost
//
// An in-memory Builder holds about 16 bytes per label plus its key bytes
// and sorts in memory (8M generated labels: 415 MiB of live heap). A
// spilling one holds about 1.7 times its budget whatever the number of
// labels (slice growth, then while building one read buffer per run and
// the two section spools; 8M labels in 16 MiB: 38 MiB) and writes each
// pair once more, which smaller sorts and less GC work pay for (see
// BenchmarkBuildSpill and BENCHMARKS.md). Open costs one CRC pass over
// the blob; it does not walk the FST, because Verify, which does, takes
// about half a microsecond per key.
package labelindex
