package rdf

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/cayleygraph/quad"
)

// Term names used in SyntaxError.Term.
const (
	TermSubject   = "subject"
	TermPredicate = "predicate"
	TermObject    = "object"
	TermGraph     = "graph"
)

// xsdString is the datatype of plain literals; "x"^^xsd:string is the plain
// literal "x" (RDF 1.1), so the parser returns quad.String for both.
const xsdString = "http://www.w3.org/2001/XMLSchema#string"

// maxInterned bounds the parser's predicate and datatype caches.
const maxInterned = 1 << 16

// SyntaxError is a malformed statement. Column is the 1-based byte column
// of the offending character; Term names the term being parsed ("" for the
// statement structure).
type SyntaxError struct {
	Column int
	Term   string
	Msg    string
}

// Error formats "object at column 42: bad escape \z".
func (e *SyntaxError) Error() string {
	if e.Term == "" {
		return fmt.Sprintf("column %d: %s", e.Column, e.Msg)
	}
	return fmt.Sprintf("%s at column %d: %s", e.Term, e.Column, e.Msg)
}

// Parser parses N-Triples and N-Quads statements one line at a time. It is
// not safe for concurrent use: it keeps small caches (interned predicates
// and datatypes, the previous subject) that make parsing sorted dumps cheap.
type Parser struct {
	scope   string
	strict  bool
	keepAll bool // keep every scoped label as is (SetKeepScoped)
	general bool // accept generalized quads (SetGeneralized)
	preds   map[string]quad.Value
	dtypes  map[string]quad.IRI
	subjRaw []byte
	subj    quad.Value
	scratch []byte
}

// NewParser returns a parser. Blank node labels are prefixed with
// blankScope + "/" when blankScope is not empty, so "_:b1" parsed with scope
// "film" is quad.BNode("film/b1"), except a label already scoped to
// blankScope ("_:film/b1" stays quad.BNode("film/b1"); see SetKeepScoped).
// With strict set, relative IRIs are rejected as the W3C grammar requires;
// without it they are accepted (the Freebase film sample uses
// "</en/blade_runner>" and "<name>").
func NewParser(blankScope string, strict bool) *Parser {
	return &Parser{
		scope:  blankScope,
		strict: strict,
		preds:  make(map[string]quad.Value),
		dtypes: make(map[string]quad.IRI),
	}
}

// SetKeepScoped makes the parser keep every scoped label (one holding '/',
// which the N-Triples grammar does not allow and Grove's scoped names
// always hold) as it is, whatever its scope, instead of only those scoped
// to the parser's own: a Grove dump of several graphs read with its graph
// labels kept (Options.KeepLabels) gets back the blank node names of every
// graph. Labels without '/' are still scoped.
func (p *Parser) SetKeepScoped(keep bool) { p.keepAll = keep }

// SetGeneralized makes the parser accept, as Cayley's N-Quads reader and
// store do, generalized quads: a literal as the subject, predicate or
// graph label and a blank node as the predicate ("litsubj" <p> <o>
// "litlabel" .). Grove's Cayley write routes read bodies so, since Cayley's
// JSON format and quad writers store such quads and the N-Quads /read
// writes for them must delete and write back; grove ingest reads standard
// RDF and never sets it. Errors inside such a literal name its term.
func (p *Parser) SetGeneralized(on bool) { p.general = on }

// Parse parses one line (a trailing "\n" or "\r\n" is ignored). ok is false
// for blank and comment-only lines. The returned quad's Label is set when the
// line has a fourth term. The quad never refers to line's memory.
func (p *Parser) Parse(line []byte) (q quad.Quad, ok bool, err error) {
	line = trimEOL(line)
	i := skipWS(line, 0)
	if i == len(line) || line[i] == '#' {
		return q, false, nil
	}
	if !utf8.Valid(line) {
		return q, false, &SyntaxError{Column: invalidUTF8At(line) + 1, Msg: "invalid UTF-8"}
	}
	if q.Subject, i, err = p.subject(line, i); err != nil {
		return q, false, err
	}
	if q.Predicate, i, err = p.predicate(line, skipWS(line, i)); err != nil {
		return q, false, err
	}
	if q.Object, i, err = p.object(line, skipWS(line, i)); err != nil {
		return q, false, err
	}
	i = skipWS(line, i)
	if i < len(line) && (line[i] == '<' || line[i] == '_' || (p.general && line[i] == '"')) {
		if q.Label, i, err = p.node(line, i, TermGraph); err != nil {
			return q, false, err
		}
		i = skipWS(line, i)
	}
	if err := p.end(line, i); err != nil {
		return q, false, err
	}
	return q, true, nil
}

