package rdf

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/cayleygraph/quad"
)

// Vocabulary the Turtle and RDF/XML parsers generate.
const (
	rdfNS      = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	rdfType    = quad.IRI(rdfNS + "type")
	rdfFirst   = quad.IRI(rdfNS + "first")
	rdfRest    = quad.IRI(rdfNS + "rest")
	rdfNil     = quad.IRI(rdfNS + "nil")
	xsdNS      = "http://www.w3.org/2001/XMLSchema#"
	xsdInteger = quad.IRI(xsdNS + "integer")
	xsdDec     = quad.IRI(xsdNS + "decimal")
	xsdDouble  = quad.IRI(xsdNS + "double")
	xsdBoolean = quad.IRI(xsdNS + "boolean")
)

// maxNesting bounds nested blank node property lists and collections, so a
// hostile input cannot exhaust the stack.
const maxNesting = 1000

// turtle parses one Turtle document statement by statement and hands every
// triple to emit as soon as it is complete: memory is bounded by the
// largest term (scanner.max) and the nesting depth, never by the document.
type turtle struct {
	s        *scanner
	blanks   blankNamer
	base     string
	prefixes map[string]string
	emit     func(quad.Quad) error
	strict   bool
	depth    int
	tok      []byte
}

// turtleError is a syntax error at a line and column of the document.
type turtleError struct {
	line int64
	col  int
	msg  string
}

func (e *turtleError) Error() string { return e.msg }

func (t *turtle) errf(format string, args ...any) error {
	return &turtleError{line: t.s.line, col: t.s.col, msg: fmt.Sprintf("column %d: ", t.s.col) + fmt.Sprintf(format, args...)}
}

// unexpected describes the current byte in an error.
func (t *turtle) unexpected(what string) error {
	c := t.s.peek()
	switch {
	case c < 0 && t.s.err() != nil:
		return t.s.err()
	case c < 0:
		return t.errf("expected %s, found end of input", what)
	case c >= utf8.RuneSelf:
		return t.errf("expected %s, found byte 0x%02x", what, c)
	}
	return t.errf("expected %s, found %q", what, rune(c))
}

// ws skips white space and comments.
func (t *turtle) ws() {
	for {
		switch t.s.peek() {
		case ' ', '\t', '\r', '\n':
			t.s.skip(1)
		case '#':
			for c := t.s.peek(); c >= 0 && c != '\n'; c = t.s.peek() {
				t.s.skip(1)
			}
		default:
			return
		}
	}
}

// statement parses one directive or triples statement; it returns done at
// the end of the input.
func (t *turtle) statement() (done bool, err error) {
	t.ws()
	c := t.s.peek()
	switch {
	case c < 0:
		return true, t.s.err()
	case c == '@':
		return false, t.atDirective()
	case t.keyword("prefix"):
		return false, t.prefixDirective(false)
	case t.keyword("base"):
		return false, t.baseDirective(false)
	}
	if err := t.triples(); err != nil {
		return false, err
	}
	t.ws()
	if t.s.peek() != '.' {
		return false, t.unexpected("'.' at the end of the statement")
	}
	t.s.skip(1)
	return false, nil
}

// keyword reports whether the input continues with the SPARQL-style
// keyword kw (any case) followed by white space, and consumes it.
func (t *turtle) keyword(kw string) bool {
	for i := 0; i < len(kw); i++ {
		if c := t.s.at(i); c < 0 || byte(c)|0x20 != kw[i] {
			return false
		}
	}
	switch t.s.at(len(kw)) {
	case ' ', '\t', '\r', '\n', '<':
		t.s.skip(len(kw))
		return true
	}
	return false
}

func (t *turtle) atDirective() error {
	t.s.skip(1)
	name := t.word()
	var err error
	switch name {
	case "prefix":
		err = t.prefixDirective(true)
	case "base":
		err = t.baseDirective(true)
	default:
		return t.errf("unknown directive @%s", name)
	}
	return err
}

// word reads ASCII letters (a directive name).
func (t *turtle) word() string {
	n := 0
	for c := t.s.at(n); c >= 0 && isAlpha(byte(c)); c = t.s.at(n) {
		n++
	}
	w := string(t.s.buf[t.s.pos : t.s.pos+n])
	t.s.skip(n)
	return w
}

