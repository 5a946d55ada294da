package rdf

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cayleygraph/quad"
	"golang.org/x/text/encoding/htmlindex"

	"github.com/grove-kg/grove/ingest/source"
)

const (
	xmlNS         = "http://www.w3.org/XML/1998/namespace"
	rdfXMLLiteral = quad.IRI(rdfNS + "XMLLiteral")
)

// RDFXMLReader reads RDF/XML documents (W3C RDF 1.1 XML Syntax: node and
// property elements, typed node elements, property attributes, rdf:about,
// rdf:ID, rdf:nodeID, rdf:resource, rdf:datatype, xml:lang and xml:base
// scoping, rdf:li numbering, rdf:parseType Resource, Collection and
// Literal, reification through rdf:ID on property elements, DOCTYPE
// entity declarations such as &xsd;, and any encoding the XML declaration
// names). It implements source.Reader.
//
// It streams: encoding/xml hands over one token at a time and each triple
// is written as soon as its subject, predicate and object are known, so
// memory is bounded by the element nesting (at most maxNesting levels) and
// the longest text node (Options.MaxLineBytes), not by the document. The
// limit is checked on the input before encoding/xml sees it (textGuard),
// counting each reference to a DOCTYPE entity at its expanded size, since
// encoding/xml builds a whole text node, entities expanded, before handing
// it over: a 200 KB document of entity references expanded to gigabytes.
// Blank nodes are named as by the Turtle reader: rdf:nodeID values are
// scoped by Options.Graph, nodes without an id get
// "<graph>/<document>#<n>" (see Options.Document).
// rdf:parseType="Literal" content is re-serialized with explicit xmlns
// declarations (not exclusive canonical XML) and typed rdf:XMLLiteral.
// Property attributes take the in-scope xml:lang, as the W3C grammar says
// (section 7.2.11: literal-language := e.language) and rdflib does; rapper
// leaves them untagged, so the rapper-checked fixtures have no property
// attribute under an xml:lang.
//
// A byte order mark opening the document is skipped, as by the other
// readers. A malformed document is a *source.Error naming the file and
// line. XML cannot be resynchronised after an error, so it stops the read
// even with SkipInvalid (after reporting it through Options.Skip, which
// counts it).
type RDFXMLReader struct {
	opts Options
	dropCount
}

var _ source.Reader = (*RDFXMLReader)(nil)

// NewRDFXML returns an RDF/XML reader.
func NewRDFXML(opts Options) *RDFXMLReader { return &RDFXMLReader{opts: opts} }

