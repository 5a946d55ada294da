package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Load reads a dataset file. With FormatAuto the format is detected from the
// content (see Detect). Errors for bad records are *Error values
// naming the file, line and field.
func Load(path string, format Format) ([]Question, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load dataset: %w", err)
	}
	return parse(path, data, format)
}

// parse decodes data (the content of file name) in the given format.
func parse(name string, data []byte, format Format) ([]Question, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := checkText(name, data); err != nil {
		return nil, err
	}
	if format == FormatAuto {
		f, err := detect(name, data)
		if err != nil {
			return nil, err
		}
		format = f
	}
	read, ok := readers[format]
	if !ok {
		return nil, fmt.Errorf("load dataset %s: unknown format %q", name, format)
	}
	return read(name, data)
}

// readers maps each format to its reader.
var readers = map[Format]func(name string, data []byte) ([]Question, error){
	FormatQALD10:       readQALD10,
	FormatQALD10En:     readQALD10En,
	Format2Wiki:        read2Wiki,
	FormatMusicBrainz:  readMusicBrainzCSV,
	FormatGRBench:      readGRBench,
	FormatCWQ:          readCWQ,
	FormatWebQSP:       readWebQSP,
	FormatGrailQA:      readGrailQA,
	FormatSimpleQA:     readSimpleQA,
	FormatWebQuestions: readWebQuestions,
	FormatJSONL:        readJSONL,
}

// record is one element of a JSON array (or one JSON Lines line) with the
// 1-based line it starts on and its 0-based position (messages name it
// 1-based, "record 4", as a reader counts).
type record struct {
	raw   json.RawMessage
	line  int64
	index int
}

// arrayRecords returns the elements of the top-level JSON array of data
// (key == "") or of the array stored under key in the top-level object.
func arrayRecords(name string, data []byte, key string) ([]record, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if key != "" {
		if err := seekKey(name, data, dec, key); err != nil {
			return nil, err
		}
	}
	if err := expectDelim(name, data, dec, '['); err != nil {
		return nil, err
	}
	var recs []record
	lines := lineCounter{data: data, line: 1}
	for dec.More() {
		start := skipSeparators(data, dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxError(name, data, start, err)
		}
		recs = append(recs, record{raw: raw, line: lines.at(start), index: len(recs)})
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntaxError(name, data, dec.InputOffset(), err)
	}
	return recs, nil
}

// seekKey advances dec, positioned before a top-level object, to the value
// of key.
func seekKey(name string, data []byte, dec *json.Decoder, key string) error {
	if err := expectDelim(name, data, dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return syntaxError(name, data, off, err)
		}
		if tok == key {
			return nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return syntaxError(name, data, dec.InputOffset(), err)
		}
	}
	return Errorf(name, 1, key, "missing: the top-level object has no %q array", key)
}

func expectDelim(name string, data []byte, dec *json.Decoder, want json.Delim) error {
	off := skipSeparators(data, dec.InputOffset())
	tok, err := dec.Token()
	if err != nil {
		return syntaxError(name, data, off, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return Errorf(name, lineAt(data, off), "", "expected %q, found %v", string(want), tok)
	}
	return nil
}

// syntaxError positions a JSON decoding error at its offset in data.
func syntaxError(name string, data []byte, off int64, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	return Errorf(name, lineAt(data, off), "", "invalid JSON: %v", err)
}

// skipSeparators returns the offset of the first byte at or after off that is
// neither white space nor a comma.
func skipSeparators(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',':
			off++
		default:
			return off
		}
	}
	return off
}

// lineAt returns the 1-based line of byte offset off.
func lineAt(data []byte, off int64) int64 {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return int64(bytes.Count(data[:off], []byte{'\n'})) + 1
}

// lineCounter computes line numbers for increasing offsets in one pass.
type lineCounter struct {
	data []byte
	off  int64
	line int64
}

// at returns the 1-based line of off; offsets must not decrease.
func (c *lineCounter) at(off int64) int64 {
	off = min(off, int64(len(c.data)))
	if off > c.off {
		c.line += int64(bytes.Count(c.data[c.off:off], []byte{'\n'}))
		c.off = off
	}
	return c.line
}

// decodeRecord unmarshals r into v, positioning errors at r's line and
// naming the field when encoding/json reports one.
func decodeRecord(name string, r record, v any) error {
	if err := json.Unmarshal(r.raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Errorf(name, r.line, te.Field, "got JSON %s, want %s", te.Value, te.Type)
		}
		return Errorf(name, r.line, "", "record %d: %v", r.index+1, err)
	}
	return nil
}

// text renders a JSON scalar as a string: strings as is, numbers in their
// JSON spelling, booleans as "true"/"false"; null and absent give "".
func text(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case '{', '[':
		return "", fmt.Errorf("got a JSON %s, want a string", kindOf(raw))
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	return string(raw), nil
}

// texts renders a JSON scalar or array of scalars as strings.
func texts(raw json.RawMessage) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] != '[' {
		s, err := text(raw)
		if err != nil || s == "" {
			return nil, err
		}
		return []string{s}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		s, err := text(it)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func kindOf(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '{' {
		return "object"
	}
	return "array"
}

// pair is one member of a JSON object, in file order.
type pair struct {
	Key   string
	Value json.RawMessage
}

// orderedObject decodes a JSON object keeping its members' order (Go maps
// lose it, and answer order matters for reports).
func orderedObject(raw json.RawMessage) ([]pair, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("got %v, want a JSON object", tok)
	}
	var out []pair
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, pair{Key: k.(string), Value: v})
	}
	return out, nil
}

// labelMap decodes an {id: label} object; labels may be null.
func labelMap(raw json.RawMessage) (map[string]string, error) {
	pairs, err := orderedObject(raw)
	if err != nil || len(pairs) == 0 {
		return nil, err
	}
	m := make(map[string]string, len(pairs))
	for _, p := range pairs {
		s, err := text(p.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Key, err)
		}
		m[p.Key] = s
	}
	return m, nil
}

// mergeLabels copies src into dst (allocating it on demand).
func mergeLabels(dst, src map[string]string) map[string]string {
	for k, v := range src {
		if dst == nil {
			dst = make(map[string]string, len(src))
		}
		dst[k] = v
	}
	return dst
}

// requireQuestion checks that the question text is present.
// decodeQuestion decodes record r into a new T and checks that its
// "question" field, read by question, is not empty.
func decodeQuestion[T any](name string, r record, question func(*T) string) (*T, error) {
	in := new(T)
	if err := decodeRecord(name, r, in); err != nil {
		return nil, err
	}
	if err := requireQuestion(name, r, "question", question(in)); err != nil {
		return nil, err
	}
	return in, nil
}

func requireQuestion(name string, r record, field, q string) error {
	if strings.TrimSpace(q) == "" {
		return Errorf(name, r.line, field, "missing or empty question (record %d)", r.index+1)
	}
	return nil
}

// fieldError positions an error about one field of record r; the record's
// index tells records apart in a file holding one long line.
func fieldError(name string, r record, field string, err error) error {
	return Errorf(name, r.line, field, "%v (record %d)", err, r.index+1)
}
