package musicbrainz

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path"
	"reflect"
	"strings"

	"github.com/cayleygraph/quad"
	json "github.com/goccy/go-json"
	"github.com/ulikunitz/xz"

	"github.com/grove-kg/grove/ingest/source"
)

// Options configure a Reader.
type Options struct {
	// Options are the shared reader options. SkipInvalid and OnSkip handle
	// bad documents (a bad document is skipped whole); Languages (default
	// en) selects the aliases kept besides those without a locale; Graph
	// scopes the blank nodes of qualified relationships (default
	// "musicbrainz").
	source.Options
	// EntityType is the entity type of plain JSON-lines input ("artist",
	// "release-group", ...). Empty means: the type the file is named after
	// ("artist.jsonl"), or else a guess per document from its fields. Tar
	// input takes the type from each member's name instead.
	EntityType string
	// ForwardOnly writes each relationship only from the document of its
	// first entity (direction "forward"). Set it when loading every dump
	// of an export, where each relationship appears in the documents of
	// both of its entities; by default both are read and the relationship
	// is written in its canonical orientation from either, so a dump read
	// alone keeps all its relationships.
	ForwardOnly bool
	// MaxLineBytes bounds one JSON document (default 256 MiB).
	MaxLineBytes int
	// Logger receives a summary per file; nil means slog.Default().
	Logger *slog.Logger
}

// Reader reads MusicBrainz JSON dumps. It implements source.Reader.
type Reader struct {
	opts Options
}

// New returns a Reader.
func New(opts Options) *Reader {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = 256 << 20
	}
	if len(opts.Languages) == 0 {
		opts.Languages = []string{"en"}
	}
	if opts.Graph == "" {
		opts.Graph = "musicbrainz"
	}
	return &Reader{opts: opts}
}

// xzMagic starts every .xz file.
var xzMagic = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}

// Read reads a dump: a tar archive with mbdump/<entity> members (the
// decompressed <entity>.tar.xz) or plain JSON lines. Bad documents are
// reported as *source.Error with file, line and field through
// Options.Skip; a broken archive and errors from w stop the read.
func (rd *Reader) Read(ctx context.Context, name string, r io.Reader, w source.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(512)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return fmt.Errorf("musicbrainz: %s: %w", name, err)
	}
	if bytes.HasPrefix(head, xzMagic) {
		// A .tar.xz given to the reader directly (input.Open has usually
		// decompressed it already): decode it in process, one level only.
		xr, err := xz.NewReader(br)
		if err != nil {
			return source.Errorf(name, 0, "", "xz: %w", err)
		}
		br = bufio.NewReaderSize(xr, 64<<10)
		if head, err = br.Peek(512); err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
			return fmt.Errorf("musicbrainz: %s: xz: %w", name, err)
		}
	}
	run := newRun(rd.opts, w)
	switch {
	case len(head) >= 262 && string(head[257:262]) == "ustar":
		err = run.tar(ctx, name, br)
	case len(bytes.TrimSpace(head)) == 0 || bytes.TrimLeft(head, " \t\r\n")[0] == '{':
		entity := rd.opts.EntityType
		if entity == "" {
			entity = typeFromName(name)
		}
		err = run.lines(ctx, name, entity, br)
	default:
		return source.Errorf(name, 0, "", "not a MusicBrainz JSON dump: want a tar archive (mbdump/<entity>) or JSON lines")
	}
	if err != nil {
		return err
	}
	logger := rd.opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	logger.Debug("musicbrainz: read dump", "file", name, "documents", run.docs,
		"quads", run.quads, "skipped", run.skipped)
	return nil
}

