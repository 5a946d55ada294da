package sparqlkg

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Search methods a dialect can name.
const (
	// SearchLabel matches labels exactly and by prefix with FILTERs: works
	// on any endpoint, fine for small graphs, slow on large ones.
	SearchLabel = "label"
	// SearchVirtuoso uses Virtuoso's free-text index (bif:contains).
	SearchVirtuoso = "bif:contains"
	// SearchQLever uses QLever's text index (ql:contains-word).
	SearchQLever = "ql:contains-word"
	// SearchWikidataAPI calls the wbsearchentities API of a Wikibase.
	SearchWikidataAPI = "wikidata-api"
)

// Prefix maps an id prefix to an IRI prefix: the id "m.0f8l9c" with
// Prefix{ID: "", IRI: "http://rdf.freebase.com/ns/"} is the IRI
// <http://rdf.freebase.com/ns/m.0f8l9c>.
type Prefix struct {
	ID  string `json:"id" mapstructure:"id"`
	IRI string `json:"iri" mapstructure:"iri"`
}

// Dialect says how a knowledge graph is laid out in an endpoint: which
// predicates hold names, how ids map to IRIs, how to search. Dialects are
// configuration: a new site needs a Dialect value, not code.
type Dialect struct {
	Name string `json:"name" mapstructure:"name"`
	// Nodes map entity ids to IRIs, longest ID prefix first; an id no
	// prefix claims must already be an absolute IRI.
	Nodes []Prefix `json:"nodes" mapstructure:"nodes"`
	// Relations map relation ids to predicate IRIs (Wikidata: "P57" ->
	// wdt:P57); empty means the same as Nodes.
	Relations []Prefix `json:"relations" mapstructure:"relations"`
	// Label, Alias and Description list predicate IRIs.
	Label       []string `json:"label" mapstructure:"label"`
	Alias       []string `json:"alias" mapstructure:"alias"`
	Description []string `json:"description" mapstructure:"description"`
	// Hidden lists predicate IRIs that reasoners hide (besides the label
	// predicates): links, external ids. Relations whose node says
	// <grove:hidden> "true" in the data are hidden as well.
	Hidden []string `json:"hidden" mapstructure:"hidden"`
	// HiddenPropertyTypes lists Wikibase property types
	// (wikibase:propertyType values, e.g. wikibase:ExternalId) whose
	// relations reasoners hide: a predicate is hidden when a property
	// node of one of these types names it as its wikibase:directClaim or
	// wikibase:directClaimNormalized (wd:P214 for wdt:P214 and
	// wdtn:P214). Read from the data by graph patterns, so a Wikidata
	// endpoint's thousands of external-id properties are never listed in
	// a query.
	HiddenPropertyTypes []string `json:"hidden_property_types" mapstructure:"hidden_property_types"`
	// SameAs lists link predicate IRIs (owl:sameAs).
	SameAs []string `json:"same_as" mapstructure:"same_as"`
	// Search is one of SearchLabel, SearchVirtuoso, SearchQLever,
	// SearchWikidataAPI.
	Search string `json:"search" mapstructure:"search"`
	// SearchAPI is the Wikibase API URL for SearchWikidataAPI.
	SearchAPI string `json:"search_api" mapstructure:"search_api"`
	// Graphs maps Grove graph names to named-graph IRIs. An empty IRI (or
	// no entry at all) means the endpoint's default graph, shown as one
	// graph named after the dialect.
	Graphs map[string]string `json:"graphs" mapstructure:"graphs"`
	// Statements, for Wikidata-style qualifiers: predicate IRI prefixes of
	// statement links (p:), statement values (ps:) and qualifiers (pq:).
	Statement      string `json:"statement" mapstructure:"statement"`
	StatementValue string `json:"statement_value" mapstructure:"statement_value"`
	Qualifier      string `json:"qualifier" mapstructure:"qualifier"`
}