func (t *turtle) prefixDirective(dot bool) error {
	t.ws()
	prefix, err := t.pnameNS()
	if err != nil {
		return err
	}
	t.ws()
	iri, err := t.iriRef()
	if err != nil {
		return err
	}
	t.prefixes[prefix] = iri
	return t.directiveEnd(dot)
}

func (t *turtle) baseDirective(dot bool) error {
	t.ws()
	iri, err := t.iriRef()
	if err != nil {
		return err
	}
	t.base = iri
	return t.directiveEnd(dot)
}

func (t *turtle) directiveEnd(dot bool) error {
	if !dot {
		return nil
	}
	t.ws()
	if t.s.peek() != '.' {
		return t.unexpected("'.' after the directive")
	}
	t.s.skip(1)
	return nil
}

// pnameNS reads "prefix:" and returns the prefix.
func (t *turtle) pnameNS() (string, error) {
	n := t.nameLen(0, false)
	if t.s.at(n) != ':' {
		return "", t.unexpected("a prefix name ending in ':'")
	}
	p := string(t.s.buf[t.s.pos : t.s.pos+n])
	t.s.skip(n + 1)
	return p, nil
}

// triples parses subject predicateObjectList, or a blank node property
// list with an optional predicateObjectList.
func (t *turtle) triples() error {
	if t.s.peek() == '[' {
		subj, props, err := t.blankNodePropertyList()
		if err != nil {
			return err
		}
		t.ws()
		if props && t.s.peek() == '.' {
			return nil
		}
		return t.predicateObjectList(subj)
	}
	subj, err := t.subject()
	if err != nil {
		return err
	}
	t.ws()
	return t.predicateObjectList(subj)
}

func (t *turtle) subject() (quad.Value, error) {
	switch c := t.s.peek(); c {
	case '<', '_', '(':
		return t.node()
	case '"', '\'':
		return nil, t.errf("a literal cannot be a subject")
	default:
		v, err := t.name()
		if err == nil {
			if _, lit := v.(quad.TypedString); lit {
				return nil, t.errf("a literal cannot be a subject")
			}
		}
		return v, err
	}
}

// predicateObjectList parses verb objectList (';' (verb objectList)?)*.
func (t *turtle) predicateObjectList(subj quad.Value) error {
	for {
		pred, err := t.verb()
		if err != nil {
			return err
		}
		if err := t.objectList(subj, pred); err != nil {
			return err
		}
		t.ws()
		if t.s.peek() != ';' {
			return nil
		}
		for t.s.peek() == ';' {
			t.s.skip(1)
			t.ws()
		}
		switch t.s.peek() {
		case '.', ']', -1:
			return nil
		}
	}
}

func (t *turtle) objectList(subj, pred quad.Value) error {
	for {
		t.ws()
		obj, err := t.object()
		if err != nil {
			return err
		}
		if err := t.emit(quad.Quad{Subject: subj, Predicate: pred, Object: obj}); err != nil {
			return err
		}
		t.ws()
		if t.s.peek() != ',' {
			return nil
		}
		t.s.skip(1)
	}
}

// verb parses a predicate IRI or "a".
func (t *turtle) verb() (quad.Value, error) {
	if t.s.peek() == '<' {
		return t.node()
	}
	if t.s.peek() == 'a' {
		switch t.s.at(1) {
		case ' ', '\t', '\r', '\n', '<', '[', '(', '"', '\'', '_', '#':
			t.s.skip(1)
			return rdfType, nil
		}
	}
	v, err := t.name()
	if err != nil {
		return nil, err
	}
	if _, ok := v.(quad.IRI); !ok {
		return nil, t.errf("a predicate must be an IRI")
	}
	return v, nil
}

// object parses any object term, emitting the triples of nested blank
// node property lists and collections.
func (t *turtle) object() (quad.Value, error) {
	switch c := t.s.peek(); {
	case c == '<' || c == '_' || c == '(':
		return t.node()
	case c == '[':
		v, _, err := t.blankNodePropertyList()
		return v, err
	case c == '"' || c == '\'':
		return t.literal()
	case c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9'):
		return t.number()
	}
	return t.name()
}