// Read parses r and writes its triples to w.
func (rd *RDFXMLReader) Read(ctx context.Context, name string, r io.Reader, w source.Writer) error {
	emit, finish := newEmitter(rd.opts, w, &rd.dropCount)
	max := rd.opts.MaxLineBytes
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	if b, _ := br.Peek(len(utf8BOM)); string(b) == utf8BOM {
		// A byte order mark opening the document is not text.
		if _, err := br.Discard(len(utf8BOM)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	entities := map[string]string{}
	dec := xml.NewDecoder(&textGuard{br: br, entities: entities, max: max})
	dec.CharsetReader = charsetReader
	dec.Entity = entities
	x := &rdfxml{ctx: ctx, dec: dec, blanks: newBlankNamer(rd.opts.Graph, rd.opts.document(name)), emit: emit, strict: rd.opts.Strict, max: max}
	if err := x.document(); err != nil {
		var pe *xmlError
		if errors.As(err, &pe) {
			se := &source.Error{File: name, Line: pe.line, Err: pe.err}
			if err := rd.opts.Skip(se); err != nil {
				return err
			}
			return se // the rest of the document cannot be read
		}
		line, _ := dec.InputPos()
		return fmt.Errorf("%s:%d: %w", name, line, err)
	}
	if err := finish(); err != nil {
		return fmt.Errorf("%s: end of input: %w", name, err)
	}
	return nil
}

// charsetReader decodes the encodings an XML declaration may name.
func charsetReader(label string, in io.Reader) (io.Reader, error) {
	enc, err := htmlindex.Get(label)
	if err != nil {
		return nil, fmt.Errorf("unsupported encoding %q: %w", label, err)
	}
	return enc.NewDecoder().Reader(in), nil
}

// xmlError is a syntax error at a line of the document.
type xmlError struct {
	line int64
	err  error
}

func (e *xmlError) Error() string { return e.err.Error() }
func (e *xmlError) Unwrap() error { return e.err }

// rdfxml is the state of one RDF/XML parse.
type rdfxml struct {
	ctx    context.Context
	dec    *xml.Decoder
	blanks blankNamer
	emit   func(quad.Quad) error
	strict bool
	max    int
	depth  int
	tokens int
}

// scope is the in-scope xml:base and xml:lang of an element.
type scope struct {
	base, lang string
}

func (x *rdfxml) errf(format string, args ...any) error {
	line, _ := x.dec.InputPos()
	return &xmlError{line: int64(line), err: fmt.Errorf(format, args...)}
}

// token returns the next XML token; syntax errors become xmlErrors.
func (x *rdfxml) token() (xml.Token, error) {
	if x.tokens++; x.tokens%ctxCheckEvery == 0 {
		if err := x.ctx.Err(); err != nil {
			return nil, err
		}
	}
	tok, err := x.dec.Token()
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return nil, &xmlError{line: int64(se.Line), err: fmt.Errorf("XML: %s", se.Msg)}
	}
	if el, ok := tok.(xml.StartElement); ok {
		if err := x.checkNames(el); err != nil {
			return nil, err
		}
	}
	return tok, err
}

// checkNames refuses what encoding/xml lets through: a prefix no xmlns
// declares (it is left as the name's Space, and "nope:p" would become the
// IRI <nopep>) and an attribute given twice.
func (x *rdfxml) checkNames(el xml.StartElement) error {
	if undeclared(el.Name.Space) {
		return x.errf("namespace prefix %q of <%s:%s> is not declared", el.Name.Space, el.Name.Space, el.Name.Local)
	}
	for i, a := range el.Attr {
		if undeclared(a.Name.Space) && a.Name.Space != "xmlns" {
			return x.errf("namespace prefix %q of attribute %s:%s is not declared", a.Name.Space, a.Name.Space, a.Name.Local)
		}
		for _, b := range el.Attr[:i] {
			if a.Name == b.Name {
				return x.errf("attribute %s given twice", qname(a.Name))
			}
		}
	}
	return nil
}

// undeclared reports a name space that is a prefix encoding/xml could not
// translate: every namespace name is an absolute IRI, with a colon.
func undeclared(space string) bool { return space != "" && !strings.Contains(space, ":") }

// qname is a name as written, its namespace in braces.
func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return "{" + n.Space + "}" + n.Local
}

// entityDecl matches the internal general entities of a DOCTYPE.
var entityDecl = regexp.MustCompile(`<!ENTITY\s+([^\s%]+)\s+(?:"([^"]*)"|'([^']*)')\s*>`)

func (x *rdfxml) document() error {
	for {
		tok, err := x.token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.Directive:
			for _, m := range entityDecl.FindAllSubmatch([]byte("<!"+string(t)+">"), -1) {
				v, err := expandEntityValue(string(m[2])+string(m[3]), x.dec.Entity, x.max)
				if err != nil {
					return x.errf("entity %s: %v", m[1], err)
				}
				x.dec.Entity[string(m[1])] = v
			}
		case xml.StartElement:
			sc := scope{}.with(t, x)
			if t.Name.Space == rdfNS && t.Name.Local == "RDF" {
				if err := x.nodeElementList(sc); err != nil {
					return err
				}
				continue
			}
			if _, err := x.nodeElement(t, scope{}); err != nil {
				return err
			}
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return x.errf("text outside of any element")
			}
		}
	}
}

// with returns the scope inside el.
func (sc scope) with(el xml.StartElement, x *rdfxml) scope {
	for _, a := range el.Attr {
		if a.Name.Space != xmlNS {
			continue
		}
		switch a.Name.Local {
		case "lang":
			sc.lang = a.Value
		case "base":
			sc.base = x.resolve(sc, a.Value)
			if i := strings.IndexByte(sc.base, '#'); i >= 0 {
				sc.base = sc.base[:i]
			}
		}
	}
	return sc
}

// resolve resolves an IRI reference against the scope's base.
func (x *rdfxml) resolve(sc scope, ref string) string {
	if hasScheme(ref) || sc.base == "" {
		return ref
	}
	return resolveIRI(sc.base, ref)
}