// end checks the final '.' and an optional comment.
func (p *Parser) end(b []byte, i int) error {
	if i >= len(b) {
		return errAt(i, "", "missing '.' at end of statement")
	}
	if b[i] != '.' {
		return errAt(i, "", "expected '.', found %s", quoteByte(b, i))
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] != '#' {
		return errAt(i, "", "unexpected %s after '.'", quoteByte(b, i))
	}
	return nil
}

func (p *Parser) subject(b []byte, i int) (quad.Value, int, error) {
	if p.subj != nil {
		n := len(p.subjRaw)
		if len(b)-i > n && bytes.Equal(b[i:i+n], p.subjRaw) && isTermEnd(b, i+n) {
			return p.subj, i + n, nil
		}
	}
	v, j, err := p.node(b, i, TermSubject)
	if err != nil {
		return nil, j, err
	}
	p.subjRaw = append(p.subjRaw[:0], b[i:j]...)
	p.subj = v
	return v, j, nil
}

// isTermEnd reports whether a cached subject ending before b[i] really ends
// there (the blank node "_:a" must not match the start of "_:a.b" or
// "_:ab"). Only a separator or the predicate's '<' may follow a subject.
func isTermEnd(b []byte, i int) bool {
	c := b[i]
	return c == ' ' || c == '\t' || c == '<'
}

func (p *Parser) predicate(b []byte, i int) (quad.Value, int, error) {
	if p.general && i < len(b) && (b[i] == '_' || b[i] == '"') {
		return p.node(b, i, TermPredicate)
	}
	if i >= len(b) || b[i] != '<' {
		return nil, i, errAt(i, TermPredicate, "expected IRI, found %s", quoteByte(b, i))
	}
	j := bytes.IndexByte(b[i:], '>')
	if j > 0 {
		if v, ok := p.preds[string(b[i:i+j+1])]; ok {
			return v, i + j + 1, nil
		}
	}
	s, k, err := p.iri(b, i, TermPredicate)
	if err != nil {
		return nil, k, err
	}
	v := quad.Value(quad.IRI(s))
	if len(p.preds) < maxInterned {
		p.preds[string(b[i:k])] = v
	}
	return v, k, nil
}

func (p *Parser) object(b []byte, i int) (quad.Value, int, error) {
	if i < len(b) && b[i] == '"' {
		return p.literal(b, i)
	}
	return p.node(b, i, TermObject)
}

// node parses an IRI or a blank node.
func (p *Parser) node(b []byte, i int, term string) (quad.Value, int, error) {
	if i >= len(b) {
		return nil, i, errAt(i, term, "missing %s", term)
	}
	switch b[i] {
	case '<':
		s, j, err := p.iri(b, i, term)
		if err != nil {
			return nil, j, err
		}
		return quad.IRI(s), j, nil
	case '_':
		return p.blank(b, i, term)
	case '"':
		if p.general {
			return p.termLiteral(b, i, term)
		}
		return nil, i, errAt(i, term, "a literal cannot be the %s", term)
	}
	return nil, i, errAt(i, term, "expected IRI or blank node, found %s", quoteByte(b, i))
}

