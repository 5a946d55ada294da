package input

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/rdf"
)

// Format is a dump format.
type Format int

// Formats. FormatAuto asks for detection with Sniff.
const (
	FormatAuto Format = iota
	FormatNTriples
	FormatNQuads
	FormatWikidataJSON
	FormatWikidataTruthy
	FormatFreebase
	FormatGRBench
	FormatMusicBrainz
	FormatTurtle
	FormatRDFXML
)

var formatNames = [...]string{
	FormatAuto:           "auto",
	FormatNTriples:       "ntriples",
	FormatNQuads:         "nquads",
	FormatWikidataJSON:   "wikidata-json",
	FormatWikidataTruthy: "wikidata-truthy",
	FormatFreebase:       "freebase",
	FormatGRBench:        "grbench",
	FormatMusicBrainz:    "musicbrainz",
	FormatTurtle:         "turtle",
	FormatRDFXML:         "rdfxml",
}

// String returns the format's --format name.
func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// FormatNames lists the names ParseFormat accepts (without aliases).
func FormatNames() []string { return append([]string(nil), formatNames[:]...) }

// ErrUnknownFormat is returned (wrapped) by Sniff and ParseFormat.
var ErrUnknownFormat = errors.New("unknown input format")

// ParseFormat parses a --format value: a name from FormatNames or one of the
// aliases nt, nq, n-triples, n-quads, wikidata, json, truthy, fb, mb, ttl,
// rdf, rdf/xml, xml, owl;
// "" means auto.
func ParseFormat(s string) (Format, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for f, n := range formatNames {
		if name == n {
			return Format(f), nil
		}
	}
	switch name {
	case "":
		return FormatAuto, nil
	case "nt", "n-triples":
		return FormatNTriples, nil
	case "nq", "n-quads":
		return FormatNQuads, nil
	case "wikidata", "json":
		return FormatWikidataJSON, nil
	case "truthy", "wikidata-nt":
		return FormatWikidataTruthy, nil
	case "fb":
		return FormatFreebase, nil
	case "mb":
		return FormatMusicBrainz, nil
	case "ttl":
		return FormatTurtle, nil
	case "rdf", "rdf/xml", "rdf-xml", "xml", "owl":
		return FormatRDFXML, nil
	}
	return FormatAuto, fmt.Errorf("%w %q: want one of %s", ErrUnknownFormat, s, strings.Join(formatNames[:], ", "))
}

// Sniff names the format of the decompressed stream r by peeking at its
// buffer (r.Size() bytes; use a larger bufio.Reader to look further). It
// consumes nothing. The rules, in order:
//
//   - a tar stream (ustar header) whose entries are under mbdump/ (or are
//     MusicBrainz dump metadata such as TIMESTAMP): FormatMusicBrainz;
//   - '[' then '{' with "type":"item"/"property"/"lexeme" and an entity
//     id: FormatWikidataJSON (the array dump);
//   - '{' starting with a key "<type>_nodes" whose value is an object:
//     FormatGRBench; a JSON line that is a Wikidata entity:
//     FormatWikidataJSON; a JSON line with MusicBrainz WS/2 fields
//     ("sort-name", "relations", "life-span", "type-id",
//     "disambiguation"): FormatMusicBrainz;
//   - "<?xml", "<!" (comment, DOCTYPE) or an XML start tag followed by an
//     xmlns declaration in the window: FormatRDFXML;
//   - after any leading '#' comment lines, '@prefix'/'@base', the SPARQL
//     keywords PREFIX/BASE, a prefixed name ("ex:alice ...") or '[' / '('
//     opening a statement: FormatTurtle;
//   - '<' or '_': N-Triples/N-Quads. The complete lines in the window
//     are parsed: a subject or predicate under rdf.freebase.com makes it
//     FormatFreebase, a subject under www.wikidata.org/entity/ or
//     wikiba.se/ontology FormatWikidataTruthy, a fourth term FormatNQuads,
//     otherwise FormatNTriples; but lines that only Turtle allows (a
//     statement continued with ';' or ',', or not a complete N-Triples
//     statement while no line is one) make it FormatTurtle.
//
// SniffName also looks at the file name.
func Sniff(r *bufio.Reader) (Format, error) {
	window, err := r.Peek(r.Size())
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return FormatAuto, fmt.Errorf("sniff: %w", err)
	}
	return classify(window, err == io.EOF)
}