func (x *rdfxml) iri(sc scope, ref string) (quad.IRI, error) {
	iri := x.resolve(sc, ref)
	if x.strict && !hasScheme(iri) {
		return "", x.errf("relative IRI <%s> without a base IRI", iri)
	}
	return quad.IRI(iri), nil
}

// nodeElementList reads node elements until the enclosing end tag.
func (x *rdfxml) nodeElementList(sc scope) error {
	for {
		tok, err := x.token()
		if err != nil {
			return x.eof(err, "the end of rdf:RDF")
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if _, err := x.nodeElement(t, sc); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return x.errf("text %q where a node element was expected", bytes.TrimSpace(t))
			}
		}
	}
}

// eof turns an unexpected end of input into a syntax error.
func (x *rdfxml) eof(err error, what string) error {
	if err == io.EOF {
		return x.errf("unexpected end of input before %s", what)
	}
	return err
}

func (x *rdfxml) enter() error {
	if x.depth++; x.depth > maxNesting {
		return x.errf("elements nested deeper than %d levels", maxNesting)
	}
	return nil
}

func isRDF(n xml.Name, local string) bool { return n.Space == rdfNS && n.Local == local }

// isSyntaxAttr reports attributes that are not property attributes.
func isSyntaxAttr(a xml.Attr) bool {
	switch {
	case a.Name.Space == xmlNS, a.Name.Space == "xmlns", a.Name.Space == "" && a.Name.Local == "xmlns":
		return true
	case strings.HasPrefix(strings.ToLower(a.Name.Local), "xml") && a.Name.Space == "":
		return true
	case a.Name.Space == rdfNS:
		switch a.Name.Local {
		case "about", "ID", "nodeID", "resource", "datatype", "parseType", "aboutEach", "aboutEachPrefix", "bagID":
			return true
		}
	}
	return false
}