// iri parses <...> starting at b[i] == '<' and returns the unescaped IRI.
func (p *Parser) iri(b []byte, i int, term string) (string, int, error) {
	escaped := false
	j := i + 1
	for ; j < len(b); j++ {
		c := b[j]
		if c == '>' {
			break
		}
		if iriBad[c] {
			return "", j, errAt(j, term, "character %s not allowed in IRI", quoteByte(b, j))
		}
		if c == '\\' {
			n, err := ucharLen(b, j, term)
			if err != nil {
				return "", j, err
			}
			if r, _ := hexRune(b[j+2 : j+n]); iriEscapeBad(r) {
				return "", j, errAt(j, term, "escaped character U+%04X not allowed in IRI", r)
			}
			escaped = true
			j += n - 1
		}
	}
	if j >= len(b) {
		return "", j, errAt(i, term, "unterminated IRI")
	}
	raw := b[i+1 : j]
	s := ""
	if escaped {
		s = string(p.unescape(raw))
	} else {
		s = string(raw)
	}
	if p.strict && !hasScheme(s) {
		return "", i, errAt(i, term, "relative IRI <%s> not allowed", s)
	}
	return s, j + 1, nil
}

// blank parses a blank node label "_:x" starting at b[i] == '_'. The label
// is the longest run of label characters (isBlankChar, isScopedChar) that
// does not end with '.'; a '#' right after a '.' ends it, since "_:b.#c"
// is "_:b", the final '.' and a comment. The label must be followed by
// whitespace, '<', '"', its final '.' or the end of the line: any other
// character is reported as not allowed in the label (in the term being
// parsed, not the next one).
func (p *Parser) blank(b []byte, i int, term string) (quad.Value, int, error) {
	if i+1 >= len(b) || b[i+1] != ':' {
		return nil, i, errAt(i, term, "expected '_:' to start a blank node")
	}
	start := i + 2
	j := start
	for j < len(b) {
		r, n := rune(b[j]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(b[j:])
		}
		if !isBlankChar(r, j == start) && (j == start || !isScopedChar(r)) {
			break
		}
		if r == '#' && b[j-1] == '.' {
			break
		}
		j += n
	}
	end := j // the first byte after the run
	for j > start && b[j-1] == '.' {
		j--
	}
	if j == start {
		return nil, start, errAt(start, term, "empty or invalid blank node label")
	}
	if end < len(b) && !endsBlank(b, j, end) {
		return nil, end, errAt(end, term, "character %s not allowed in blank node label", quoteByte(b, end))
	}
	label := b[start:j]
	if p.scope == "" || p.scoped(label) {
		return quad.BNode(label), j, nil
	}
	buf := append(append(append(p.scratch[:0], p.scope...), '/'), label...)
	p.scratch = buf
	return quad.BNode(buf), j, nil
}

// endsBlank reports whether b[end], the byte after a blank node label's
// run of label characters, may follow the label: whitespace, '<' (the next
// IRI), '"' (a literal), or, after a final '.' (the run ends at label end
// j < end), a comment.
func endsBlank(b []byte, j, end int) bool {
	switch b[end] {
	case ' ', '\t', '<', '"':
		return true
	case '#':
		return j < end
	}
	return false
}

// scoped reports whether label is already a scoped name to keep as it is:
// one scoped to the parser's scope ("film/b1" with scope "film"), or, with
// SetKeepScoped, any label holding '/'.
func (p *Parser) scoped(label []byte) bool {
	if p.keepAll {
		return bytes.IndexByte(label, '/') >= 0
	}
	n := len(p.scope)
	return len(label) > n && label[n] == '/' && string(label[:n]) == p.scope
}

// termLiteral parses a literal in the position term of a generalized quad
// (SetGeneralized); its errors name that term rather than the object.
func (p *Parser) termLiteral(b []byte, i int, term string) (quad.Value, int, error) {
	v, j, err := p.literal(b, i)
	var se *SyntaxError
	if errors.As(err, &se) {
		se.Term = term
	}
	return v, j, err
}

