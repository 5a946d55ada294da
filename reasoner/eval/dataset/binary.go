package dataset

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
)

// sniffLen is how much of a file checkText looks at.
const sniffLen = 4096

// magics are the signatures of compressed and archive files.
var magics = []struct {
	prefix, what, hint string
}{
	{"\x1f\x8b", "gzip-compressed", "gunzip it first"},
	{"BZh", "bzip2-compressed", "bunzip2 it first"},
	{"\xfd7zXZ\x00", "xz-compressed", "unxz it first"},
	{"\x28\xb5\x2f\xfd", "zstd-compressed", "unzstd it first"},
	{"PK\x03\x04", "a zip archive", "extract the dataset file from it"},
	{"7z\xbc\xaf\x27\x1c", "a 7-zip archive", "extract the dataset file from it"},
}

// checkText rejects files that are not text: compressed files, archives
// and other binary data, saying what the file appears to be, instead of
// letting a reader report a nonsensical CSV header or JSON error.
func checkText(name string, data []byte) error {
	for _, m := range magics {
		if bytes.HasPrefix(data, []byte(m.prefix)) {
			what, hint := m.what, m.hint
			if m.prefix == "\x1f\x8b" {
				what, hint = gzipContent(data, what, hint)
			}
			return fmt.Errorf("load dataset %s: the file is %s, not a question dataset (JSON, JSON Lines or CSV): %s",
				name, what, hint)
		}
	}
	// Text never holds NUL bytes (UTF-16 text does: it is not supported
	// either); other encodings are left to the readers.
	if bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 {
		return fmt.Errorf("load dataset %s: the file is binary data (it holds NUL bytes), not a question dataset "+
			"(JSON, JSON Lines or CSV as UTF-8 text)", name)
	}
	return nil
}

// gzipContent describes what a gzip stream holds, from its first bytes,
// refining the description and the hint: an RDF dump is for grove ingest.
func gzipContent(data []byte, what, hint string) (string, string) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return what, hint
	}
	head, _ := io.ReadAll(io.LimitReader(zr, 512))
	t := bytes.TrimSpace(head)
	switch {
	case len(t) == 0:
	case t[0] == '<' || bytes.HasPrefix(t, []byte("_:")) || bytes.HasPrefix(t, []byte("@prefix")):
		return what + " RDF (N-Triples, N-Quads or Turtle)", "it looks like a knowledge-graph dump, which " +
			"`grove ingest` loads; give --dataset a question file"
	case t[0] == '[' || t[0] == '{':
		return what + " JSON", hint
	}
	return what, hint
}