// tar reads the mbdump/<entity> members of an archive; other members
// (COPYING, TIMESTAMP, ...) are ignored.
func (r *run) tar(ctx context.Context, name string, in io.Reader) error {
	tr := tar.NewReader(in)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return source.Errorf(name, 0, "", "tar: %w", err)
		}
		member := strings.TrimPrefix(hdr.Name, "./")
		dir, entity := path.Split(member)
		if !hdr.FileInfo().Mode().IsRegular() || dir != "mbdump/" || !entityTypes[entity] {
			continue
		}
		if err := r.lines(ctx, name+"/"+member, entity, tr); err != nil {
			return err
		}
	}
}

// lines reads one JSON document per line.
func (r *run) lines(ctx context.Context, file, entity string, in io.Reader) error {
	if entity != "" && !entityTypes[entity] {
		return source.Errorf(file, 0, "", "unknown entity type %q", entity)
	}
	br, ok := in.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(in, 64<<10)
	}
	var long []byte
	for lineNo := int64(1); ; lineNo++ {
		line, err := readLine(br, &long, r.opts.MaxLineBytes)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return source.Errorf(file, lineNo, "", "%w", err)
		}
		if lineNo%1024 == 1 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("musicbrainz: %s: %w", file, err)
			}
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := r.document(file, lineNo, entity, line); err != nil {
			return err
		}
	}
}