var (
	grbenchStart = regexp.MustCompile(`^\{\s*"[^"\\]*_nodes"\s*:\s*\{`)
	wikidataType = regexp.MustCompile(`"type"\s*:\s*"(item|property|lexeme)"`)
	wikidataID   = regexp.MustCompile(`"id"\s*:\s*"[QPL][0-9]+"`)
	mbField      = regexp.MustCompile(`"(sort-name|relations|life-span|type-id|disambiguation)"\s*:`)
)

// classify implements Sniff on a window of the stream's first bytes; eof
// says the window holds the whole stream.
func classify(window []byte, eof bool) (Format, error) {
	if isTar(window) {
		return classifyTar(window)
	}
	b := bytes.TrimLeft(bytes.TrimPrefix(window, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(b) == 0 {
		return FormatAuto, fmt.Errorf("%w: empty input", ErrUnknownFormat)
	}
	switch b[0] {
	case '[':
		if eof && isEmptyArray(b) {
			// "[]" alone is an empty Wikidata dump, not a Turtle blank
			// node waiting for its predicate.
			return FormatWikidataJSON, nil
		}
		if looksTurtle(b) {
			return FormatTurtle, nil
		}
		return classifyArray(b)
	case '{':
		return classifyObject(b)
	case '<':
		if looksXML(b) {
			return FormatRDFXML, nil
		}
	}
	if looksTurtle(b) {
		return FormatTurtle, nil
	}
	switch b[0] {
	case '<', '_', '#':
		return classifyRDF(b, eof), nil
	}
	return FormatAuto, fmt.Errorf("%w: starts with %q", ErrUnknownFormat, firstLine(b))
}

// isEmptyArray reports a JSON array with nothing in it, "[ ]".
func isEmptyArray(b []byte) bool {
	inner, ok := bytes.CutPrefix(bytes.TrimSpace(b), []byte("["))
	return ok && string(bytes.TrimSpace(inner)) == "]"
}

// xmlElement matches an XML start tag (not an IRI such as <http://...>).
var xmlElement = regexp.MustCompile(`^<[A-Za-z_][\w.-]*(:[A-Za-z_][\w.-]*)?[\s>/]`)

// looksXML: an XML declaration, comment or DOCTYPE, or a start tag with a
// namespace declaration in the window.
func looksXML(b []byte) bool {
	return bytes.HasPrefix(b, []byte("<?xml")) || bytes.HasPrefix(b, []byte("<!")) ||
		(xmlElement.Match(b) && bytes.Contains(b, []byte("xmlns")))
}

// turtleStart matches the first statement of a Turtle document that is not
// N-Triples: a directive, a prefixed-name subject, or a blank node property
// list or collection as subject.
var turtleStart = regexp.MustCompile(`^(?i:@prefix|@base|prefix\s|base\s)|^[A-Za-z][\w.-]*:[^\s/]*\s|^:[^\s]*\s|^\[\s*(\]|<|[A-Za-z]*:)|^\(\s`)

// looksTurtle skips comment lines and white space and matches turtleStart.
func looksTurtle(b []byte) bool {
	for len(b) > 0 && b[0] == '#' {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return false
		}
		b = bytes.TrimLeft(b[i+1:], " \t\r\n")
	}
	return turtleStart.Match(b)
}

// SniffName is Sniff with a hint from the file name (compression
// extensions removed): a ".ttl" or ".turtle" file that Sniff takes for
// N-Triples is read as Turtle (which includes N-Triples), and a ".rdf",
// ".owl" or ".rdfxml" file that Sniff cannot name as RDF/XML.
func SniffName(r *bufio.Reader, name string) (Format, error) {
	f, err := Sniff(r)
	switch formatExtension(name) {
	case FormatTurtle:
		if err == nil && f == FormatNTriples {
			return FormatTurtle, nil
		}
	case FormatRDFXML:
		if err != nil {
			return FormatRDFXML, nil
		}
	}
	return f, err
}

// formatExtension names the format a file name's extension suggests.
func formatExtension(name string) Format {
	name = strings.ToLower(name)
	for byExtension(name) != None {
		name = strings.TrimSuffix(name, filepath.Ext(name))
	}
	switch filepath.Ext(name) {
	case ".ttl", ".turtle":
		return FormatTurtle
	case ".rdf", ".owl", ".rdfxml":
		return FormatRDFXML
	}
	return FormatAuto
}

func classifyArray(b []byte) (Format, error) {
	rest := bytes.TrimLeft(b[1:], " \t\r\n")
	if len(rest) > 0 && rest[0] == '{' && isWikidataEntity(rest) {
		return FormatWikidataJSON, nil
	}
	return FormatAuto, fmt.Errorf("%w: a JSON array that is not a Wikidata entity dump", ErrUnknownFormat)
}

func classifyObject(b []byte) (Format, error) {
	if grbenchStart.Match(b) {
		return FormatGRBench, nil
	}
	line := b
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		line = b[:i]
	}
	if isWikidataEntity(line) {
		return FormatWikidataJSON, nil
	}
	if mbField.Match(line) {
		return FormatMusicBrainz, nil
	}
	return FormatAuto, fmt.Errorf("%w: a JSON object that is neither GRBench (\"<type>_nodes\"), a Wikidata entity nor a MusicBrainz record", ErrUnknownFormat)
}

