// Package grbench reads the graph.json files of GRBench, the benchmark of
// Graph-CoT (Jin et al., 2024), into quads.
//
// # Input
//
// A graph.json is one JSON object with a key "<type>_nodes" per node type;
// each maps node ids to {"features": {...}, "neighbors": {...}}:
//
//	{"paper_nodes": {"53e9": {"features": {"title": "...", "year": 2015},
//	                          "neighbors": {"author": ["a9"], "venue": ["pub_3"]}}},
//	 "author_nodes": {"a9": {"features": {"name": "..."}, "neighbors": {"paper": ["53e9"]}}}}
//
// The files run to many gigabytes, so the reader never holds one in memory:
// it walks the outer objects with the token API of goccy/go-json and decodes
// one node at a time. Python wrote the files and pandas filled the legal
// graph with NaN, which is not JSON; a filter rewrites the bare tokens NaN,
// Infinity and -Infinity to an equal-width empty object, so they yield no
// edge and byte offsets stay exact. Errors name the node type, id, field and
// the byte offset of the node (JSON has no useful line numbers):
//
//	graph.json: paper_nodes["53e9"].neighbors.author[1]: at byte 812: neighbor id must be a string, got boolean
//
// (A neighbour id given as a JSON number is taken as its text: pandas
// wrote some ids as numbers.)
//
// An error from the writer (a backend check refusing a value, such as a
// NUL for PostgreSQL) also names the line of the node, counted as the file
// is read: graph.json:4: paper_nodes["53e9"].features.title: at byte 812: ...
//
// # Output
//
// A node "53e9" of type paper becomes the IRI "paper/53e9" (ids are unique
// only within a type in general; bytes IRIs cannot carry are
// percent-escaped). Per node:
//
//	<paper/53e9> <grove:nodeType> "paper"
//	<paper/53e9> <rdfs:label> "<text feature>"       the search text
//	<paper/53e9> <year> "2015"^^xsd:integer           one per feature value
//	<paper/53e9> <author> <author/a9>                 one per neighbor
//
// Edge and feature names are used as predicate ids unchanged, spaces
// included ("Compound-causes-Side Effect"), so that relation ids are the
// names GRBench questions and Graph-CoT prompts use.
//
// Features become literal edges named after the feature: strings, numbers
// (typed xsd:integer or xsd:double, keeping their lexical form such as
// "568480.0") and booleans give one edge; lists give one edge per element;
// nested objects are flattened with dotted names ("a.b"); null, "" and NaN
// give none. Neighbor lists may also be objects of lists (GRBench's "Dict"
// form, citations grouped by depth); they are flattened. Edge and feature
// predicates get an rdfs:label (underscores read as spaces), edges also a
// grove:inverseLabel, and each node type names the feature its labels come
// from: <paper> <grove:textFeature> "title".
//
// # Text features
//
// The label of a node is the first non-empty feature among
// Options.TextFeatures[type], else the GRBench default for the type (title
// for papers, items, books and series; name for authors, venues, brands and
// publishers; full_name for courts; case_name for opinion clusters and
// dockets, a docket without one by its pacer_case_id, GRBench's own
// fallback), else the first of name, title, full_name, case_name, label.
// Legal opinions get no label by default: their only feature is the whole
// opinion text.
//
// # Edge targets
//
// A neighbor id does not say its node type; the edge type does, and the
// reader resolves it in this order:
//
//  1. Options.EdgeTargets["type.edge"], then Options.EdgeTargets["edge"];
//  2. the built-in table of the GRBench domains: academic (DBLP, MAPLE:
//     paper, author, venue; reference and cited_by point at papers),
//     e-commerce (Amazon: item, brand; also_viewed_item and the other
//     *_item edges point at items), literature (Goodreads: book, author,
//     publisher, series; similar_books points at books) and legal
//     (opinion, opinion_cluster, docket, court; reference and cited_by
//     point at opinions);
//  3. Hetionet-style names "Source-verb-Target" (the biomedical graph:
//     "Compound-causes-Side Effect"): from a Source node the neighbors are
//     Targets and from a Target node Sources, spaces read as underscores;
//  4. otherwise the edge is resolved after the whole file is read: by the
//     node type of the neighbor id when exactly one type has a node with
//     that id, else by the edge's name ("publisher", "similar_books",
//     "also_viewed_item" name a node type of the file). An edge still
//     unresolved is bad input.
//
// Step 4 keeps an index of every node id (ids only, one map entry per node)
// and the deferred edges of unknown type in memory; graphs whose edge types
// all resolve by steps 1 to 3 keep only the index.
package grbench