func attr(el xml.StartElement, local string) (string, bool) {
	for _, a := range el.Attr {
		if a.Name.Space == rdfNS && a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

// subjectOf returns the node an element with rdf:about, rdf:ID or
// rdf:nodeID (or none: a fresh blank node) stands for.
func (x *rdfxml) subjectOf(el xml.StartElement, sc scope) (quad.Value, error) {
	if v, ok := attr(el, "about"); ok {
		return x.iri(sc, v)
	}
	if v, ok := attr(el, "ID"); ok {
		return x.iri(sc, "#"+v)
	}
	if v, ok := attr(el, "nodeID"); ok {
		if !isNCName(v) {
			return nil, x.errf("rdf:nodeID %q is not an XML name (NCName)", v)
		}
		return x.blanks.labelled([]byte(v)), nil
	}
	return x.blanks.fresh(), nil
}

// propertyAttrs emits the property attributes of el on subj.
func (x *rdfxml) propertyAttrs(subj quad.Value, el xml.StartElement, sc scope) error {
	for _, a := range el.Attr {
		if isSyntaxAttr(a) {
			continue
		}
		if a.Name.Space == "" {
			return x.errf("attribute %q has no namespace", a.Name.Local)
		}
		pred := quad.IRI(a.Name.Space + a.Name.Local)
		var obj quad.Value = quad.String(a.Value)
		if isRDF(a.Name, "type") {
			iri, err := x.iri(sc, a.Value)
			if err != nil {
				return err
			}
			obj = iri
		} else if sc.lang != "" {
			obj = quad.LangString{Value: quad.String(a.Value), Lang: sc.lang}
		}
		if err := x.emit(quad.Quad{Subject: subj, Predicate: pred, Object: obj}); err != nil {
			return err
		}
	}
	return nil
}

// nodeElement reads a node element whose start tag is el and returns the
// node it describes.
func (x *rdfxml) nodeElement(el xml.StartElement, outer scope) (quad.Value, error) {
	if err := x.enter(); err != nil {
		return nil, err
	}
	defer func() { x.depth-- }()
	sc := outer.with(el, x)
	subj, err := x.subjectOf(el, sc)
	if err != nil {
		return nil, err
	}
	if el.Name.Space == "" {
		return nil, x.errf("element <%s> has no namespace", el.Name.Local)
	}
	if !isRDF(el.Name, "Description") {
		if err := x.emit(quad.Quad{Subject: subj, Predicate: rdfType, Object: quad.IRI(el.Name.Space + el.Name.Local)}); err != nil {
			return nil, err
		}
	}
	if err := x.propertyAttrs(subj, el, sc); err != nil {
		return nil, err
	}
	return subj, x.propertyElements(subj, sc)
}

// propertyElements reads property elements of subj until the enclosing
// end tag.
func (x *rdfxml) propertyElements(subj quad.Value, sc scope) error {
	li := 0
	for {
		tok, err := x.token()
		if err != nil {
			return x.eof(err, "an end tag")
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := x.propertyElement(subj, t, sc, &li); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return x.errf("text %q where a property element was expected", bytes.TrimSpace(t))
			}
		}
	}
}

// propertyElement reads one property element of subj.
func (x *rdfxml) propertyElement(subj quad.Value, el xml.StartElement, outer scope, li *int) error {
	if err := x.enter(); err != nil {
		return err
	}
	defer func() { x.depth-- }()
	sc := outer.with(el, x)
	if el.Name.Space == "" {
		return x.errf("element <%s> has no namespace", el.Name.Local)
	}
	pred := quad.IRI(el.Name.Space + el.Name.Local)
	if isRDF(el.Name, "li") {
		*li++
		pred = quad.IRI(rdfNS + "_" + strconv.Itoa(*li))
	}
	obj, err := x.propertyValue(subj, pred, el, sc)
	if err != nil {
		return err
	}
	if err := x.emit(quad.Quad{Subject: subj, Predicate: pred, Object: obj}); err != nil {
		return err
	}
	if id, ok := attr(el, "ID"); ok {
		return x.reify(sc, id, subj, pred, obj)
	}
	return nil
}

// propertyValue reads the content of a property element and returns its
// object, emitting any triples the content describes.
func (x *rdfxml) propertyValue(subj, pred quad.Value, el xml.StartElement, sc scope) (quad.Value, error) {
	if pt, ok := attr(el, "parseType"); ok {
		if err := x.checkParseType(el, pt); err != nil {
			return nil, err
		}
		switch pt {
		case "Resource":
			obj := x.blanks.fresh()
			return obj, x.propertyElements(obj, sc)
		case "Collection":
			return x.collection(sc)
		default: // "Literal" and unknown values
			s, err := x.innerXML()
			return quad.TypedString{Value: quad.String(s), Type: rdfXMLLiteral}, err
		}
	}
	text, child, err := x.content(sc)
	if err != nil {
		return nil, err
	}
	if child != nil {
		return child, nil
	}
	res, hasRes := attr(el, "resource")
	node, hasNode := attr(el, "nodeID")
	_, hasDT := attr(el, "datatype")
	hasProps := false
	for _, a := range el.Attr {
		hasProps = hasProps || !isSyntaxAttr(a)
	}
	if strings.TrimSpace(text) != "" || hasDT || !(hasRes || hasNode || hasProps) {
		return x.literal(el, sc, text), nil
	}
	var obj quad.Value
	switch {
	case hasRes:
		if obj, err = x.iri(sc, res); err != nil {
			return nil, err
		}
	case hasNode:
		if !isNCName(node) {
			return nil, x.errf("rdf:nodeID %q is not an XML name (NCName)", node)
		}
		obj = x.blanks.labelled([]byte(node))
	default:
		obj = x.blanks.fresh()
	}
	return obj, x.propertyAttrs(obj, el, sc)
}

func (x *rdfxml) literal(el xml.StartElement, sc scope, text string) quad.Value {
	if dt, ok := attr(el, "datatype"); ok {
		iri := quad.IRI(x.resolve(sc, dt))
		if iri == xsdString {
			return quad.String(text)
		}
		return quad.TypedString{Value: quad.String(text), Type: iri}
	}
	if sc.lang != "" {
		return quad.LangString{Value: quad.String(text), Lang: sc.lang}
	}
	return quad.String(text)
}

// content reads a property element's content up to its end tag: text, or
// one node element (returned as child).
func (x *rdfxml) content(sc scope) (text string, child quad.Value, err error) {
	var buf []byte
	for {
		tok, err := x.token()
		if err != nil {
			return "", nil, x.eof(err, "an end tag")
		}
		switch t := tok.(type) {
		case xml.CharData:
			if child != nil && len(bytes.TrimSpace(t)) > 0 {
				return "", nil, x.errf("text after a node element in a property element")
			}
			if len(buf)+len(t) > x.max {
				return "", nil, x.errf("%v (limit %d bytes)", errTokenTooLong, x.max)
			}
			buf = append(buf, t...)
		case xml.StartElement:
			if child != nil || len(bytes.TrimSpace(buf)) > 0 {
				return "", nil, x.errf("a property element holds either text or one node element")
			}
			if child, err = x.nodeElement(t, sc); err != nil {
				return "", nil, err
			}
		case xml.EndElement:
			return string(buf), child, nil
		}
	}
}

// checkParseType rejects the attributes the W3C grammar forbids beside
// rdf:parseType (sections 7.2.18-20 allow only rdf:ID), as rapper does:
// rdf:resource, rdf:nodeID and property attributes, which would otherwise
// be dropped silently. rdf:datatype is ignored there, as by rapper.
func (x *rdfxml) checkParseType(el xml.StartElement, pt string) error {
	for _, name := range []string{"resource", "nodeID"} {
		if _, ok := attr(el, name); ok {
			return x.errf("attribute rdf:%s cannot be used with rdf:parseType=%q", name, pt)
		}
	}
	for _, a := range el.Attr {
		if !isSyntaxAttr(a) {
			return x.errf("property attribute <%s%s> cannot be used with rdf:parseType=%q", a.Name.Space, a.Name.Local, pt)
		}
	}
	return nil
}

// collection reads the node elements of rdf:parseType="Collection" and
// returns the list's head.
func (x *rdfxml) collection(sc scope) (quad.Value, error) {
	var head, cur quad.Value = rdfNil, nil
	for {
		tok, err := x.token()
		if err != nil {
			return nil, x.eof(err, "the end of the collection")
		}
		switch t := tok.(type) {
		case xml.StartElement:
			item, err := x.nodeElement(t, sc)
			if err != nil {
				return nil, err
			}
			next := x.blanks.fresh()
			if cur == nil {
				head = next
			} else if err := x.emit(quad.Quad{Subject: cur, Predicate: rdfRest, Object: next}); err != nil {
				return nil, err
			}
			cur = next
			if err := x.emit(quad.Quad{Subject: cur, Predicate: rdfFirst, Object: item}); err != nil {
				return nil, err
			}
		case xml.EndElement:
			if cur != nil {
				return head, x.emit(quad.Quad{Subject: cur, Predicate: rdfRest, Object: rdfNil})
			}
			return head, nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return nil, x.errf("text in a collection")
			}
		}
	}
}