const (
	rdfsLabel   = "http://www.w3.org/2000/01/rdf-schema#label"
	skosAlt     = "http://www.w3.org/2004/02/skos/core#altLabel"
	skosPref    = "http://www.w3.org/2004/02/skos/core#prefLabel"
	schemaName  = "http://schema.org/name"
	schemaDesc  = "http://schema.org/description"
	owlSameAs   = "http://www.w3.org/2002/07/owl#sameAs"
	freebaseNS  = "http://rdf.freebase.com/ns/"
	wikidataEnt = "http://www.wikidata.org/entity/"
	// wikibaseNS is the Wikibase ontology (wikibase:).
	wikibaseNS = "http://wikiba.se/ontology#"
	// WikibaseExternalID is the property type of external identifiers
	// (VIAF ID, ISNI, GND ID, ...), datatype external-id in the JSON dump.
	WikibaseExternalID = wikibaseNS + "ExternalId"
)

// Dialects returns the built-in dialects by name.
func Dialects() map[string]Dialect {
	rdf := Dialect{
		Name:        "rdf",
		Label:       []string{rdfsLabel, skosPref, schemaName},
		Alias:       []string{skosAlt},
		Description: []string{schemaDesc},
		SameAs:      []string{owlSameAs},
		Search:      SearchLabel,
	}
	virtuoso := rdf
	virtuoso.Name, virtuoso.Search = "virtuoso", SearchVirtuoso
	qlever := rdf
	qlever.Name, qlever.Search = "qlever", SearchQLever
	return map[string]Dialect{
		"rdf":      rdf,
		"virtuoso": virtuoso,
		"qlever":   qlever,
		// Freebase as loaded by ToG and PoG into Virtuoso: ns: prefix,
		// type.object.name, CVT nodes as plain m. ids.
		"freebase": {
			Name:        "freebase",
			Nodes:       []Prefix{{IRI: freebaseNS}},
			Label:       []string{freebaseNS + "type.object.name", rdfsLabel},
			Alias:       []string{freebaseNS + "common.topic.alias"},
			Description: []string{freebaseNS + "common.topic.description"},
			Hidden:      []string{freebaseNS + "type.object.key", freebaseNS + "common.topic.topic_equivalent_webpage"},
			SameAs:      []string{owlSameAs},
			Search:      SearchVirtuoso,
		},
		// Wikidata's RDF model: wd: items, wdt: direct claims, p:/ps:/pq:
		// statement nodes with qualifiers, external ids hidden by their
		// property type.
		"wikidata": {
			Name:        "wikidata",
			Nodes:       []Prefix{{IRI: wikidataEnt}},
			Relations:   []Prefix{{IRI: "http://www.wikidata.org/prop/direct/"}},
			Label:       []string{rdfsLabel},
			Alias:       []string{skosAlt},
			Description: []string{schemaDesc},
			SameAs:      []string{owlSameAs},
			// As Grove's ingest of the JSON dump hides datatype
			// external-id, and only it (ingest/wikidata).
			HiddenPropertyTypes: []string{WikibaseExternalID},
			Search:              SearchWikidataAPI,
			SearchAPI:           "https://www.wikidata.org/w/api.php",
			Statement:           "http://www.wikidata.org/prop/",
			StatementValue:      "http://www.wikidata.org/prop/statement/",
			Qualifier:           "http://www.wikidata.org/prop/qualifier/",
		},
	}
}

// LookupDialect returns a built-in dialect, or an error listing them.
func LookupDialect(name string) (Dialect, error) {
	ds := Dialects()
	if d, ok := ds[name]; ok {
		return d, nil
	}
	names := make([]string, 0, len(ds))
	for n := range ds {
		names = append(names, n)
	}
	sort.Strings(names)
	return Dialect{}, fmt.Errorf("unknown SPARQL dialect %q (known: %s)", name, strings.Join(names, ", "))
}