func isWikidataEntity(b []byte) bool {
	return wikidataType.Match(b) && wikidataID.Match(b)
}

// classifyRDF parses the complete lines of the window; when none parses
// (a first line longer than the window) it looks at the first subject's
// namespace.
func classifyRDF(b []byte, eof bool) Format {
	whole := b
	if !eof {
		b = b[:bytes.LastIndexByte(b, '\n')+1] // complete lines only
	}
	p := rdf.NewParser("", false)
	format, parsed, failed := FormatNTriples, false, false
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		q, ok, err := p.Parse(line)
		if err != nil {
			if turtleOnly(line) {
				return FormatTurtle
			}
			failed = true
			continue
		}
		if !ok {
			continue
		}
		parsed = true
		if f := dialectOf(iriOf(q.Subject), iriOf(q.Predicate)); f != FormatAuto {
			return f
		}
		if q.Label != nil {
			format = FormatNQuads
		}
	}
	if !parsed && len(whole) > 1 && whole[0] == '<' {
		if end := bytes.IndexByte(whole, '>'); end > 0 {
			if f := dialectOf(string(whole[1:end]), ""); f != FormatAuto {
				return f
			}
		}
	}
	if !parsed && failed {
		return FormatTurtle
	}
	return format
}

// turtleOnly reports a line that is not N-Triples but typical Turtle: a
// statement continued with ';' or ','.
func turtleOnly(line []byte) bool {
	line = bytes.TrimRight(line, " \t\r")
	return len(line) > 0 && (line[len(line)-1] == ';' || line[len(line)-1] == ',')
}

// dialectOf names the RDF dialect a subject and predicate belong to, or
// FormatAuto.
func dialectOf(subject, predicate string) Format {
	switch {
	case strings.HasPrefix(subject, rdf.FreebaseNS) || strings.HasPrefix(predicate, rdf.FreebaseNS) ||
		strings.HasPrefix(predicate, rdf.FreebaseKeyNS):
		return FormatFreebase
	case strings.HasPrefix(subject, rdf.WikidataEntityNS) || strings.HasPrefix(subject, rdf.WikibaseNS):
		return FormatWikidataTruthy
	}
	return FormatAuto
}

func iriOf(v quad.Value) string {
	if iri, ok := v.(quad.IRI); ok {
		return string(iri)
	}
	return ""
}

func isTar(b []byte) bool {
	return len(b) >= 512 && string(b[257:262]) == "ustar"
}

// classifyTar reads the tar headers that fit in the window.
func classifyTar(b []byte) (Format, error) {
	tr := tar.NewReader(bytes.NewReader(b))
	var names []string
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		name := strings.TrimPrefix(h.Name, "./")
		if strings.HasPrefix(name, "mbdump/") || isMBMetadata(name) {
			return FormatMusicBrainz, nil
		}
		names = append(names, name)
	}
	return FormatAuto, fmt.Errorf("%w: a tar archive without mbdump/ entries (first entries: %s)", ErrUnknownFormat, strings.Join(names, ", "))
}

// isMBMetadata names the files that precede mbdump/ in MusicBrainz dumps.
func isMBMetadata(name string) bool {
	switch name {
	case "COPYING", "README", "TIMESTAMP", "SCHEMA_SEQUENCE", "REPLICATION_SEQUENCE", "JSON_DUMPS_SCHEMA_NUMBER":
		return true
	}
	return false
}

// firstLine returns b up to its first newline, at most 80 bytes, for error
// messages.
func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	if len(b) > 80 {
		b = b[:80]
	}
	return b
}
