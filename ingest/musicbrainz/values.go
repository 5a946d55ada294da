package musicbrainz

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
)

// entityTypes are the MusicBrainz entity types with a JSON dump, in their
// URL form (the member name under mbdump/ and the id path segment).
var entityTypes = map[string]bool{
	"artist": true, "release-group": true, "release": true, "recording": true,
	"work": true, "label": true, "place": true, "area": true, "event": true,
	"series": true, "instrument": true, "genre": true,
}

// urlType turns a WS/2 target-type ("release_group") into the URL form
// ("release-group").
func urlType(t string) string { return strings.ReplaceAll(t, "_", "-") }

// wsType turns a URL form entity type into the WS/2 form used in relation
// predicates.
func wsType(t string) string { return strings.ReplaceAll(t, "-", "_") }

// mbidPattern is a MusicBrainz identifier: a lower-case UUID.
var mbidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// entityID returns "mb:<type>/<mbid>" after checking the MBID.
func entityID(typ, mbid string) (quad.IRI, error) {
	if mbid == "" {
		return "", fmt.Errorf("missing MBID")
	}
	if !mbidPattern.MatchString(mbid) {
		return "", fmt.Errorf("%q is not an MBID (lower-case UUID)", mbid)
	}
	return quad.IRI(store.MusicBrainzPrefix + typ + "/" + mbid), nil
}

// dateLiteral types a MusicBrainz partial date: "1962" is an xsd:gYear,
// "1962-08" an xsd:gYearMonth and "1962-08-16" an xsd:date. "" gives nil.
// A part of 00 is unknown and dropped with the parts after it: "1962-00-00"
// and "1962-00-16" give "1962", "1962-08-00" gives "1962-08" and a year of
// 0000 gives nil. A month above 12 or a day past the end of its month is an
// error.
func dateLiteral(s string) (quad.Value, error) {
	if s == "" {
		return nil, nil
	}
	if !isDate(s, "dddd") && !isDate(s, "dddd-dd") && !isDate(s, "dddd-dd-dd") {
		return nil, fmt.Errorf("date %q is not YYYY, YYYY-MM or YYYY-MM-DD", s)
	}
	year, _ := strconv.Atoi(s[:4])
	month, day := 0, 0
	if len(s) >= 7 {
		month, _ = strconv.Atoi(s[5:7])
	}
	if len(s) == 10 {
		day, _ = strconv.Atoi(s[8:10])
	}
	if month > 12 {
		return nil, fmt.Errorf("date %q: month %02d is not 01 to 12", s, month)
	}
	if n := daysIn(year, month); month > 0 && day > n {
		return nil, fmt.Errorf("date %q: %s %04d has %d days", s, time.Month(month), year, n)
	}
	switch {
	case year == 0:
		return nil, nil
	case month == 0:
		return quad.TypedString{Value: quad.String(s[:4]), Type: quad.IRI(store.XSDGYear)}, nil
	case day == 0:
		return quad.TypedString{Value: quad.String(s[:7]), Type: quad.IRI(store.XSDGYearMonth)}, nil
	}
	return quad.TypedString{Value: quad.String(s), Type: quad.IRI(store.XSDDate)}, nil
}

// daysIn is the number of days of month (1 to 12) in year, in the
// proleptic Gregorian calendar.
func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// isDate matches s against a shape where 'd' is a digit.
func isDate(s, shape string) bool {
	if len(s) != len(shape) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if shape[i] == 'd' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != shape[i] {
			return false
		}
	}
	return true
}

// numberLiteral types a JSON number by its lexical form.
func numberLiteral(n string) (quad.Value, error) {
	if _, err := strconv.ParseFloat(n, 64); err != nil {
		return nil, fmt.Errorf("%q is not a number", n)
	}
	typ := xsdInteger
	if strings.ContainsAny(n, ".eE") {
		typ = xsdDouble
	}
	return quad.TypedString{Value: quad.String(n), Type: quad.IRI(typ)}, nil
}

const (
	xsdInteger = "http://www.w3.org/2001/XMLSchema#integer"
	xsdDouble  = "http://www.w3.org/2001/XMLSchema#double"
)

// pointLiteral builds a WKT point from latitude and longitude.
func pointLiteral(c *coordinates) (quad.Value, error) {
	lat, err := strconv.ParseFloat(string(c.Latitude), 64)
	if err != nil || lat < -90 || lat > 90 {
		return nil, fmt.Errorf("latitude %q out of range", c.Latitude)
	}
	lon, err := strconv.ParseFloat(string(c.Longitude), 64)
	if err != nil || lon < -180 || lon > 180 {
		return nil, fmt.Errorf("longitude %q out of range", c.Longitude)
	}
	return quad.TypedString{
		Value: quad.String("Point(" + string(c.Longitude) + " " + string(c.Latitude) + ")"),
		Type:  quad.IRI(store.WKTLiteral),
	}, nil
}

// wikidataPattern matches Wikidata item URLs.
var wikidataPattern = regexp.MustCompile(`^https?://(?:www\.|m\.)?wikidata\.org/(?:wiki|entity)/(Q[1-9][0-9]*)$`)

// wikidataItem extracts "Q1299" from a Wikidata item URL.
func wikidataItem(url string) (string, error) {
	m := wikidataPattern.FindStringSubmatch(url)
	if m == nil {
		return "", fmt.Errorf("%q is not a Wikidata item URL", url)
	}
	return m[1], nil
}

// langTag turns a MusicBrainz locale ("en_GB") into a language tag
// ("en-GB").
func langTag(locale string) string { return strings.ReplaceAll(locale, "_", "-") }

// keepLocale reports whether an alias in locale is kept for languages: no
// locale is always kept, otherwise its primary language must be listed.
func keepLocale(locale string, languages []string) bool {
	if locale == "" {
		return true
	}
	primary, _, _ := strings.Cut(langTag(locale), "-")
	for _, l := range languages {
		if strings.EqualFold(l, primary) || strings.EqualFold(l, langTag(locale)) {
			return true
		}
	}
	return false
}

// slug turns a relationship or attribute name into a predicate segment:
// "member of band" -> "member_of_band".
func slug(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	var b strings.Builder
	under := false
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 0x7f && r != 0xfffd
		if !ok {
			under = b.Len() > 0
			continue
		}
		if under {
			b.WriteByte('_')
			under = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
