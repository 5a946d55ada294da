// Package wikidata reads Wikidata JSON dumps (latest-all.json and subsets)
// into Grove quads. It implements source.Reader; the loader hands it an
// already decompressed stream.
//
// # Input
//
// The dump is a JSON array with one entity per line: "[", then lines
// "{...}," and a last "{...}", then "]". Lines holding one entity without
// the array (JSON lines), "[{...}," and "{...}]" are accepted too, as are
// CRLF line ends, blank lines and a byte-order mark. Items, properties and
// (with KeepLexemes) lexemes are read; lexemes are dropped otherwise.
// Empty maps written as "[]" by old dumps are accepted.
//
// # Output
//
// Ids are bare entity ids as IRIs ("Q64", "P17", "L7"). Per entity:
//
//	<Q64> grove:nodeType "item" | "property" | "lexeme"
//	<Q64> rdfs:label "Berlin"@en           (chosen languages; when none, one fallback:
//	                                        "mul", else a variant of a chosen language
//	                                        ("en-gb" for "en"), else "en", else an "en-*"
//	                                        variant, else the smallest code)
//	<Q64> schema:description "..."@en      (chosen languages, same fallback)
//	<Q64> skos:altLabel "..."@en           (each alias)
//	<Q64> <P17> <Q183>                     (each kept statement, see below)
//	<Q64> <p:P17> <stmt>                   (kept statements with qualifiers)
//	<stmt> <ps:P17> <Q183>
//	<stmt> <pq:P580> "+1990-10-03T00:00:00Z 11"^^grove:time
//	<Q64> grove:sameAs <mb:area/...>       (MusicBrainz id properties)
//	<Q64> schema:subjectOf "https://en.wikipedia.org/wiki/Berlin"^^xsd:anyURI
//
// The statement node is the Wikidata statement id as an IRI, exactly as in
// the dump ("Q64$5B4B..." — old dumps also have "q64$..."). Lexemes add
// their lexical category and language as edges; forms and senses are not
// read. Properties get labels, descriptions and aliases like items, so
// relation labels come from them.
//
// Kept statements: by default the best rank of each property ("truthy":
// the preferred statements if there is one, else the normal ones); with
// AllRanks every preferred and normal statement. Deprecated statements are
// never kept. A novalue snak (main or qualifier) keeps nothing: "no
// value" is not represented. A somevalue snak (a value exists but is
// unknown) becomes a grove:unknown literal naming its snak, which
// store/literal renders "unknown value": the statement id for a main snak
// ("Q31$15b2...", or "<entity> <property> <index>" without an id) and
// "<statement id> <qualifier property> <index>" for a qualifier, so each
// unknown value is its own (two unknown children are two edges) and none
// reads as the string "unknown value". A claim filter value never matches
// an unknown value. Two kept statements with the same value give
// one direct edge (each still has its statement node). The statement node
// is written only when at least one qualifier has a value.
//
// Values: wikibase-item/property/lexeme/form/sense become IRI edges;
// string, external-id, commonsMedia, math, musical-notation, geo-shape and
// tabular-data plain strings; monolingualtext a language-tagged string; url
// an xsd:anyURI literal; time a grove:time literal "<time> <precision>",
// with a third field "julian" for Julian-calendar dates of month precision
// or finer (precision 10-14: month, day, hour, minute, second; every one
// names a month, which the calendar changes) and not for coarser ones
// (years and beyond); quantity a
// grove:quantity literal "<amount>" or "<amount> <unit id>", with the
// bounds after the amount when they differ from it ("95 [70,120] Q743895";
// bounds equal to the amount, Wikidata's "±0" default, are not written;
// a quantity with one bound only is an error); globecoordinate a WKT literal "Point(lon lat)", prefixed with
// the globe IRI when it is not Earth. store/literal renders all of them.
//
// After the last entity the reader writes the property metadata it
// collected: <P> grove:inverseLabel "label of the inverse"@lang for every
// property with an inverse property (P1696) when both labels are known in
// that language (otherwise the engine derives one, store.InverseLabel), <P> grove:hidden
// "true" for every property whose datatype is external-id (seen on a
// property entity or on any snak), and a label and hidden mark for the
// sitelink predicate. These are per Read: split dumps read in separate
// calls resolve inverses within each call only.
//
// # Errors
//
// A bad line gives a *source.Error naming the file, the line and the field
// ("dump.json:12: claims.P585[0].mainsnak: datavalue: time precision 15
// out of range 0-14"); with SkipInvalid the whole entity is skipped and
// counted. Members the reader does not use (other languages, references,
// page metadata) are skipped by bracket matching, not validated; so are
// the datavalues of statements that are not kept (deprecated ones, and
// lower ranks without AllRanks).
//
// # Pipeline and memory
//
// One goroutine reads lines into batches of about BatchBytes (1 MiB); a
// pool of Workers goroutines (GOMAXPROCS) decodes and converts them to
// quads; the calling goroutine writes the batches in input order, so the
// output is the same for any number of workers. Decoding is one pass of
// the package's own scanner over the line (decode.go), with no reflection:
// only the chosen languages are turned into strings, datavalues stay raw
// bytes until their statement is kept, and the converter reuses its
// buffers and boxes each predicate once per worker. Lexemes and entities
// excluded by an id filter are dropped from their id alone, before
// decoding. Keys are matched exactly (the dump's spelling); a member given
// twice counts once (the last; claims and qualifiers merge by property).
//
// Memory is bounded whatever the dump size: at most 2·Workers+2 batches
// are in flight (channel capacities) and at most 2·Workers+3 more wait for
// reuse, each holding about BatchBytes of input (or one line, up to
// MaxLineBytes, 64 MiB) and the quads decoded from it (fewer bytes than the
// input, since other languages are dropped). With 2 workers and the
// defaults that is about 13 × 2 MiB plus the decoder's garbage and each
// worker's statement storage (sized by the largest entity read so far), plus
// the labels of the property entities (about 12,000 properties) and each
// worker's predicate cache (at most 65,536 properties).
package wikidata
