package literal

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
)

// Wikidata time precisions (the second field of a grove:time value).
const (
	PrecisionGigayear   = 0
	PrecisionMegayear   = 3
	Precision10KYears   = 5
	PrecisionMillennium = 6
	PrecisionCentury    = 7
	PrecisionDecade     = 8
	PrecisionYear       = 9
	PrecisionMonth      = 10
	PrecisionDay        = 11
	PrecisionHour       = 12
	PrecisionMinute     = 13
	PrecisionSecond     = 14
)

// JulianMark is the optional third field of a grove:time value that marks a
// date given in the Julian calendar.
const JulianMark = "julian"

// maxYearDigits bounds the year field (Wikidata allows 16 digits).
const maxYearDigits = 16

var monthNames = [...]string{"January", "February", "March", "April", "May",
	"June", "July", "August", "September", "October", "November", "December"}

// Time is a parsed calendar value. Year is historical: negative years are
// BC and there is no astronomical shift (Wikidata's convention).
type Time struct {
	Year                 int64
	Month, Day           int // 0 when unknown
	Hour, Minute, Second int
	// Zone is the time-zone suffix as written ("Z", "+02:00", "").
	Zone string
	// Precision is a Wikidata precision (0 = billion years ... 11 = day,
	// 14 = second).
	Precision int
	// Julian marks a Julian-calendar date.
	Julian bool
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// ParseTime parses the grove:time lexical form
// "<+/-YYYY-MM-DD[THH:MM:SSZ]> <precision> [julian]".
func ParseTime(s string) (Time, error) {
	f := strings.Fields(s)
	if len(f) < 2 || len(f) > 3 {
		return Time{}, errorf("time %q: want \"<date> <precision> [julian]\"", s)
	}
	t, err := parseDateTime(f[0], 3, false)
	if err != nil {
		return Time{}, fmt.Errorf("time %q: %w", s, err)
	}
	p, err := strconv.Atoi(f[1])
	if err != nil {
		return Time{}, errorf("time %q: precision %q is not an integer", s, f[1])
	}
	t.Precision = p
	if len(f) == 3 {
		if f[2] != JulianMark {
			return Time{}, errorf("time %q: unknown calendar mark %q", s, f[2])
		}
		t.Julian = true
	}
	return t, nil
}

// parseDateTime parses "[+-]Y+[-MM[-DD]][Thh:mm:ss[.f]][zone]" with parts
// date fields (1 = year, 2 = year-month, 3 = full date). With astronomical
// years (XSD), year 0 is 1 BC and the year is shifted to historical.
func parseDateTime(s string, parts int, astronomical bool) (Time, error) {
	var t Time
	rest, err := t.parseYear(s)
	if err != nil {
		return Time{}, err
	}
	if parts >= 2 {
		if t.Month, rest, err = twoDigits(rest, '-', 12, "month"); err != nil {
			return Time{}, err
		}
	}
	if parts >= 3 {
		if t.Day, rest, err = twoDigits(rest, '-', 31, "day"); err != nil {
			return Time{}, err
		}
		if rest, err = t.parseClock(rest); err != nil {
			return Time{}, err
		}
	}
	if t.Zone, err = parseZone(rest); err != nil {
		return Time{}, err
	}
	if astronomical && t.Year <= 0 {
		t.Year--
	}
	return t, nil
}

// parseYear reads the signed year and returns the remaining text.
func (t *Time) parseYear(s string) (string, error) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 0 || n > maxYearDigits {
		return "", errors.New("year must have 1 to 16 digits")
	}
	y, err := strconv.ParseInt(s[:n], 10, 64)
	if err != nil {
		return "", fmt.Errorf("year: %w", err)
	}
	if neg {
		y = -y
	}
	t.Year = y
	return s[n:], nil
}

// twoDigits reads sep followed by two digits no larger than max.
func twoDigits(s string, sep byte, max int, what string) (int, string, error) {
	if len(s) < 3 || s[0] != sep || !allDigits(s[1:3]) {
		return 0, "", fmt.Errorf("%s: want %c and two digits", what, sep)
	}
	v := int(s[1]-'0')*10 + int(s[2]-'0')
	if v > max {
		return 0, "", fmt.Errorf("%s %d out of range", what, v)
	}
	return v, s[3:], nil
}

// parseClock reads an optional "Thh:mm:ss[.fraction]".
func (t *Time) parseClock(s string) (string, error) {
	if s == "" || s[0] != 'T' {
		return s, nil
	}
	var err error
	if t.Hour, s, err = twoDigits(s, 'T', 24, "hour"); err != nil {
		return "", err
	}
	if t.Minute, s, err = twoDigits(s, ':', 59, "minute"); err != nil {
		return "", err
	}
	if t.Second, s, err = twoDigits(s, ':', 60, "second"); err != nil {
		return "", err
	}
	if strings.HasPrefix(s, ".") {
		n := 1
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		s = s[n:]
	}
	return s, nil
}

// parseZone validates a time-zone suffix: "", "Z" or "±hh:mm".
func parseZone(s string) (string, error) {
	if s == "" || s == "Z" {
		return s, nil
	}
	if len(s) == 6 && (s[0] == '+' || s[0] == '-') && allDigits(s[1:3]) &&
		s[3] == ':' && allDigits(s[4:6]) {
		return s, nil
	}
	return "", fmt.Errorf("unexpected %q after the date", s)
}