// readLine returns the next line without its end of line; long lines are
// assembled in *long. It returns io.EOF only when no bytes are left.
func readLine(br *bufio.Reader, long *[]byte, max int) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		*long = append((*long)[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(*long) > max {
				return nil, fmt.Errorf("line longer than %d bytes", max)
			}
			line, err = br.ReadSlice('\n')
			*long = append(*long, line...)
		}
		line = *long
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if err == io.EOF && len(line) == 0 {
		return nil, io.EOF
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// document decodes and writes one document, or skips it if it is bad.
func (r *run) document(file string, lineNo int64, entity string, line []byte) error {
	r.docs++
	typ := entity
	if typ == "" {
		guessed, err := guessType(line)
		if err != nil {
			return r.skip(source.Errorf(file, lineNo, "", "%w", err))
		}
		typ = guessed
	}
	var rec record
	if err := json.Unmarshal(line, &rec); err != nil {
		field, reason := jsonError(err)
		return r.skip(source.Errorf(file, lineNo, field, "%s", reason))
	}
	if ferr := r.build(typ, &rec); ferr != nil {
		r.discard()
		return r.skip(source.Errorf(file, lineNo, ferr.field, "%w", ferr.err))
	}
	if err := r.commit(); err != nil {
		return writeErr(file, lineNo, typ, rec.ID, err)
	}
	return nil
}

// writeErr positions the writer's error (a backend check refusing a
// value, such as a NUL for PostgreSQL) at the document's line and entity:
// "artist.jsonl:12: artist <mbid>: reason", as the RDF readers give
// file:line.
func writeErr(file string, lineNo int64, typ, id string, err error) error {
	if id == "" {
		return fmt.Errorf("%s:%d: %s: %w", file, lineNo, typ, err)
	}
	return fmt.Errorf("%s:%d: %s %s: %w", file, lineNo, typ, id, err)
}

// jsonError splits a decoding error into the field it names, in the
// reader's path style ("relations[0].attributes"), and a reason in JSON's
// terms ("want an array, got an object").
func jsonError(err error) (field, reason string) {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fieldPath(te.Field), fmt.Sprintf("want %s, got %s", jsonWant(te.Type), jsonGot(te.Value))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "", fmt.Sprintf("invalid JSON at column %d: %v", se.Offset, se)
	}
	return "", err.Error()
}

// dumpSuffixes are the extensions stripped from a file name before it is
// taken as an entity type.
var dumpSuffixes = []string{".xz", ".gz", ".bz2", ".zst", ".tar", ".jsonl", ".ndjson", ".json", ".txt"}

// typeFromName returns the entity type a file is named after, as
// MusicBrainz names its dumps ("artist.tar.xz", "mbdump/release-group"):
// "artist.jsonl", "release_group.json.gz" or "/data/recording" name one;
// anything else gives "".
func typeFromName(name string) string {
	base := name
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	base = strings.ToLower(base)
	for trimmed := true; trimmed; {
		trimmed = false
		for _, s := range dumpSuffixes {
			if b, ok := strings.CutSuffix(base, s); ok && b != "" {
				base, trimmed = b, true
			}
		}
	}
	if t := urlType(base); entityTypes[t] {
		return t
	}
	return ""
}

// artistTypes are the values of an artist's "type" that no other entity
// type uses.
var artistTypes = map[string]bool{"Person": true, "Group": true, "Orchestra": true, "Choir": true, "Character": true}

// fieldPath turns the decoder's dotted path ("relations.0.attributes") into
// the reader's ("relations[0].attributes").
func fieldPath(dotted string) string {
	if dotted == "" {
		return ""
	}
	var b strings.Builder
	for i, part := range strings.Split(dotted, ".") {
		switch {
		case part != "" && strings.Trim(part, "0123456789") == "" && i > 0:
			b.WriteString("[" + part + "]")
		case i > 0:
			b.WriteString("." + part)
		default:
			b.WriteString(part)
		}
	}
	return b.String()
}

// jsonNumber is the type of numbers decoded by their lexical form.
var jsonNumber = reflect.TypeOf(json.Number(""))

// jsonWant names the JSON value a Go type decodes, with its article.
func jsonWant(t reflect.Type) string {
	if t == nil {
		return "another JSON value"
	}
	if t == jsonNumber {
		return "a number"
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return jsonWant(t.Elem())
	}
	return "another JSON value"
}

// jsonGot names the JSON value the decoder found ("object", "number 1.5",
// "string \"x\"") with its article.
func jsonGot(v string) string {
	kind, rest, _ := strings.Cut(v, " ")
	var s string
	switch kind {
	case "object", "array":
		s = "an " + kind
	case "number", "string":
		s = "a " + kind
	case "bool":
		s = "a boolean"
	default:
		return v
	}
	if rest != "" {
		s += " " + rest
	}
	return s
}

// guessType names the entity type of a document from fields only that type
// has. Instruments and series differ only by "description", and genres by
// having neither; a file named after its entity type ("artist.jsonl") or
// Options.EntityType avoids the guess.
func guessType(line []byte) (string, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(line, &keys); err != nil {
		_, reason := jsonError(err)
		return "", errors.New(reason)
	}
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := keys[n]; ok {
				return true
			}
		}
		return false
	}
	switch {
	case !has("id"):
		return "", errors.New(`cannot guess the entity type: no "id"; name the file after its entity type (artist.jsonl, release-group.jsonl, ...) as MusicBrainz names its dumps`)
	case has("release-group", "media", "barcode", "packaging", "label-info"):
		return "release", nil
	case has("primary-type", "secondary-types"):
		return "release-group", nil
	case has("isrcs", "video", "length"):
		return "recording", nil
	case has("iswcs", "languages"):
		return "work", nil
	case has("label-code"):
		return "label", nil
	case has("coordinates", "address"):
		return "place", nil
	case has("iso-3166-1-codes", "iso-3166-2-codes", "iso-3166-3-codes"):
		return "area", nil
	case has("setlist", "cancelled", "time"):
		return "event", nil
	case has("gender", "gender-id", "ipis", "isnis", "begin-area", "end-area"):
		return "artist", nil
	case artistTypes[stringField(keys["type"])]:
		return "artist", nil
	case stringField(keys["type"]) == "Other" && has("sort-name"):
		// Series, instruments and genres have no sort name.
		return "artist", nil
	case has("description"):
		return "instrument", nil
	case has("type"):
		return "series", nil
	}
	return "genre", nil
}