// node parses an IRIREF, a labelled blank node or a collection.
func (t *turtle) node() (quad.Value, error) {
	switch t.s.peek() {
	case '<':
		iri, err := t.iriRef()
		return quad.IRI(iri), err
	case '_':
		return t.blankLabel()
	case '(':
		return t.collection()
	}
	return nil, t.unexpected("an IRI or blank node")
}

// enter and leave bound the nesting depth.
func (t *turtle) enter() error {
	if t.depth++; t.depth > maxNesting {
		return t.errf("nesting deeper than %d blank node lists or collections", maxNesting)
	}
	return nil
}

func (t *turtle) leave() { t.depth-- }

// blankNodePropertyList parses "[ ... ]" and returns the new blank node;
// props is false for the empty "[]".
func (t *turtle) blankNodePropertyList() (quad.Value, bool, error) {
	if err := t.enter(); err != nil {
		return nil, false, err
	}
	defer t.leave()
	t.s.skip(1)
	node := t.blanks.fresh()
	t.ws()
	if t.s.peek() == ']' {
		t.s.skip(1)
		return node, false, nil
	}
	if err := t.predicateObjectList(node); err != nil {
		return nil, true, err
	}
	t.ws()
	if t.s.peek() != ']' {
		return nil, true, t.unexpected("']' closing the blank node property list")
	}
	t.s.skip(1)
	return node, true, nil
}

// collection parses "( o1 o2 ... )" into an rdf:first/rdf:rest list and
// returns its head (rdf:nil when empty).
func (t *turtle) collection() (quad.Value, error) {
	if err := t.enter(); err != nil {
		return nil, err
	}
	defer t.leave()
	t.s.skip(1)
	t.ws()
	if t.s.peek() == ')' {
		t.s.skip(1)
		return rdfNil, nil
	}
	head := t.blanks.fresh()
	cur := head
	for {
		item, err := t.object()
		if err != nil {
			return nil, err
		}
		if err := t.emit(quad.Quad{Subject: cur, Predicate: rdfFirst, Object: item}); err != nil {
			return nil, err
		}
		t.ws()
		if t.s.peek() == ')' {
			t.s.skip(1)
			return head, t.emit(quad.Quad{Subject: cur, Predicate: rdfRest, Object: rdfNil})
		}
		if t.s.peek() < 0 {
			return nil, t.unexpected("')' closing the collection")
		}
		next := t.blanks.fresh()
		if err := t.emit(quad.Quad{Subject: cur, Predicate: rdfRest, Object: next}); err != nil {
			return nil, err
		}
		cur = next
	}
}

// blankLabel parses "_:label".
func (t *turtle) blankLabel() (quad.Value, error) {
	if t.s.at(1) != ':' {
		return nil, t.unexpected("'_:' starting a blank node")
	}
	t.s.skip(2)
	n := 0
	for {
		c := t.s.at(n)
		if c < 0 {
			break
		}
		r, w := rune(c), 1
		if c >= utf8.RuneSelf {
			t.s.fill(n + utf8.UTFMax)
			r, w = utf8.DecodeRune(t.s.buf[t.s.pos+n : t.s.end])
		}
		if !isBlankChar(r, n == 0) || r == ':' {
			break
		}
		n += w
	}
	for n > 0 && t.s.buf[t.s.pos+n-1] == '.' {
		n--
	}
	if n == 0 {
		return nil, t.errf("empty or invalid blank node label")
	}
	label := t.s.buf[t.s.pos : t.s.pos+n]
	t.s.skip(n)
	return t.blanks.labelled(label), nil
}

// iriRef parses "<...>" and resolves it against the base IRI.
func (t *turtle) iriRef() (string, error) {
	if t.s.peek() != '<' {
		return "", t.unexpected("an IRI in '<...>'")
	}
	t.s.skip(1)
	if iri, ok := t.plainIRI(); ok {
		return t.resolve(iri)
	}
	t.tok = t.tok[:0]
	for {
		c := t.s.peek()
		switch {
		case c < 0:
			return "", t.tooLongOr("unterminated IRI")
		case c == '>':
			t.s.skip(1)
			if !utf8.Valid(t.tok) {
				return "", t.errf("invalid UTF-8 in IRI")
			}
			return t.resolve(string(t.tok))
		case c == '\\':
			r, err := t.uchar()
			if err != nil {
				return "", err
			}
			if iriEscapeBad(r) {
				return "", t.errf("escaped character U+%04X not allowed in IRI", r)
			}
			t.tok = utf8.AppendRune(t.tok, r)
			continue
		case iriBad[c]:
			return "", t.errf("character %q not allowed in IRI", rune(c))
		}
		if len(t.tok) >= t.s.max {
			return "", t.tooLongOr("")
		}
		t.tok = append(t.tok, byte(c))
		t.s.skip(1)
	}
}