// literal parses "..." with an optional @lang or ^^<datatype>.
func (p *Parser) literal(b []byte, i int) (quad.Value, int, error) {
	end, escaped, err := scanString(b, i)
	if err != nil {
		return nil, end, err
	}
	raw := b[i+1 : end]
	var s string
	if escaped {
		s = string(p.unescape(raw))
	} else {
		s = string(raw)
	}
	j := end + 1
	if j < len(b) && b[j] == '@' {
		k, err := langEnd(b, j+1)
		if err != nil {
			return nil, k, err
		}
		return quad.LangString{Value: quad.String(s), Lang: string(b[j+1 : k])}, k, nil
	}
	if j+1 < len(b) && b[j] == '^' && b[j+1] == '^' {
		dt, k, err := p.datatype(b, j+2)
		if err != nil {
			return nil, k, err
		}
		if dt == xsdString {
			return quad.String(s), k, nil
		}
		return quad.TypedString{Value: quad.String(s), Type: dt}, k, nil
	}
	return quad.String(s), j, nil
}

func (p *Parser) datatype(b []byte, i int) (quad.IRI, int, error) {
	if i >= len(b) || b[i] != '<' {
		return "", i, errAt(i, TermObject, "expected datatype IRI after '^^'")
	}
	if j := bytes.IndexByte(b[i:], '>'); j > 0 {
		if dt, ok := p.dtypes[string(b[i:i+j+1])]; ok {
			return dt, i + j + 1, nil
		}
	}
	s, k, err := p.iri(b, i, TermObject)
	if err != nil {
		return "", k, err
	}
	dt := quad.IRI(s)
	if len(p.dtypes) < maxInterned {
		p.dtypes[string(b[i:k])] = dt
	}
	return dt, k, nil
}

// scanString finds the closing quote of the string starting at b[i] == '"'
// and validates its escapes.
func scanString(b []byte, i int) (end int, escaped bool, err error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j, escaped, nil
		case '\\':
			n, err := escapeLen(b, j)
			if err != nil {
				return j, false, err
			}
			escaped = true
			j += n - 1
		case '\r', '\n':
			return j, false, errAt(j, TermObject, "raw line break in literal")
		}
	}
	return len(b), false, errAt(i, TermObject, "unterminated literal")
}

// langEnd returns the end of a language tag [a-zA-Z]+ ('-' [a-zA-Z0-9]+)*
// starting at b[i].
func langEnd(b []byte, i int) (int, error) {
	j := i
	for j < len(b) && isAlpha(b[j]) {
		j++
	}
	if j == i {
		return j, errAt(j, TermObject, "bad language tag: expected a letter after '@'")
	}
	for j < len(b) && b[j] == '-' {
		k := j + 1
		for k < len(b) && (isAlpha(b[k]) || isDigit(b[k])) {
			k++
		}
		if k == j+1 {
			return k, errAt(k, TermObject, "bad language tag: empty subtag")
		}
		j = k
	}
	return j, nil
}

// escapeLen validates the string escape at b[i] == '\\' and returns its
// length in bytes.
func escapeLen(b []byte, i int) (int, error) {
	if i+1 >= len(b) {
		return 0, errAt(i, TermObject, "incomplete escape")
	}
	switch b[i+1] {
	case 't', 'b', 'n', 'r', 'f', '"', '\'', '\\':
		return 2, nil
	case 'u', 'U':
		return ucharLen(b, i, TermObject)
	}
	return 0, errAt(i, TermObject, "bad escape \\%c", b[i+1])
}

// ucharLen validates \uXXXX or \UXXXXXXXX at b[i] == '\\'.
func ucharLen(b []byte, i int, term string) (int, error) {
	if i+1 >= len(b) || (b[i+1] != 'u' && b[i+1] != 'U') {
		return 0, errAt(i, term, "only \\u and \\U escapes are allowed here")
	}
	n := 4
	if b[i+1] == 'U' {
		n = 8
	}
	if i+2+n > len(b) {
		return 0, errAt(i, term, "incomplete \\%c escape", b[i+1])
	}
	r, ok := hexRune(b[i+2 : i+2+n])
	if !ok {
		return 0, errAt(i, term, "bad \\%c escape %q", b[i+1], b[i:i+2+n])
	}
	if !utf8.ValidRune(r) {
		return 0, errAt(i, term, "escape %q is not a valid code point", b[i:i+2+n])
	}
	return 2 + n, nil
}

