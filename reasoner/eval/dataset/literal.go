package dataset

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Answer kinds, used as the Type of QALD questions.
const (
	KindEntity  = "entity"
	KindBoolean = "boolean"
	KindDate    = "date"
	KindNumber  = "number"
	KindLiteral = "literal"
	KindURI     = "uri"
	KindMixed   = "mixed"
)

const xsd = "http://www.w3.org/2001/XMLSchema#"

var (
	reDateTime = regexp.MustCompile(`^[+-]?\d+-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)
	reDate     = regexp.MustCompile(`^[+-]?\d+-\d\d-\d\d$`)
	reNumber   = regexp.MustCompile(`^[+-]?\d+(\.\d+)?$`)
	// reStrptime is Python's strptime pattern for "%Y-%m-%dT%H:%M:%S".
	reStrptime = regexp.MustCompile(`^(\d{4})-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])T(2[0-3]|[0-1]\d|\d):([0-5]\d|\d):(6[0-1]|[0-5]\d|\d)$`)
	reLeadYear = regexp.MustCompile(`^\+?(\d+)`)
)

var numericTypes = map[string]bool{
	"integer": true, "decimal": true, "double": true, "float": true, "int": true, "long": true,
	"short": true, "byte": true, "nonNegativeInteger": true, "positiveInteger": true,
	"negativeInteger": true, "nonPositiveInteger": true, "unsignedInt": true, "unsignedLong": true,
	"unsignedShort": true, "unsignedByte": true,
}

// renderLiteral renders a SPARQL literal as a gold answer and names its kind.
// With no datatype the kind is guessed from the value's shape.
func renderLiteral(value, datatype string) (string, string) {
	local, isXSD := strings.CutPrefix(datatype, xsd)
	switch {
	case isXSD && local == "dateTime", datatype == "" && reDateTime.MatchString(value):
		return FormatDate(value), KindDate
	case isXSD && local == "date", datatype == "" && reDate.MatchString(value):
		return FormatDate(value + "T00:00:00Z"), KindDate
	case isXSD && numericTypes[local], datatype == "" && reNumber.MatchString(value):
		return PlainNumber(value), KindNumber
	}
	return value, KindLiteral
}

// PlainNumber writes a decimal number plainly: no leading "+", no leading
// zeros, no trailing fractional zeros ("+100" -> "100", "+242.860" ->
// "242.86", "-0.0" -> "0"). Other strings (exponent forms, text) are
// returned unchanged.
func PlainNumber(s string) string {
	if !reNumber.MatchString(s) {
		return s
	}
	neg := s[0] == '-'
	s = strings.TrimLeft(s, "+-")
	intPart, frac, _ := strings.Cut(s, ".")
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	frac = strings.TrimRight(frac, "0")
	out := intPart
	if frac != "" {
		out += "." + frac
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out
}

// FormatDate renders a Wikidata xsd:dateTime value ("1997-04-05T00:00:00Z",
// "-7000-01-01T00:00:00Z") exactly as the Tree-of-Traversals QALD script's
// format_date does:
//
//   - a negative year (or the year zero) is made positive and " BCE" is
//     appended;
//   - years of one to three digits are zero-padded for parsing;
//   - a date that Python's datetime accepts (years 1-9999) is written "1997"
//     when it falls on the 1st of January (Wikidata's year precision) and
//     "April 05, 1997" otherwise: English month name, zero-padded day, and
//     the year unpadded (as glibc's strftime %Y);
//   - anything else is reduced to its leading digits, zero-padded to four
//     ("3600000 BCE").
func FormatDate(v string) string {
	pos, bce := stripBCE(v)
	var out string
	if y, mo, d, ok := parseDateTime(pos); ok {
		if mo == 1 && d == 1 {
			out = strconv.Itoa(y)
		} else {
			out = fmt.Sprintf("%s %02d, %d", monthNames[mo-1], d, y)
		}
	} else {
		year := pos
		if m := reLeadYear.FindStringSubmatchIndex(pos); m != nil {
			rest := pos[m[1]:]
			if i := strings.IndexByte(rest, '\n'); i >= 0 {
				year = pos[m[2]:m[3]] + rest[i:]
			} else {
				year = pos[m[2]:m[3]]
			}
		}
		out = strings.Repeat("0", max(0, 4-utf8.RuneCountInString(year))) + year
	}
	if bce {
		out += " BCE"
	}
	return out
}

var monthNames = [12]string{"January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December"}

// stripBCE ports format_date's re.sub(r'^(?:-\d+|\+?0+\b)', ...): a leading
// negative year, or a year made only of zeros, is replaced by its absolute
// value and marks the date BCE.
func stripBCE(v string) (string, bool) {
	var digits, rest string
	switch {
	case strings.HasPrefix(v, "-"):
		n := leadingDigits(v[1:])
		if n == 0 {
			return v, false
		}
		digits, rest = v[1:1+n], v[1+n:]
	default:
		body := strings.TrimPrefix(v, "+")
		n := len(body) - len(strings.TrimLeft(body, "0"))
		if n == 0 || !wordBoundary(body[n:]) {
			return v, false
		}
		digits, rest = body[:n], body[n:]
	}
	abs := strings.TrimLeft(digits, "0")
	if abs == "" {
		abs = "0"
	}
	return abs + rest, true
}

// parseDateTime ports format_date's parse_date: it zero-pads a short year and
// parses "%Y-%m-%dT%H:%M:%S" (after an optional sign and before an optional
// "Z") into a valid proleptic Gregorian date.
func parseDateTime(s string) (year, month, day int, ok bool) {
	if !strings.HasPrefix(s, "+") && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	if n := leadingDigits(s[1:]); n >= 1 && n <= 3 && wordBoundary(s[1+n:]) {
		s = s[:1] + strings.Repeat("0", 4-n) + s[1:]
	}
	s = strings.TrimSuffix(s, "Z")
	m := reStrptime.FindStringSubmatch(s[1:])
	if m == nil {
		return 0, 0, 0, false
	}
	n := make([]int, 6)
	for i := range n {
		n[i], _ = strconv.Atoi(strings.TrimSpace(m[i+1]))
	}
	if n[0] < 1 || n[2] > daysIn(n[0], n[1]) || n[5] > 59 {
		return 0, 0, 0, false
	}
	return n[0], n[1], n[2], true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func leadingDigits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// wordBoundary reports whether a regexp \b holds before rest, given that the
// preceding character is a digit: rest is empty or starts with a non-word
// character (Python's Unicode \w: letters, numbers, underscore).
func wordBoundary(rest string) bool {
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !(unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_')
}
