package store

// Well-known predicates. Readers in ingest/ emit these so that the engine can
// find labels, descriptions, aliases and relation metadata without knowing
// which dump a graph came from. The sets the engine consults are configurable
// per graph (see LabelConfig); these are the defaults.
const (
	RDFSLabel      = "http://www.w3.org/2000/01/rdf-schema#label"
	RDFType        = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
	SKOSPrefLabel  = "http://www.w3.org/2004/02/skos/core#prefLabel"
	SKOSAltLabel   = "http://www.w3.org/2004/02/skos/core#altLabel"
	SchemaName     = "http://schema.org/name"
	SchemaDesc     = "http://schema.org/description"
	OWLSameAs      = "http://www.w3.org/2002/07/owl#sameAs"
	FreebaseName   = "type.object.name"
	FreebaseAlias  = "common.topic.alias"
	FreebaseDesc   = "common.topic.description"
	FilmSampleName = "name"

	// GroveInverseLabel gives a relation's inverse label ("is director of").
	GroveInverseLabel = "grove:inverseLabel"
	// GroveHidden marks a relation that reasoners hide by default (external
	// identifiers); the object is the literal "true".
	GroveHidden = "grove:hidden"
	// GroveSameAs links an entity to the same entity in another graph; the
	// object's graph is found from the object id.
	GroveSameAs = "grove:sameAs"
	// GroveNodeType gives a node's type name (GRBench node types, Wikidata
	// "item"/"property", Freebase CVT marks).
	GroveNodeType = "grove:nodeType"
	// GroveTextFeature names, on a node type, the feature used for search.
	GroveTextFeature = "grove:textFeature"
)

// LabelConfig says which predicates hold labels, aliases and descriptions.
type LabelConfig struct {
	Label       []string `json:"label" mapstructure:"label"`
	Alias       []string `json:"alias" mapstructure:"alias"`
	Description []string `json:"description" mapstructure:"description"`
}

// DefaultLabelConfig covers RDF, SKOS, schema.org, Freebase and the bare
// <name> predicate of the Freebase film sample.
func DefaultLabelConfig() LabelConfig {
	return LabelConfig{
		Label:       []string{RDFSLabel, SKOSPrefLabel, SchemaName, FreebaseName, FilmSampleName},
		Alias:       []string{SKOSAltLabel, FreebaseAlias},
		Description: []string{SchemaDesc, FreebaseDesc},
	}
}

// Statement (qualifier) predicates, following Wikidata's RDF prefixes. A
// qualified statement S -P-> O is stored as the direct edge S P O plus a
// statement node T with S "p:P" T, T "ps:P" O and T "pq:Q" V for each
// qualifier Q. The engine hides these predicates from relation listings and
// attaches the qualifiers to the direct edge.
const (
	StatementPrefix      = "p:"
	StatementValuePrefix = "ps:"
	QualifierPrefix      = "pq:"
)

// Literal datatypes that Grove readers emit and store/literal renders.
const (
	XSDDate       = "http://www.w3.org/2001/XMLSchema#date"
	XSDGYearMonth = "http://www.w3.org/2001/XMLSchema#gYearMonth"
	XSDGYear      = "http://www.w3.org/2001/XMLSchema#gYear"
	XSDDateTime   = "http://www.w3.org/2001/XMLSchema#dateTime"
	XSDAnyURI     = "http://www.w3.org/2001/XMLSchema#anyURI"
	// GroveQuantity is "<amount>" or "<amount> <unit entity id>", with
	// optional bounds after the amount: "95 [70,120] Q743895"; parse it
	// with literal.ParseQuantity.
	GroveQuantity = "grove:quantity"
	// GroveTime is a Wikidata time with precision: "<Wikidata timestamp>
	// <precision 0-11> [julian]", e.g. "+2010-07-08T00:00:00Z 11"; parse it
	// with literal.ParseTime.
	GroveTime = "grove:time"
	// GroveUnknown is an unknown value (Wikidata's "somevalue"): a value
	// exists but is not known. Its lexical form only names the snak it
	// comes from (a statement id, "Q31$..."), so that two unknown values
	// are two; store/literal renders every one as "unknown value".
	GroveUnknown = "grove:unknown"
	// WKTLiteral is a geo point "Point(lon lat)".
	WKTLiteral = "http://www.opengis.net/ont/geosparql#wktLiteral"
)

// MusicBrainz ids are "mb:<entity type>/<mbid>", e.g.
// "mb:artist/5b11f4ce-a62d-471e-81fc-a69a8278c7da"; the entity type is the
// path segment of MusicBrainz URLs (artist, release-group, recording, ...).
const MusicBrainzPrefix = "mb:"