// innerXML re-serializes the content of a parseType="Literal" element.
func (x *rdfxml) innerXML() (string, error) {
	var sb strings.Builder
	level := 0
	for {
		tok, err := x.token()
		if err != nil {
			return "", x.eof(err, "the end of the XML literal")
		}
		if sb.Len() > x.max {
			return "", x.errf("%v (limit %d bytes)", errTokenTooLong, x.max)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			level++
			sb.WriteString("<" + t.Name.Local)
			if t.Name.Space != "" {
				sb.WriteString(` xmlns="` + escapeAttr(t.Name.Space) + `"`)
			}
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					continue
				}
				sb.WriteString(" " + a.Name.Local + `="` + escapeAttr(a.Value) + `"`)
			}
			sb.WriteString(">")
		case xml.EndElement:
			if level == 0 {
				return sb.String(), nil
			}
			level--
			sb.WriteString("</" + t.Name.Local + ">")
		case xml.CharData:
			xml.EscapeText(&sb, t)
		case xml.Comment:
			sb.WriteString("<!--" + string(t) + "-->")
		}
	}
}

func escapeAttr(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// reify emits the reification of a statement named by rdf:ID.
func (x *rdfxml) reify(sc scope, id string, s, p, o quad.Value) error {
	stmt, err := x.iri(sc, "#"+id)
	if err != nil {
		return err
	}
	for _, q := range []quad.Quad{
		{Subject: stmt, Predicate: rdfType, Object: quad.IRI(rdfNS + "Statement")},
		{Subject: stmt, Predicate: quad.IRI(rdfNS + "subject"), Object: s},
		{Subject: stmt, Predicate: quad.IRI(rdfNS + "predicate"), Object: p},
		{Subject: stmt, Predicate: quad.IRI(rdfNS + "object"), Object: o},
	} {
		if err := x.emit(q); err != nil {
			return err
		}
	}
	return nil
}

// textGuard passes an RDF/XML document through and fails once the text
// between two '<' (a text node, a tag with its attribute values) would pass
// max bytes with the references to declared entities expanded, one level
// as encoding/xml expands them. entities is the decoder's map, filled as
// the DOCTYPE is read; the guard is an io.ByteReader, which encoding/xml
// reads byte by byte, so every byte is counted after the declarations
// before it were read. Bytes of CDATA sections and comments count too: the
// guard errs on the side of refusing.
type textGuard struct {
	br       *bufio.Reader
	entities map[string]string
	max      int
	run      int    // bytes since the last '<', references expanded
	ref      []byte // the name of a reference being read
	inRef    bool
}

// maxRefName bounds the name read after '&': longer is not a reference.
const maxRefName = 256

// ReadByte is what encoding/xml calls.
func (g *textGuard) ReadByte() (byte, error) {
	c, err := g.br.ReadByte()
	if err != nil {
		return c, err
	}
	switch {
	case c == '<':
		g.run, g.inRef = 0, false
		return c, nil
	case g.inRef && c == ';':
		g.inRef = false
		if v, ok := g.entities[string(g.ref)]; ok {
			g.run += len(v) - len(g.ref) - 2 // "&name;" counts as v
		}
	case g.inRef && len(g.ref) < maxRefName:
		g.ref = append(g.ref, c)
	case c == '&':
		g.inRef, g.ref = true, g.ref[:0]
	default:
		g.inRef = false
	}
	g.run++
	if g.run > g.max {
		return 0, fmt.Errorf("%w: over %d bytes of text between two tags, entities expanded", errTokenTooLong, g.max)
	}
	return c, nil
}

// Read makes textGuard an io.Reader; encoding/xml uses ReadByte.
func (g *textGuard) Read(p []byte) (int, error) {
	for i := range p {
		c, err := g.ReadByte()
		if err != nil {
			return i, err
		}
		p[i] = c
	}
	return len(p), nil
}

// isNCName reports a name made of the characters of an XML name without a
// colon, which rdf:nodeID values must be; a leading digit is let through,
// as rapper's own RDF/XML output writes the N-Triples label _:100000 as
// rdf:nodeID="100000".
func isNCName(s string) bool {
	for _, r := range s {
		switch {
		case r == '_' || r == '-' || r == '.' || r == 0xB7 || unicode.IsLetter(r) || unicode.IsDigit(r) ||
			unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r):
		default:
			return false
		}
	}
	return s != ""
}

