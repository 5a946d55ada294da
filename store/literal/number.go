package literal

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Quantity is a parsed grove:quantity value.
type Quantity struct {
	// Amount is the decimal amount without a leading "+" ("1234.5").
	Amount string
	// Lower and Upper are the decimal bounds of the amount ("70", "120"),
	// both "" when the value has none.
	Lower, Upper string
	// Unit is the unit entity id ("Q11573"), or "" for a unitless amount.
	Unit string
}

// ParseQuantity parses the grove:quantity lexical form: "<amount>",
// "<amount> <unit>", "<amount> [<lower>,<upper>]" or "<amount>
// [<lower>,<upper>] <unit>" ("95 [70,120] Q743895"). Amount and bounds are
// plain decimals, an optional leading "+" dropped, with lower <= amount <=
// upper. The unit "1" means unitless; a Wikidata entity IRI unit is
// shortened to its id.
func ParseQuantity(s string) (Quantity, error) {
	f := strings.Fields(s)
	var q Quantity
	if len(f) >= 2 && strings.HasPrefix(f[1], "[") {
		lower, upper, err := parseBounds(f[1])
		if err != nil {
			return Quantity{}, errorf("quantity %q: %v", s, err)
		}
		q.Lower, q.Upper = lower, upper
		f = append(f[:1], f[2:]...)
	}
	if len(f) == 0 || len(f) > 2 {
		return Quantity{}, errorf("quantity %q: want \"<amount> [<lower>,<upper>] <unit>\", bounds and unit optional", s)
	}
	q.Amount = strings.TrimPrefix(f[0], "+")
	if _, ok := formatDecimal(q.Amount, 1); !ok {
		return Quantity{}, errorf("quantity %q: amount %q is not a number", s, f[0])
	}
	if q.Lower != "" && (compareDecimals(q.Lower, q.Amount) > 0 || compareDecimals(q.Amount, q.Upper) > 0) {
		return Quantity{}, errorf("quantity %q: amount outside its bounds", s)
	}
	if len(f) == 2 && f[1] != "1" {
		q.Unit = f[1]
		if id, ok := wikidataID(f[1]); ok {
			q.Unit = id
		}
	}
	return q, nil
}

// String returns q's grove:quantity lexical form, the inverse of
// ParseQuantity: "95 [70,120] Q743895", "3469849".
func (q Quantity) String() string {
	s := q.Amount
	if q.Lower != "" || q.Upper != "" {
		s += " [" + q.Lower + "," + q.Upper + "]"
	}
	if q.Unit != "" {
		s += " " + q.Unit
	}
	return s
}

// parseBounds parses "[<lower>,<upper>]" into two decimals without "+".
func parseBounds(field string) (lower, upper string, err error) {
	inner, ok := strings.CutSuffix(strings.TrimPrefix(field, "["), "]")
	lower, upper, comma := strings.Cut(inner, ",")
	if !ok || !comma {
		return "", "", errorf("bounds %q: want \"[<lower>,<upper>]\"", field)
	}
	lower, upper = strings.TrimPrefix(lower, "+"), strings.TrimPrefix(upper, "+")
	for _, b := range []string{lower, upper} {
		if _, ok := formatDecimal(b, 1); !ok {
			return "", "", errorf("bound %q is not a number", b)
		}
	}
	return lower, upper, nil
}

// decimalRat converts a plain decimal (checked by formatDecimal) to a
// rational.
func decimalRat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return new(big.Rat)
	}
	return r
}

// compareDecimals compares two plain decimals by value.
func compareDecimals(a, b string) int { return decimalRat(a).Cmp(decimalRat(b)) }

// fracDigits is the number of digits after the point of a plain decimal.
func fracDigits(s string) int {
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}

// renderQuantity renders "1234.5 Q11573" as "1,234.5 metre", or "1,234.5
// Q11573 (no label in the KG)" when labelOf knows no label of the unit.
// Bounds follow the amount: "66,628,000 ±500" when symmetric, else the
// range, "95 (70–120) beats per minute".
func renderQuantity(s string, labelOf func(string) string) string {
	q, err := ParseQuantity(s)
	if err != nil {
		return s
	}
	text, _ := formatDecimal(q.Amount, 4)
	text += renderBounds(q)
	if q.Unit == "" {
		return text
	}
	return text + " " + renderName(q.Unit, labelOf)
}

// renderBounds is " ±<half width>" for symmetric bounds, " (<lower>–<upper>)"
// for others and "" without bounds.
func renderBounds(q Quantity) string {
	if q.Lower == "" {
		return ""
	}
	amount := decimalRat(q.Amount)
	below := new(big.Rat).Sub(amount, decimalRat(q.Lower))
	above := new(big.Rat).Sub(decimalRat(q.Upper), amount)
	if below.Cmp(above) == 0 {
		digits := max(fracDigits(q.Amount), fracDigits(q.Lower), fracDigits(q.Upper))
		half, _ := formatDecimal(above.FloatString(digits), 4)
		return " ±" + half
	}
	lower, _ := formatDecimal(q.Lower, 4)
	upper, _ := formatDecimal(q.Upper, 4)
	return " (" + lower + "–" + upper + ")"
}

// renderNumber renders a numeric lexical form with thousands separators
// when the integer part has at least minDigits digits; non-numbers are
// returned unchanged.
func renderNumber(s string, minDigits int) string {
	t := strings.TrimSpace(s)
	if out, ok := formatDecimal(t, minDigits); ok {
		return out
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return s
	}
	if math.Abs(f) >= 1e21 {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	out, _ := formatDecimal(strconv.FormatFloat(f, 'f', -1, 64), minDigits)
	return out
}

// formatDecimal groups a plain decimal "[+-]digits[.digits]"; ok is false
// when s has another form (exponent, letters, empty parts).
func formatDecimal(s string, minDigits int) (string, bool) {
	sign := ""
	switch {
	case strings.HasPrefix(s, "-"):
		sign, s = "-", s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if !allDigits(intPart) || (hasFrac && !allDigits(frac)) {
		return "", false
	}
	out := sign + groupDigits(intPart, minDigits)
	if hasFrac {
		out += "." + frac
	}
	return out, true
}

// allDigits reports whether s is a non-empty run of ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Count writes n with thousands separators ("1,234"), as rendered numbers
// are: for totals in text a model reads.
func Count(n int) string {
	out, _ := formatDecimal(strconv.Itoa(n), 1)
	return out
}

// Plural is word for a count of one and word+"s" otherwise ("1 edge",
// "3 edges"), for counts in text.
func Plural[N int | int64](n N, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// groupDigits inserts "," every three digits from the right when the run
// has at least minDigits digits.
func groupDigits(d string, minDigits int) string {
	if len(d) < minDigits || len(d) <= 3 {
		return d
	}
	var b strings.Builder
	b.Grow(len(d) + len(d)/3)
	head := len(d) % 3
	if head > 0 {
		b.WriteString(d[:head])
	}
	for i := head; i < len(d); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(d[i : i+3])
	}
	return b.String()
}

// groupInteger groups a signed integer string.
func groupInteger(s string, minDigits int) string {
	out, ok := formatDecimal(s, minDigits)
	if !ok {
		return s
	}
	return out
}

func formatInt(i int64) string     { return strconv.FormatInt(i, 10) }
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
func formatBool(b bool) string     { return strconv.FormatBool(b) }