// unescape decodes validated escapes into the parser's scratch buffer.
func (p *Parser) unescape(raw []byte) []byte {
	out := p.scratch[:0]
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch raw[i] {
		case 'u':
			r, _ := hexRune(raw[i+1 : i+5])
			out = utf8.AppendRune(out, r)
			i += 4
		case 'U':
			r, _ := hexRune(raw[i+1 : i+9])
			out = utf8.AppendRune(out, r)
			i += 8
		default:
			out = append(out, echar(raw[i]))
		}
	}
	p.scratch = out
	return out
}

func echar(c byte) byte {
	switch c {
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 'f':
		return '\f'
	}
	return c // '"', '\'' and '\\' stand for themselves
}

func hexRune(h []byte) (rune, bool) {
	var r rune
	for _, c := range h {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// iriBad marks the bytes that may not appear unescaped in an IRIREF.
var iriBad = func() (t [256]bool) {
	for c := 0; c <= 0x20; c++ {
		t[c] = true
	}
	for _, c := range []byte("<\"{}|^`") {
		t[c] = true
	}
	return t
}()

// iriEscapeBad reports whether r, written as a \u or \U escape in an
// IRIREF, stands for a character the IRI may not hold: one that may not
// appear there unescaped, or '>' and '\\' (serdi and rapper refuse
// <a:b\u0020c> as they refuse <a:b c>; an IRI with a space, a quote or
// angle brackets could not be written back as N-Triples or SPARQL).
func iriEscapeBad(r rune) bool {
	return r < 0x80 && (iriBad[r] || r == '>' || r == '\\')
}

// hasScheme reports whether s starts with an IRI scheme and ':'.
func hasScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlpha(c):
		case i > 0 && (isDigit(c) || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}

// isScopedChar reports whether r is one of the characters Grove accepts in
// a blank node label, after its first character, beyond the N-Triples
// grammar: those of its scoped names ('/' after the graph, '@' and '#' in
// the names of anonymous Turtle and RDF/XML nodes, "film/export.ttl@3f2a#3")
// and the other ASCII characters an IRI holds unescaped (graph names are
// often IRIs) that N-Quads and Turtle do not use as delimiters: ? = & % + ~
// ! $ *. Not ',', ';', '(', ')', '[', ']' or quotes, which end Turtle terms:
// a Turtle line must not read as N-Quads.
func isScopedChar(r rune) bool {
	switch r {
	case '/', '@', '#', '?', '=', '&', '%', '+', '~', '!', '$', '*':
		return true
	}
	return false
}

// isBlankChar reports whether r may appear in a blank node label (the
// N-Triples PN_CHARS / PN_CHARS_U sets, plus '.' inside the label).
func isBlankChar(r rune, first bool) bool {
	switch {
	case r < utf8.RuneSelf:
		c := byte(r)
		if isAlpha(c) || isDigit(c) || c == '_' || c == ':' {
			return true
		}
		return !first && (c == '-' || c == '.')
	case isPNCharsBase(r):
		return true
	}
	return !first && (r == 0xB7 || (r >= 0x300 && r <= 0x36F) || r == 0x203F || r == 0x2040)
}

func isPNCharsBase(r rune) bool {
	switch {
	case r >= 0xC0 && r <= 0xD6, r >= 0xD8 && r <= 0xF6, r >= 0xF8 && r <= 0x2FF,
		r >= 0x370 && r <= 0x37D, r >= 0x37F && r <= 0x1FFF, r >= 0x200C && r <= 0x200D,
		r >= 0x2070 && r <= 0x218F, r >= 0x2C00 && r <= 0x2FEF, r >= 0x3001 && r <= 0xD7FF,
		r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFFD, r >= 0x10000 && r <= 0xEFFFF:
		return true
	}
	return false
}

func isAlpha(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

func quoteByte(b []byte, i int) string {
	if i >= len(b) {
		return "end of line"
	}
	r, _ := utf8.DecodeRune(b[i:])
	return fmt.Sprintf("%q", r)
}

func errAt(i int, term, format string, args ...any) *SyntaxError {
	return &SyntaxError{Column: i + 1, Term: term, Msg: fmt.Sprintf(format, args...)}
}
