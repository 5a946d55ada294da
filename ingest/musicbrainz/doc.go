// Package musicbrainz reads MusicBrainz JSON dumps into quads.
//
// # Input
//
// MusicBrainz publishes one <entity>.tar.xz per entity type (artist,
// release-group, release, recording, work, label, place, area, event,
// series, instrument, genre); each holds mbdump/<entity>, one WS/2 JSON
// document per line. The reader takes the tar stream (entity type from the
// member name) or plain JSON lines. The entity type of plain lines is
// Options.EntityType, else the file's name when it names a type as the
// dumps do ("artist.jsonl", "release-group.json.gz", "mbdump/recording"),
// else guessed per document from fields only that type has (an "artist"
// document without gender, IPIs or ISNIs is recognised by its "type":
// "Person", "Group", ...; series, instruments and genres are told apart
// only by "description" and "type", so name their files). An xz-compressed
// archive handed to Read directly is decoded in process
// (github.com/ulikunitz/xz); input.Open normally does that first. Documents are decoded one
// line at a time; a bad one is reported with file, line and field
// ("artist.tar/mbdump/artist:12: relations[3].url.resource: ...") and, with
// SkipInvalid, skipped whole.
//
// # Output
//
// Ids are "mb:<type>/<mbid>" (store.MusicBrainzPrefix). Per entity:
//
//	<mb:artist/b10b…> grove:nodeType "artist"
//	<mb:artist/b10b…> rdfs:label "The Beatles"          name, or title
//	<mb:artist/b10b…> skos:altLabel "Beatles, The"      sort name and aliases
//	<mb:artist/b10b…> schema:description "..."          disambiguation
//	<mb:artist/b10b…> <mb:prop/begin> "1960"^^xsd:gYear life span and dates
//	<mb:artist/b10b…> <mb:prop/area> <mb:area/8a75…>    embedded entities
//
// Literal properties are "mb:prop/<name>" (type, gender, country, status,
// begin, end, first_release_date, length_ms, ...; external identifiers such
// as isni, ipi, isrc and barcode are marked grove:hidden). Dates keep
// MusicBrainz precision as xsd:gYear, xsd:gYearMonth or xsd:date; a part
// of 00 means unknown and is dropped with the parts after it ("1960-00-00"
// is the year 1960, a year 0000 no date), and a month above 12 or a day
// past the end of its month ("2020-02-30") makes the document bad. Aliases
// without a locale or in one of Options.Languages become skos:altLabel.
// Embedded entities (areas, genres, artist credits, release groups, labels,
// track recordings, relationship targets) get their type and label too, so
// a dump read alone still names what it links to.
//
// # Relationships
//
// Each element of "relations" becomes an edge in MusicBrainz's canonical
// orientation, entity0 to entity1: a "member of band" relationship on the
// band's document (direction "backward") is written as
// <member> <mb:rel/artist-artist/member_of_band> <band>. The predicate is
// "mb:rel/<entity0 type>-<entity1 type>/<type>" because MusicBrainz reuses
// type names across entity pairs; its rdfs:label is the forward reading
// ("member of band"), grove:inverseLabel the backward one ("has member")
// and skos:altLabel the MusicBrainz type name when that differs.
//
// Attributes, begin and end dates, the credited names and the ordering key
// are kept on a statement node, following store's p:/ps:/pq: convention:
//
//	<member> <p:mb:rel/artist-artist/member_of_band> _:musicbrainz/mbrel-…
//	_:musicbrainz/mbrel-… <ps:mb:rel/artist-artist/member_of_band> <band>
//	_:musicbrainz/mbrel-… <pq:mb:qual/instrument> "guitar"
//	_:musicbrainz/mbrel-… <pq:mb:qual/begin> "1957"^^xsd:gYear
//
// so the engine shows "member of band: The Beatles (instrument guitar,
// begin 1957)". Attributes with a value keep their own name ("number"),
// vocal attributes are "vocals", flags such as "additional" or "original"
// are "attribute", and the remaining attributes of instrument-bearing
// relationships are "instrument". The name an end is credited with
// (source-credit and target-credit, read from either document) is
// "subject_credited_as" for the edge's subject (entity0) and
// "object_credited_as" for its object. The statement node is a blank node
// scoped by Options.Graph and named by a hash of the relationship's content,
// so the copies of one relationship found in the documents of both its entities
// are identical quads. Within one read, relationships between two entities
// of the dump's own type are written once; relationships to other types are
// written from whichever document has them, and when several dumps are
// loaded into one graph Options.ForwardOnly keeps only the copy on the
// entity0 side.
//
// Relationships to URLs become xsd:anyURI literals on hidden predicates; a
// "wikidata" URL relationship also gives <entity> grove:sameAs <Q1299>, the
// bare Wikidata item id.
package musicbrainz
