package wikidata

import (
	"bytes"
	"fmt"
	"strconv"
)

// The types below mirror the parts of the Wikibase JSON model that the
// reader uses; decode.go fills them and skips everything else
// (references, hashes, ...).

// claims are an entity's statements by property, sorted by property id
// (see claims.sorted), each property once.
type claims []propClaims

// propClaims are the statements of one property.
type propClaims struct {
	Prop  string
	Stmts []statement
	num   uint64 // Prop's number, for sorting (numOK: Prop has one)
	numOK bool
}

// statement is one claim.
type statement struct {
	// IDToken is the raw JSON string of the statement id (a sub-slice of
	// the line, nil when absent or null), decoded only for statements
	// with qualifiers.
	IDToken         []byte
	Rank            string
	Mainsnak        snak
	Qualifiers      []propSnaks // in input order, each property once
	QualifiersOrder []string
}

// propSnaks are the qualifier snaks of one property.
type propSnaks struct {
	Prop  string
	Snaks []snak
}

// qualifier returns the snaks of qualifier property p.
func (s *statement) qualifier(p string) ([]snak, bool) {
	for i := range s.Qualifiers {
		if s.Qualifiers[i].Prop == p {
			return s.Qualifiers[i].Snaks, true
		}
	}
	return nil, false
}

// snak is a property-value pair: a main snak or a qualifier.
type snak struct {
	Snaktype string
	Datatype string
	// HasValue is set when the snak has a datavalue (not null); ValueType
	// is its type and Value the raw JSON of its value (a sub-slice of the
	// input line, valid while the line is; nil when absent or null).
	HasValue  bool
	ValueType string
	Value     []byte
}

// valueUnion holds a datavalue's value, which is a JSON string (string,
// url, external-id, ...) or an object whose fields depend on the type.
type valueUnion struct {
	// IsString is set when the value was a JSON string, held in Str.
	IsString bool
	Str      string
	Obj      valueObject
}

// valueObject is the union of the object-valued datavalue fields (the
// tags document the JSON names; decoding is done by set).
type valueObject struct {
	// wikibase-entityid
	ID         string `json:"id"`
	EntityType string `json:"entity-type"`
	NumericID  int64  `json:"numeric-id"`
	// time (precision is also the globe-coordinate precision, a float)
	Time          string   `json:"time"`
	Precision     *float64 `json:"precision"`
	CalendarModel string   `json:"calendarmodel"`
	// quantity
	Amount     string `json:"amount"`
	Unit       string `json:"unit"`
	LowerBound string `json:"lowerBound"`
	UpperBound string `json:"upperBound"`
	// monolingualtext
	Text     string `json:"text"`
	Language string `json:"language"`
	// globecoordinate
	Latitude  *float64 `json:"latitude"`
	Longitude *float64 `json:"longitude"`
	Globe     string   `json:"globe"`
}

// decode reads either form of a value (null or nil: neither).
func (v *valueUnion) decode(b []byte) error {
	if b == nil {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		s, err := unquote(b)
		if err != nil {
			return err
		}
		v.IsString, v.Str = true, s
		return nil
	}
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	return eachMember(b, 0, func(key, val []byte, _ int) error {
		return v.Obj.set(key, val)
	})
}

// set stores one member of a value object; unknown members are ignored.
func (o *valueObject) set(key, val []byte) error {
	if bytes.Equal(val, []byte("null")) {
		return nil
	}
	var err error
	switch string(key[1 : len(key)-1]) {
	case "id":
		o.ID, err = unquote(val)
	case "entity-type":
		o.EntityType, err = unquote(val)
	case "numeric-id":
		o.NumericID, err = strconv.ParseInt(string(val), 10, 64)
	case "time":
		o.Time, err = unquote(val)
	case "precision":
		o.Precision, err = parseFloatPtr(val)
	case "calendarmodel":
		o.CalendarModel, err = unquote(val)
	case "amount":
		o.Amount, err = unquote(val)
	case "unit":
		o.Unit, err = unquote(val)
	case "lowerBound":
		o.LowerBound, err = unquote(val)
	case "upperBound":
		o.UpperBound, err = unquote(val)
	case "text":
		o.Text, err = unquote(val)
	case "language":
		o.Language, err = unquote(val)
	case "latitude":
		o.Latitude, err = parseFloatPtr(val)
	case "longitude":
		o.Longitude, err = parseFloatPtr(val)
	case "globe":
		o.Globe, err = unquote(val)
	}
	if err != nil {
		return fmt.Errorf("value.%s: %w", key[1:len(key)-1], err)
	}
	return nil
}

func parseFloatPtr(val []byte) (*float64, error) {
	f, err := strconv.ParseFloat(string(val), 64)
	if err != nil {
		return nil, err
	}
	return &f, nil
}