// plainIRI is the fast path of iriRef: an IRI without escapes that ends
// inside the scanner's window.
func (t *turtle) plainIRI() (string, bool) {
	win := t.s.window()
	i := bytes.IndexByte(win, '>')
	if i < 0 || i > t.s.max {
		return "", false
	}
	raw := win[:i]
	for _, c := range raw {
		if iriBad[c] || c == '\\' || c >= utf8.RuneSelf {
			return "", false
		}
	}
	iri := string(raw)
	t.s.skip(i + 1)
	return iri, true
}

// plainString is the fast path of quoted: a short string without escapes
// or line breaks that ends inside the scanner's window. It starts after
// the opening quote q.
func (t *turtle) plainString(q byte) (string, bool) {
	win := t.s.window()
	if len(win) > t.s.max {
		win = win[:t.s.max]
	}
	for i, c := range win {
		switch c {
		case q:
			if !utf8.Valid(win[:i]) {
				return "", false
			}
			s := string(win[:i])
			t.s.skip(i + 1)
			return s, true
		case '\\', '\n', '\r':
			return "", false
		}
	}
	return "", false
}

// tooLongOr reports a term over the size limit, a read error, or msg.
func (t *turtle) tooLongOr(msg string) error {
	if err := t.s.err(); err != nil {
		return err
	}
	if msg == "" || len(t.tok) >= t.s.max {
		return t.errf("%v (limit %d bytes)", errTokenTooLong, t.s.max)
	}
	return t.errf("%s", msg)
}

func (t *turtle) resolve(iri string) (string, error) {
	if hasScheme(iri) {
		return iri, nil
	}
	if t.base != "" {
		return resolveIRI(t.base, iri), nil
	}
	if t.strict {
		return "", t.errf("relative IRI <%s> without a base IRI", iri)
	}
	return iri, nil
}

// uchar parses \uXXXX or \UXXXXXXXX at the current '\\'.
func (t *turtle) uchar() (rune, error) {
	n := 0
	switch t.s.at(1) {
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return 0, t.errf("only \\u and \\U escapes are allowed here")
	}
	if !t.s.fill(2 + n) {
		return 0, t.errf("incomplete \\%c escape", t.s.at(1))
	}
	h := t.s.buf[t.s.pos+2 : t.s.pos+2+n]
	r, ok := hexRune(h)
	if !ok || !utf8.ValidRune(r) {
		return 0, t.errf("bad escape \\%c%s", t.s.at(1), h)
	}
	t.s.skip(2 + n)
	return r, nil
}

// literal parses a quoted string with an optional language tag or
// datatype.
func (t *turtle) literal() (quad.Value, error) {
	s, err := t.quoted()
	if err != nil {
		return nil, err
	}
	switch t.s.peek() {
	case '@':
		t.s.skip(1)
		n := 0
		for c := t.s.at(n); c >= 0 && (isAlpha(byte(c)) || (n > 0 && (c == '-' || isDigit(byte(c))))); c = t.s.at(n) {
			n++
		}
		lang := string(t.s.buf[t.s.pos : t.s.pos+n])
		if n == 0 || lang[n-1] == '-' {
			return nil, t.errf("bad language tag %q", lang)
		}
		t.s.skip(n)
		return quad.LangString{Value: quad.String(s), Lang: lang}, nil
	case '^':
		if t.s.at(1) != '^' {
			return nil, t.unexpected("'^^' before a datatype")
		}
		t.s.skip(2)
		var dt quad.Value
		if t.s.peek() == '<' {
			dt, err = t.node()
		} else {
			dt, err = t.name()
		}
		if err != nil {
			return nil, err
		}
		iri, ok := dt.(quad.IRI)
		if !ok {
			return nil, t.errf("a datatype must be an IRI")
		}
		if iri == xsdString {
			return quad.String(s), nil
		}
		return quad.TypedString{Value: quad.String(s), Type: iri}, nil
	}
	return quad.String(s), nil
}

