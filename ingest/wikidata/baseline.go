package wikidata

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	json "github.com/goccy/go-json"
)

// PlainEntity is a full typed decoding of an entity with goccy/go-json:
// the baseline the reader's speed is measured against (BenchmarkRead,
// BenchmarkDumpLike, grove bench wikidata). It decodes what the reader
// uses (every language, though) and nothing else.
type PlainEntity struct {
	Type         string                 `json:"type"`
	ID           string                 `json:"id"`
	Labels       map[string]plainText   `json:"labels"`
	Descriptions map[string]plainText   `json:"descriptions"`
	Aliases      map[string][]plainText `json:"aliases"`
	Claims       map[string][]struct {
		ID       string `json:"id"`
		Rank     string `json:"rank"`
		Mainsnak struct {
			Snaktype  string `json:"snaktype"`
			Property  string `json:"property"`
			Datatype  string `json:"datatype"`
			Datavalue struct {
				Type  string          `json:"type"`
				Value json.RawMessage `json:"value"`
			} `json:"datavalue"`
		} `json:"mainsnak"`
		Qualifiers map[string][]struct {
			Property  string `json:"property"`
			Datavalue struct {
				Type  string          `json:"type"`
				Value json.RawMessage `json:"value"`
			} `json:"datavalue"`
		} `json:"qualifiers"`
	} `json:"claims"`
	Sitelinks map[string]struct {
		Site  string `json:"site"`
		Title string `json:"title"`
	} `json:"sitelinks"`
}

type plainText struct {
	Language string `json:"language"`
	Value    string `json:"value"`
}

// DecodePlain reads a dump on one goroutine and decodes every entity line
// into a PlainEntity, returning the number of entities and bytes read. It
// is the baseline of grove bench wikidata; lines over 64 MiB are an error.
func DecodePlain(ctx context.Context, r io.Reader) (entities, bytes int64, err error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var arena []byte
	for lineNo := int64(1); ; lineNo++ {
		arena = arena[:0]
		n, tooLong, rerr := readLine(br, &arena, DefaultMaxLineBytes)
		bytes += int64(n)
		if tooLong {
			return entities, bytes, fmt.Errorf("line %d: over %d bytes", lineNo, DefaultMaxLineBytes)
		}
		if line := entityBytes(arena); line != nil {
			var e PlainEntity
			if err := json.Unmarshal(line, &e); err != nil {
				return entities, bytes, fmt.Errorf("line %d: %w", lineNo, err)
			}
			entities++
		}
		if errors.Is(rerr, io.EOF) {
			return entities, bytes, nil
		}
		if rerr != nil {
			return entities, bytes, rerr
		}
		if lineNo%4096 == 0 && ctx.Err() != nil {
			return entities, bytes, ctx.Err()
		}
	}
}