// validate checks a dialect and fills defaults.
func (d *Dialect) validate() error {
	switch d.Search {
	case "":
		d.Search = SearchLabel
	case SearchLabel, SearchVirtuoso, SearchQLever:
	case SearchWikidataAPI:
		if d.SearchAPI == "" {
			return fmt.Errorf("dialect %q: search %q needs search_api", d.Name, d.Search)
		}
	default:
		return fmt.Errorf("dialect %q: unknown search method %q (label, bif:contains, ql:contains-word, wikidata-api)", d.Name, d.Search)
	}
	if len(d.Label) == 0 {
		return fmt.Errorf("dialect %q: no label predicates", d.Name)
	}
	// Every IRI is spliced into queries: check them here so that a typo in
	// a config file is a clear error, not a rejected query.
	for field, list := range map[string][]string{"label": d.Label, "alias": d.Alias, "description": d.Description,
		"hidden": d.Hidden, "same_as": d.SameAs, "hidden_property_types": d.HiddenPropertyTypes} {
		for _, iri := range list {
			if !validIRI(iri) {
				return fmt.Errorf("dialect %q: %s: %q is not an IRI", d.Name, field, iri)
			}
		}
	}
	for name, iri := range d.Graphs {
		if iri != "" && !validIRI(iri) {
			return fmt.Errorf("dialect %q: graph %q: %q is not an IRI", d.Name, name, iri)
		}
	}
	if d.Name == "" {
		d.Name = "sparql"
	}
	if len(d.Relations) == 0 {
		d.Relations = d.Nodes
	}
	sortPrefixes(d.Nodes)
	sortPrefixes(d.Relations)
	return nil
}

// sortPrefixes orders prefixes longest IRI first, so the most specific
// prefix wins in both directions.
func sortPrefixes(ps []Prefix) {
	slices.SortStableFunc(ps, func(a, b Prefix) int { return len(b.IRI) + len(b.ID) - len(a.IRI) - len(a.ID) })
}

// graphNames lists the Grove graph names, sorted.
func (d *Dialect) graphNames() []string {
	if len(d.Graphs) == 0 {
		return []string{d.Name}
	}
	names := make([]string, 0, len(d.Graphs))
	for n := range d.Graphs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// named reports whether graphs are named graphs (GRAPH ?g patterns).
func (d *Dialect) named() bool {
	for _, iri := range d.Graphs {
		if iri != "" {
			return true
		}
	}
	return false
}

// graphOf names the Grove graph of a named-graph IRI ("" if unknown).
func (d *Dialect) graphOf(iri string) string {
	if !d.named() {
		return d.Name
	}
	for n, g := range d.Graphs {
		if g == iri {
			return n
		}
	}
	return ""
}

// toIRI maps an id to an IRI by the first prefix whose ID it starts with.
func toIRI(ps []Prefix, id string) string {
	for _, p := range ps {
		if rest, ok := strings.CutPrefix(id, p.ID); ok && p.IRI != "" && !absolute(id) {
			return p.IRI + rest
		}
	}
	return id
}

// fromIRI maps an IRI back to an id.
func fromIRI(ps []Prefix, iri string) string {
	for _, p := range ps {
		if rest, ok := strings.CutPrefix(iri, p.IRI); ok && p.IRI != "" {
			return p.ID + rest
		}
	}
	return iri
}

// absolute reports whether id is already an IRI with a scheme.
func absolute(id string) bool {
	i := strings.Index(id, ":")
	if i <= 0 {
		return false
	}
	for _, r := range id[:i] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return false
		}
	}
	return strings.HasPrefix(id[i:], "://") || strings.HasPrefix(id, "urn:") || strings.HasPrefix(id, "mailto:")
}

// labelPreds is every label, alias and description predicate.
func (d *Dialect) labelPreds() []string {
	return slices.Concat(d.Label, d.Alias, d.Description)
}

// hidden reports a predicate reasoners hide.
func (d *Dialect) hidden(iri string) bool {
	return slices.Contains(d.Label, iri) || slices.Contains(d.Alias, iri) || slices.Contains(d.Description, iri) ||
		slices.Contains(d.Hidden, iri) || slices.Contains(d.SameAs, iri) || strings.HasPrefix(iri, "grove:") ||
		d.statementPred(iri)
}

// statementPred reports the p:, ps: and pq: predicates of statement nodes.
func (d *Dialect) statementPred(iri string) bool {
	if d.Statement == "" {
		return false
	}
	rest, ok := strings.CutPrefix(iri, d.Statement)
	return ok && !strings.Contains(rest, "/") ||
		d.StatementValue != "" && strings.HasPrefix(iri, d.StatementValue) ||
		d.Qualifier != "" && strings.HasPrefix(iri, d.Qualifier)
}

// hiddenPreds lists the predicates the FILTERs of "" relations exclude.
func (d *Dialect) hiddenPreds() []string {
	return slices.Concat(d.labelPreds(), d.Hidden, d.SameAs)
}