// stringField is the JSON string v, or "" when v is anything else.
func stringField(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// run is the state of one Read.
type run struct {
	opts Options
	w    source.Writer
	// said records predicates whose metadata was written.
	said map[string]bool
	// labelled remembers the label and disambiguation recently written per
	// entity, to describe an entity once rather than once per mention.
	labelled *boundedMap
	// halfSeen holds relationships between two entities of the same type
	// read from one end only; the other end's copy is then not written.
	halfSeen map[[16]byte]struct{}

	buf     []quad.Quad
	pending pending

	docs, quads, skipped int64
}

// pending lists the state changes of the document being built, applied
// only once its quads are written. The slices keep their order; the sets
// answer "already pending?" in constant time, as one document may hold tens
// of thousands of relationships.
type pending struct {
	said        []string
	saidSet     map[string]struct{}
	labelled    [][2]string // id, label and disambiguation
	labelledSet map[[2]string]struct{}
	seen        [][16]byte // relationship keys added to halfSeen
	unseen      [][16]byte // relationship keys removed from halfSeen
}

// say adds the metadata key k and reports whether it was not pending yet.
func (p *pending) say(k string) bool {
	if _, ok := p.saidSet[k]; ok {
		return false
	}
	if p.saidSet == nil {
		p.saidSet = map[string]struct{}{}
	}
	p.saidSet[k] = struct{}{}
	p.said = append(p.said, k)
	return true
}

// label adds the description v (label and disambiguation) of the entity id
// and reports whether it was not pending yet.
func (p *pending) label(id, v string) bool {
	kv := [2]string{id, v}
	if _, ok := p.labelledSet[kv]; ok {
		return false
	}
	if p.labelledSet == nil {
		p.labelledSet = map[[2]string]struct{}{}
	}
	p.labelledSet[kv] = struct{}{}
	p.labelled = append(p.labelled, kv)
	return true
}

// reset empties p, keeping its storage for the next document unless a
// large document grew it (clearing a map costs its capacity).
func (p *pending) reset() {
	p.said = p.said[:0]
	p.labelled = p.labelled[:0]
	p.seen = p.seen[:0]
	p.unseen = p.unseen[:0]
	if len(p.saidSet) > 1024 || len(p.labelledSet) > 1024 {
		p.saidSet, p.labelledSet = nil, nil
	}
	clear(p.saidSet)
	clear(p.labelledSet)
}

func newRun(opts Options, w source.Writer) *run {
	return &run{
		opts:     opts,
		w:        w,
		said:     map[string]bool{},
		labelled: newBoundedMap(1 << 16),
		halfSeen: map[[16]byte]struct{}{},
	}
}

// skip reports a bad document; it returns non-nil when the read must stop.
func (r *run) skip(err *source.Error) error {
	r.skipped++
	return r.opts.Skip(err)
}

// discard drops the quads and state changes of a bad document.
func (r *run) discard() {
	r.buf = r.buf[:0]
	r.pending.reset()
}

// commit writes the document's quads and applies its state changes; the
// caller positions its error.
func (r *run) commit() error {
	for _, q := range r.buf {
		if err := r.w.WriteQuad(q); err != nil {
			return err
		}
	}
	r.quads += int64(len(r.buf))
	for _, k := range r.pending.said {
		r.said[k] = true
	}
	for _, kv := range r.pending.labelled {
		r.labelled.put(kv[0], kv[1])
	}
	for _, k := range r.pending.seen {
		r.halfSeen[k] = struct{}{}
	}
	for _, k := range r.pending.unseen {
		delete(r.halfSeen, k)
	}
	r.discard()
	return nil
}

// boundedMap is a map that forgets everything once it holds max entries:
// a cheap way to drop most repeated quads without unbounded memory.
type boundedMap struct {
	max int
	m   map[string]string
}

func newBoundedMap(max int) *boundedMap {
	return &boundedMap{max: max, m: map[string]string{}}
}

func (b *boundedMap) get(k string) (string, bool) {
	v, ok := b.m[k]
	return v, ok
}

func (b *boundedMap) put(k, v string) {
	if len(b.m) >= b.max {
		clear(b.m)
	}
	b.m[k] = v
}
