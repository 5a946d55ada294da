package literal

import (
	"math"
	"strconv"
	"strings"
)

// Point is a parsed WKT point.
type Point struct {
	Lat, Lon float64
	// Globe is the Wikidata id of a non-Earth globe named by a leading CRS
	// IRI ("Q111" for Mars), or "".
	Globe string
}

// ParsePoint parses a geo:wktLiteral point "Point(lon lat)", optionally
// preceded by a CRS IRI in angle brackets.
func ParsePoint(s string) (Point, error) {
	var pt Point
	body := strings.TrimSpace(s)
	if strings.HasPrefix(body, "<") {
		end := strings.IndexByte(body, '>')
		if end < 0 {
			return Point{}, errorf("point %q: unterminated CRS IRI", s)
		}
		if id, ok := wikidataID(body[1:end]); ok {
			pt.Globe = id
		}
		body = strings.TrimSpace(body[end+1:])
	}
	if len(body) < 6 || !strings.EqualFold(body[:5], "point") {
		return Point{}, errorf("point %q: want Point(lon lat)", s)
	}
	inner := strings.TrimSpace(body[5:])
	if !strings.HasPrefix(inner, "(") || !strings.HasSuffix(inner, ")") {
		return Point{}, errorf("point %q: want Point(lon lat)", s)
	}
	f := strings.Fields(inner[1 : len(inner)-1])
	if len(f) != 2 {
		return Point{}, errorf("point %q: want two coordinates", s)
	}
	var err error
	if pt.Lon, err = parseCoord(f[0], 360); err != nil {
		return Point{}, errorf("point %q: longitude: %v", s, err)
	}
	if pt.Lat, err = parseCoord(f[1], 90); err != nil {
		return Point{}, errorf("point %q: latitude: %v", s, err)
	}
	return pt, nil
}

// parseCoord parses a finite coordinate with |v| <= limit.
func parseCoord(s string, limit float64) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || math.Abs(v) > limit {
		return 0, errorf("%s out of range", s)
	}
	return v, nil
}

// String renders "52.52°N, 13.405°E" (at most six decimals).
func (p Point) String() string {
	return coord(p.Lat, "N", "S") + ", " + coord(p.Lon, "E", "W")
}

func coord(v float64, pos, neg string) string {
	hemi := pos
	if v < 0 {
		hemi = neg
	}
	a := math.Abs(v)
	a = math.Round(a*1e6) / 1e6
	return strconv.FormatFloat(a, 'f', -1, 64) + "°" + hemi
}

// renderWKT renders a WKT point, or returns it raw.
func renderWKT(s string, labelOf func(string) string) string {
	p, err := ParsePoint(s)
	if err != nil {
		return s
	}
	out := p.String()
	if p.Globe != "" && p.Globe != earth {
		out += " on " + renderName(p.Globe, labelOf)
	}
	return out
}

// earth is the Wikidata id of Earth, the default globe.
const earth = "Q2"
