package dataset

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MusicBrainz-x-Wikidata (Tree-of-Traversals): a CSV file with a header row
// holding at least the columns Question and Answer, usually Type too (matched
// case-insensitively). Rows with an empty question are skipped, as the
// paper's script skips pandas NaN rows. ID is the row's 0-based position
// among the data rows (the pandas index the paper uses); other columns go to
// Meta under their header name.

func readMusicBrainzCSV(name string, data []byte) ([]Question, error) {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, csvError(name, err)
	}
	cols, err := csvColumns(name, header)
	if err != nil {
		return nil, err
	}
	var qs []Question
	for row := 0; ; row++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return qs, nil
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		if q, ok := csvQuestion(header, cols, rec, row); ok {
			qs = append(qs, q)
		}
	}
}

type csvCols struct{ question, answer, typ int }

func csvColumns(name string, header []string) (csvCols, error) {
	c := csvCols{-1, -1, -1}
	for i, h := range header {
		switch strings.ToLower(strings.TrimSpace(h)) {
		case "question":
			c.question = i
		case "answer":
			c.answer = i
		case "type":
			c.typ = i
		}
	}
	if c.question < 0 || c.answer < 0 {
		return c, Errorf(name, 1, "header", "want columns Question and Answer, got %q", header)
	}
	return c, nil
}

func csvQuestion(header []string, c csvCols, rec []string, row int) (Question, bool) {
	cell := func(i int) string {
		if i < 0 || i >= len(rec) {
			return ""
		}
		return strings.TrimSpace(rec[i])
	}
	q := Question{ID: fmt.Sprint(row), Question: cell(c.question), Type: cell(c.typ)}
	if q.Question == "" {
		return Question{}, false
	}
	q.Answers = appendUnique(nil, cell(c.answer))
	for i, h := range header {
		if i != c.question && i != c.answer && i != c.typ {
			q.Meta = setMeta(q.Meta, strings.TrimSpace(h), cell(i))
		}
	}
	return q, true
}

func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return Errorf(name, int64(pe.Line), fmt.Sprintf("column %d", pe.Column), "%v", pe.Err)
	}
	if errors.Is(err, io.EOF) {
		return Errorf(name, 1, "header", "empty CSV file")
	}
	return fmt.Errorf("read %s: %w", name, err)
}