// String renders t at its precision ("8 July 2010", "19th century"). A
// precision outside 0..14 falls back to the finest field that is set.
func (t Time) String() string {
	p := t.effectivePrecision()
	var s string
	switch {
	case p >= PrecisionHour:
		s = t.dayString() + t.clockString(p)
	case p == PrecisionDay:
		s = t.dayString()
	case p == PrecisionMonth:
		s = monthNames[t.Month-1] + " " + yearString(t.Year)
	case p == PrecisionYear:
		s = yearString(t.Year)
	case p == PrecisionDecade:
		s = strconv.FormatInt(abs(t.Year)/10*10, 10) + "s" + era(t.Year)
	case p == PrecisionCentury:
		s = ordinal(unitNumber(t.Year, 100)) + " century" + era(t.Year)
	case p == PrecisionMillennium:
		s = ordinal(unitNumber(t.Year, 1000)) + " millennium" + era(t.Year)
	default:
		s = deepTime(t.Year, p)
	}
	if t.Julian && p >= PrecisionMonth {
		s += " (Julian)"
	}
	return s
}

// effectivePrecision clamps the precision to the fields that are present.
func (t Time) effectivePrecision() int {
	p := t.Precision
	if p < PrecisionGigayear || p > PrecisionSecond {
		p = PrecisionDay
	}
	if p >= PrecisionDay && (t.Day < 1 || t.Day > 31) {
		p = PrecisionMonth
	}
	if p >= PrecisionMonth && (t.Month < 1 || t.Month > 12) {
		p = PrecisionYear
	}
	return p
}

func (t Time) dayString() string {
	return strconv.Itoa(t.Day) + " " + monthNames[t.Month-1] + " " + yearString(t.Year)
}

// clockString renders ", hh:mm[:ss] zone" for sub-day precisions.
func (t Time) clockString(p int) string {
	s := fmt.Sprintf(", %02d:%02d", t.Hour, t.Minute)
	if p >= PrecisionSecond || t.Second != 0 {
		s += fmt.Sprintf(":%02d", t.Second)
	}
	switch t.Zone {
	case "":
	case "Z":
		s += " UTC"
	default:
		s += " " + t.Zone
	}
	return s
}

// yearString renders a historical year ("2010", "44 BC", "10,000 BC").
func yearString(y int64) string {
	return groupDigits(strconv.FormatInt(abs(y), 10), 5) + era(y)
}

func era(y int64) string {
	if y < 0 {
		return " BC"
	}
	return ""
}

func abs(y int64) int64 {
	if y < 0 {
		return -y
	}
	return y
}

// unitNumber is the 1-based century (size 100) or millennium (size 1000)
// containing year y: 1901-2000 is the 20th century. Year 0 counts as 1.
func unitNumber(y, size int64) int64 {
	a := abs(y)
	if a == 0 {
		return 1
	}
	return (a-1)/size + 1
}

// ordinal renders 1st, 2nd, 3rd, 4th, 11th, 21st, ...
func ordinal(n int64) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.FormatInt(n, 10) + suffix
}

// deepTime renders precisions 0-5 (10^(9-p) years) as a rounded magnitude:
// "13.8 billion years ago" for the past, "year 100,000" for the future.
func deepTime(y int64, p int) string {
	unit := int64(1)
	for i := p; i < 9; i++ {
		unit *= 10
	}
	a := abs(y)
	rounded := (a + unit/2) / unit * unit
	if rounded == 0 {
		rounded = a
	}
	text := magnitude(rounded)
	if y < 0 {
		return text + " years ago"
	}
	return "year " + text
}

// magnitude renders 13798000000 as "13.798 billion".
func magnitude(n int64) string {
	switch {
	case n >= 1e9:
		return strconv.FormatFloat(float64(n)/1e9, 'f', -1, 64) + " billion"
	case n >= 1e6:
		return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + " million"
	}
	return groupDigits(strconv.FormatInt(n, 10), 5)
}

// renderGroveTime renders a grove:time value, or returns it raw.
func renderGroveTime(s string, _ func(string) string) string {
	t, err := ParseTime(s)
	if err != nil {
		return s
	}
	return t.String()
}

// renderXSDDate renders xsd:date "2010-07-08".
func renderXSDDate(s string) string {
	t, err := parseDateTime(strings.TrimSpace(s), 3, true)
	if err != nil {
		return s
	}
	t.Precision = PrecisionDay
	return t.String()
}

// renderXSDDateTime renders xsd:dateTime, with the clock unless midnight.
func renderXSDDateTime(s string) string {
	t, err := parseDateTime(strings.TrimSpace(s), 3, true)
	if err != nil || !strings.Contains(s, "T") {
		return s
	}
	t.Precision = PrecisionDay
	if t.Hour != 0 || t.Minute != 0 || t.Second != 0 {
		t.Precision = PrecisionMinute
	}
	return t.String()
}

// renderXSDGYear renders xsd:gYear "2010".
func renderXSDGYear(s string) string {
	t, err := parseDateTime(strings.TrimSpace(s), 1, true)
	if err != nil {
		return s
	}
	t.Precision = PrecisionYear
	return t.String()
}

// renderXSDGYearMonth renders xsd:gYearMonth "2010-07".
func renderXSDGYearMonth(s string) string {
	t, err := parseDateTime(strings.TrimSpace(s), 2, true)
	if err != nil {
		return s
	}
	t.Precision = PrecisionMonth
	return t.String()
}

// renderQuadTime renders a native quad.Time (astronomical years, like XSD).
func renderQuadTime(qt quad.Time) string {
	gt := time.Time(qt).UTC()
	t := Time{Year: int64(gt.Year()), Month: int(gt.Month()), Day: gt.Day(),
		Hour: gt.Hour(), Minute: gt.Minute(), Second: gt.Second(), Zone: "Z",
		Precision: PrecisionDay}
	if t.Year <= 0 {
		t.Year--
	}
	if t.Hour != 0 || t.Minute != 0 || t.Second != 0 {
		t.Precision = PrecisionMinute
	}
	return t.String()
}