// quoted parses '...', "...", ”'...”' or """...""" with escapes.
func (t *turtle) quoted() (string, error) {
	q := t.s.peek()
	long := t.s.at(1) == q && t.s.at(2) == q
	if long {
		t.s.skip(3)
	} else {
		t.s.skip(1)
		if s, ok := t.plainString(byte(q)); ok {
			return s, nil
		}
	}
	t.tok = t.tok[:0]
	for {
		c := t.s.peek()
		switch {
		case c < 0:
			return "", t.tooLongOr("unterminated string")
		case c == q && (!long || (t.s.at(1) == q && t.s.at(2) == q)):
			if long {
				t.s.skip(3)
			} else {
				t.s.skip(1)
			}
			if !utf8.Valid(t.tok) {
				return "", t.errf("invalid UTF-8 in string")
			}
			return string(t.tok), nil
		case c == '\\':
			if err := t.escape(); err != nil {
				return "", err
			}
			continue
		case !long && (c == '\n' || c == '\r'):
			return "", t.errf("line break in a single-quoted string (use \"\"\" for multi-line strings)")
		}
		if len(t.tok) >= t.s.max {
			return "", t.tooLongOr("")
		}
		t.tok = append(t.tok, byte(c))
		t.s.skip(1)
	}
}

// escape appends the string escape at the current '\\' to t.tok.
func (t *turtle) escape() error {
	switch c := t.s.at(1); c {
	case 't', 'b', 'n', 'r', 'f', '"', '\'', '\\':
		t.tok = append(t.tok, echar(byte(c)))
		t.s.skip(2)
		return nil
	case 'u', 'U':
		r, err := t.uchar()
		t.tok = utf8.AppendRune(t.tok, r)
		return err
	}
	return t.errf("bad escape in string")
}

// number parses an integer, decimal or double literal.
func (t *turtle) number() (quad.Value, error) {
	n := 0
	if c := t.s.at(0); c == '+' || c == '-' {
		n++
	}
	digits := t.digits(n)
	n += digits
	typ := xsdInteger
	if t.s.at(n) == '.' && isDigit(byteAt(t.s.at(n+1))) {
		frac := t.digits(n + 1)
		n += 1 + frac
		digits += frac
		typ = xsdDec
	} else if t.s.at(n) == '.' && digits > 0 && t.exponent(n+1) > 0 {
		n++ // "1.e3" is a double
	}
	if digits == 0 {
		return nil, t.unexpected("a number")
	}
	if c := t.s.at(n); c == 'e' || c == 'E' {
		exp := t.exponent(n)
		if exp == 0 {
			return nil, t.errf("bad exponent in number")
		}
		n += exp
		typ = xsdDouble
	}
	lex := string(t.s.buf[t.s.pos : t.s.pos+n])
	t.s.skip(n)
	return quad.TypedString{Value: quad.String(lex), Type: typ}, nil
}

// exponent returns the length of an exponent ("e", sign, digits) at
// offset i, or 0.
func (t *turtle) exponent(i int) int {
	if c := t.s.at(i); c != 'e' && c != 'E' {
		return 0
	}
	m := i + 1
	if c := t.s.at(m); c == '+' || c == '-' {
		m++
	}
	d := t.digits(m)
	if d == 0 {
		return 0
	}
	return m + d - i
}

// digits counts the ASCII digits from offset i.
func (t *turtle) digits(i int) int {
	n := 0
	for isDigit(byteAt(t.s.at(i + n))) {
		n++
	}
	return n
}

func byteAt(c int) byte {
	if c < 0 {
		return 0
	}
	return byte(c)
}

// name parses a prefixed name (PNAME_LN or PNAME_NS) or the keywords true
// and false.
func (t *turtle) name() (quad.Value, error) {
	n := t.nameLen(0, false)
	if t.s.at(n) != ':' {
		word := string(t.s.buf[t.s.pos : t.s.pos+n])
		switch word {
		case "true", "false":
			t.s.skip(n)
			return quad.TypedString{Value: quad.String(word), Type: xsdBoolean}, nil
		}
		return nil, t.unexpected("an IRI, prefixed name, blank node or literal")
	}
	prefix := t.s.buf[t.s.pos : t.s.pos+n]
	ns, ok := t.prefixes[string(prefix)]
	if !ok {
		return nil, t.errf("undefined prefix %q", prefix)
	}
	local, err := t.local(n + 1)
	if err != nil {
		return nil, err
	}
	return quad.IRI(ns + local), nil
}

