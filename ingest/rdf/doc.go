// Package rdf reads N-Triples and N-Quads dumps, plain or as the Freebase
// and Wikidata truthy dialects, and implements source.Reader. It also reads
// Turtle (TurtleReader) and RDF/XML (RDFXMLReader), the formats private
// knowledge graphs are usually exported in.
//
// # Turtle and RDF/XML
//
// Both are parsed here rather than with github.com/knakk/rdf (pinned at
// v0.0.0-20190304171630-8521bf4c5042, tried first): its Turtle decoder
// stops silently at a statement ending "; ." (dropping the rest of the
// file), names anonymous blank nodes "_:bN" so that they merge with labelled
// ones, prints to stderr, and lexes on a goroutine whose runtime panics
// cannot be recovered; its RDF/XML decoder rejects DOCTYPE entities (&xsd;),
// drops inherited xml:lang, leaves collection members unresolved and
// attaches properties after a collection to the wrong subject. The readers
// here stream (one statement or XML token at a time), share the N-Triples
// reader's term conventions, dialects and transforms, and are checked
// against serdi and rapper on the fixtures in testdata/.
//
// # Parsing
//
// The parser is a hand-written, allocation-lean line parser rather than
// github.com/cayleygraph/quad/nquads: that package reports no line numbers,
// converts every line to []rune, does not unescape \u escapes in IRIs and
// auto-converts typed literals through a package-level switch. This one
// follows the W3C N-Triples/N-Quads grammar (IRIs with \u/\U escapes, blank
// nodes, literals with the escapes \t \b \n \r \f \" \' \\ \uXXXX
// \UXXXXXXXX, language tags, datatypes, comments, blank lines, minimal
// whitespace), validates UTF-8 (a byte order mark opening the input is
// skipped), and reports the byte column of each error.
// Two deliberate relaxations: relative IRIs are accepted unless
// Options.Strict is set, because the Freebase film sample uses them; and
// blank node labels may also hold, after their first character, the
// characters of Grove's scoped names and of IRIs that N-Quads and Turtle do
// not use as delimiters (/ @ # ? = & % + ~ ! $ *; see isScopedChar), so
// that the N-Quads Grove writes ("_:film/1", "_:film/export.ttl@3f2a#3",
// "_:musicbrainz/mbrel-…") read back. A label still may not end with '.',
// a '#' right after a '.' starts a comment ("_:b.#c" is "_:b", the final
// '.' and a comment, as N-Triples says), and a label must be followed by
// whitespace, '<', '"', its final '.' or the end of the line (anything else
// is an error of the label's term).
// Parser.SetGeneralized accepts, for Grove's Cayley write routes only,
// the generalized quads Cayley stores (a literal subject, predicate or
// graph label, a blank node predicate); readers for grove ingest never
// set it.
// "x"^^xsd:string is returned as the plain literal quad.String("x"); other
// typed literals stay quad.TypedString (the engine renders them).
//
// Lines are read with bufio.Reader.ReadSlice from a 1 MiB buffer, so the
// common case copies each byte once (into the strings of the quad). The
// parser interns predicates and datatypes (bounded caches) and reuses the
// previous subject, which sorted dumps repeat line after line.
//
// # Graphs, blank nodes and labels
//
// Blank nodes are scoped by the target graph (Options.Graph): "_:b1" read
// into graph "film" becomes quad.BNode("film/b1"), so the blank nodes of
// two loads into different graphs never merge, and re-reading a file yields
// the same quads. The fourth term of N-Quads lines is dropped unless
// Options.KeepLabels is set; the loader then puts every quad into the
// target graph. With KeepLabels the scope is still the target graph, not
// the quad's label: one document's "_:b1" is one node (as RDF says it is
// within a document), so its quads labelled gA and gB and its unlabelled
// ones (in graph "g") share quad.BNode("g/b1") across graphs gA, gB and g.
//
// A label that is already scoped is kept, so that a Grove dump read back
// gives the same nodes: "_:film/b1" read into graph "film" stays
// quad.BNode("film/b1") (not "film/film/b1"), and with KeepLabels every
// label holding '/' (a standard label never does) is kept whatever graph
// it is scoped to, so a dump of several graphs read with its labels gets
// back every graph's blank nodes. Read into another graph without
// KeepLabels, "_:film/b1" becomes "other/film/b1": a copy of a graph gets
// blank nodes of its own.
//
// The blank nodes Turtle and RDF/XML create without a label ([...],
// collections, node elements without rdf:nodeID) are named
// "<graph>/<document>#<n>" after Options.Document, '#' keeping them apart
// from labelled ones. The ingest package names a file by its base name
// and a hash of its absolute, cleaned path, so every spelling of the path
// gives the same nodes, files with the same name in two directories never
// share one (a moved file gives new names), and node ids show no
// directory of the loading machine. Standard input has no path: it is named by a
// random name per run, so two streams never share anonymous nodes, and
// re-reading a stream yields new ones (re-ingesting it adds them again; a
// delete from standard input cannot find them).
//
// # Bad input
//
// A bad line becomes a *source.Error "file:line: subject at column 3: ..."
// wrapping a *SyntaxError, passed through source.Options.Skip: fatal by
// default, counted and skipped with SkipInvalid. Lines over
// Options.MaxLineBytes (64 MiB by default) are bad lines too, so memory
// stays bounded by that limit plus the 1 MiB read buffer.
//
// # Dialects and transforms
//
// A Dialect rewrites the quads of one kind of dump to Grove's conventions
// (store/vocab.go): Freebase shortens rdf.freebase.com IRIs to MIDs and
// drops bookkeeping; WikidataTruthy shortens wd:/wdt: IRIs to Q/P ids, marks
// external-id properties hidden and links MusicBrainz ids. A Dialect's
// Mapper may emit several quads per input quad and keeps per-stream state,
// so a Reader can serve several streams. Options.Transform is a plain
// per-quad hook applied last, for user rewrites and filters.
package rdf