// expandEntityValue expands, in an entity's declared value, the character
// references and the references to the predefined entities and to those
// declared before it, as an XML processor does when the entity is used
// (encoding/xml inserts the value as written: "&ex;ns#" stayed so, and a
// loop of two entities became the text "&b;"). A reference to an entity
// not declared before (a loop included) is an error; the value is bounded
// by max bytes.
func expandEntityValue(v string, declared map[string]string, max int) (string, error) {
	if !strings.Contains(v, "&") {
		return v, nil
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(v, '&')
		if i < 0 {
			b.WriteString(v)
			break
		}
		b.WriteString(v[:i])
		end := strings.IndexByte(v[i:], ';')
		if end < 0 {
			return "", fmt.Errorf("unterminated reference %q", v[i:])
		}
		name := v[i+1 : i+end]
		v = v[i+end+1:]
		switch r, ok := charRef(name); {
		case ok:
			b.WriteRune(r)
		case predefined[name] != "":
			b.WriteString(predefined[name])
		default:
			d, ok := declared[name]
			if !ok {
				return "", fmt.Errorf("refers to &%s;, which is not declared before it", name)
			}
			b.WriteString(d)
		}
		if b.Len() > max {
			return "", fmt.Errorf("%w: over %d bytes once expanded", errTokenTooLong, max)
		}
	}
	return b.String(), nil
}

// predefined are XML's predefined entities.
var predefined = map[string]string{"lt": "<", "gt": ">", "amp": "&", "apos": "'", "quot": `"`}

// charRef decodes a character reference's name ("#233", "#xE9").
func charRef(name string) (rune, bool) {
	num, ok := strings.CutPrefix(name, "#")
	if !ok {
		return 0, false
	}
	base := 10
	if h, ok := strings.CutPrefix(num, "x"); ok {
		num, base = h, 16
	}
	n, err := strconv.ParseUint(num, base, 32)
	if err != nil || !utf8.ValidRune(rune(n)) || n == 0 {
		return 0, false
	}
	return rune(n), true
}
