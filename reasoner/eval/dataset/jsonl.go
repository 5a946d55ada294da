package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// jsonlRecords splits JSON Lines data into records, skipping blank lines.
func jsonlRecords(data []byte) []record {
	var recs []record
	for i, line := range bytes.Split(data, []byte{'\n'}) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		recs = append(recs, record{raw: line, line: int64(i + 1), index: len(recs)})
	}
	return recs
}

func readJSONLines(name string, data []byte, fn func(record) (Question, error)) ([]Question, error) {
	return questions(jsonlRecords(data), fn)
}

// questions maps recs to Questions with fn, in order, stopping at fn's
// first error (returned as it is, with no questions). The slice is new
// and the caller's.
func questions(recs []record, fn func(record) (Question, error)) ([]Question, error) {
	qs := make([]Question, 0, len(recs))
	for _, r := range recs {
		q, err := fn(r)
		if err != nil {
			return nil, err
		}
		qs = append(qs, q)
	}
	return qs, nil
}

// GRBench (Graph-CoT data/processed_data/<domain>/data.json): one
// {"qid", "question", "answer"} object per line. The answer is one string
// (lists are comma separated inside it, as GRBench scores them whole with
// Rouge-L). Meta["domain"] is the file name without extension.

type grbenchQuestion struct {
	QID      json.RawMessage `json:"qid"`
	Question string          `json:"question"`
	Answer   json.RawMessage `json:"answer"`
}

func readGRBench(name string, data []byte) ([]Question, error) {
	domain := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	return readJSONLines(name, data, func(r record) (Question, error) {
		in, err := decodeQuestion(name, r, func(q *grbenchQuestion) string { return q.Question })
		if err != nil {
			return Question{}, err
		}
		id, err := text(in.QID)
		if err != nil {
			return Question{}, fieldError(name, r, "qid", err)
		}
		golds, err := texts(in.Answer)
		if err != nil {
			return Question{}, fieldError(name, r, "answer", err)
		}
		q := Question{ID: id, Question: in.Question, Answers: appendUnique(nil, golds...)}
		if q.ID == "" {
			q.ID = fmt.Sprint(r.index)
		}
		q.Meta = setMeta(q.Meta, "domain", domain)
		return q, nil
	})
}

// Plain JSON Lines: one Question per line, as WriteJSONL writes it:
// {"id", "question", "answers": [...]} plus the optional "answer_ids",
// "topic_entities", "type", "evidences" and "meta".

func readJSONL(name string, data []byte) ([]Question, error) {
	return readJSONLines(name, data, func(r record) (Question, error) {
		var q Question
		if err := decodeRecord(name, r, &q); err != nil {
			return Question{}, err
		}
		if err := requireQuestion(name, r, "question", q.Question); err != nil {
			return Question{}, err
		}
		if q.ID == "" {
			q.ID = fmt.Sprint(r.index)
		}
		return q, nil
	})
}