// nameLen returns the length of the name characters starting at offset i
// (letters, digits, '_', '-', '.', and any non-ASCII byte; ':' too when
// local is set). A trailing '.' is not part of a name.
func (t *turtle) nameLen(i int, local bool) int {
	n := i
	for {
		c := t.s.at(n)
		if c < 0 || !(isNameByte(byte(c)) || (local && c == ':')) {
			break
		}
		n++
	}
	for n > i && t.s.buf[t.s.pos+n-1] == '.' {
		n--
	}
	return n - i
}

func isNameByte(c byte) bool {
	return isAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c >= utf8.RuneSelf
}

// local reads the local part of a prefixed name starting at offset i,
// undoing '\' escapes (percent escapes stay as they are) and consuming
// the whole name.
func (t *turtle) local(i int) (string, error) {
	t.tok = t.tok[:0]
	n := i
	keep := 0 // length of t.tok up to the last byte that may end a name
	end := i  // offset after that byte
	for {
		c := t.s.at(n)
		switch {
		case c < 0:
		case isNameByte(byte(c)) || c == ':':
			t.tok = append(t.tok, byte(c))
			n++
			if c != '.' {
				keep, end = len(t.tok), n
			}
			continue
		case c == '%':
			if !isHex(t.s.at(n+1)) || !isHex(t.s.at(n+2)) {
				return "", t.errf("bad percent escape in a prefixed name")
			}
			t.tok = append(t.tok, t.s.buf[t.s.pos+n:t.s.pos+n+3]...)
			n += 3
			keep, end = len(t.tok), n
			continue
		case c == '\\':
			e := t.s.at(n + 1)
			if e < 0 || !isLocalEscape(byte(e)) {
				return "", t.errf("bad escape in a prefixed name")
			}
			t.tok = append(t.tok, byte(e))
			n += 2
			keep, end = len(t.tok), n
			continue
		}
		break
	}
	if len(t.tok) > t.s.max {
		return "", t.tooLongOr("")
	}
	local := t.tok[:keep]
	if !utf8.Valid(local) {
		return "", t.errf("invalid UTF-8 in a prefixed name")
	}
	t.s.skip(end)
	return string(local), nil
}

func isHex(c int) bool {
	return c >= 0 && (isDigit(byte(c)) || (byte(c)|0x20 >= 'a' && byte(c)|0x20 <= 'f'))
}

// isLocalEscape reports the characters PN_LOCAL_ESC may escape.
func isLocalEscape(c byte) bool {
	switch c {
	case '_', '~', '.', '-', '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=', '/', '?', '#', '@', '%':
		return true
	}
	return false
}

// blankNamer names blank nodes: labels are scoped by the graph like the
// N-Triples reader's ("_:b1" in graph "film" is "film/b1"), and the nodes
// the syntax creates ([...], collections, RDF/XML node elements without an
// id) get "<scope>/<document>#<n>", which no label can spell ('#' is not a
// label character), so they never merge with a labelled node, nor with
// those of another document as long as documents are named apart
// (Options.Document). Re-reading a document under the same name yields the
// same names.
type blankNamer struct {
	prefix string // "scope/" or ""
	anon   string // prefix + document + "#"
	n      int64
	buf    []byte
}

func newBlankNamer(scope, document string) blankNamer {
	p := ""
	if scope != "" {
		p = scope + "/"
	}
	return blankNamer{prefix: p, anon: p + document + "#"}
}

func (b *blankNamer) labelled(label []byte) quad.BNode {
	b.buf = append(append(b.buf[:0], b.prefix...), label...)
	return quad.BNode(b.buf)
}

func (b *blankNamer) fresh() quad.BNode {
	b.n++
	b.buf = strconv.AppendInt(append(b.buf[:0], b.anon...), b.n, 10)
	return quad.BNode(b.buf)
}
