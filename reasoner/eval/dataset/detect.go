package dataset

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Detect reads the file at path and names its format from the content: the
// top-level JSON shape and the keys of the first record, or the CSV header.
// It never looks at the file name.
func Detect(path string) (Format, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("detect dataset format: %w", err)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := checkText(path, data); err != nil {
		return "", err
	}
	return detect(path, data)
}

func detect(name string, data []byte) (Format, error) {
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return "", fmt.Errorf("detect dataset format of %s: empty file", name)
	}
	var (
		f   Format
		err error
	)
	switch t[0] {
	case '[':
		f, err = detectArray(t)
	case '{':
		f, err = detectObject(t)
	default:
		f, err = detectCSV(t)
	}
	if err != nil {
		return "", fmt.Errorf("detect dataset format of %s: %w", name, err)
	}
	return f, nil
}

// detectArray classifies a JSON array by the keys of its first element.
func detectArray(data []byte) (Format, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return "", err
	}
	if !dec.More() {
		return "", fmt.Errorf("empty JSON array")
	}
	var first map[string]json.RawMessage
	if err := dec.Decode(&first); err != nil {
		return "", fmt.Errorf("first array element: %w", err)
	}
	if f := arrayFormat(first); f != "" {
		return f, nil
	}
	return "", fmt.Errorf("unrecognised JSON array element with keys %s", keyList(first))
}

// arrayFormat maps the keys of a JSON array element to a format.
func arrayFormat(k map[string]json.RawMessage) Format {
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := k[n]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case has("_id", "question", "answer") && (has("evidences") || has("type")):
		return Format2Wiki
	case has("question", "compositionality_type"), has("ID", "question", "webqsp_ID"):
		return FormatCWQ
	case has("RawQuestion"), has("Parses"):
		return FormatWebQSP
	case has("question", "answer") && (has("s_expression") || has("graph_query") || has("level")):
		return FormatGrailQA
	case has("question", "answer", "qid_topic_entity") && isObject(k["answer"]):
		return FormatQALD10En
	case has("question", "answers", "topic_entity"):
		return FormatWebQuestions
	case has("question", "answer", "topic_entity") && has("relation"):
		return FormatSimpleQA
	}
	return ""
}

// detectObject tells a QALD-10 or WebQSP document from JSON Lines.
func detectObject(data []byte) (Format, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var first map[string]json.RawMessage
	if err := dec.Decode(&first); err != nil {
		return "", fmt.Errorf("first JSON object: %w", err)
	}
	_, hasQALD := first["questions"]
	_, hasWebQSP := first["Questions"]
	_, hasQID := first["qid"]
	_, hasID := first["id"]
	_, hasAnswers := first["answers"]
	switch {
	case hasQALD:
		return FormatQALD10, nil
	case hasWebQSP:
		return FormatWebQSP, nil
	case hasQID && hasKey(first, "question") && hasKey(first, "answer"):
		return FormatGRBench, nil
	case hasKey(first, "question") && (hasAnswers || hasID):
		return FormatJSONL, nil
	}
	return "", fmt.Errorf("unrecognised JSON object with keys %s", keyList(first))
}

// detectCSV accepts a CSV file whose header has Question and Answer columns.
func detectCSV(data []byte) (Format, error) {
	header, err := csv.NewReader(bytes.NewReader(data)).Read()
	if err != nil {
		return "", fmt.Errorf("neither JSON nor CSV: %w", err)
	}
	if _, err := csvColumns("", header); err != nil {
		return "", fmt.Errorf("CSV header %q lacks Question and Answer columns", header)
	}
	return FormatMusicBrainz, nil
}

func hasKey(m map[string]json.RawMessage, k string) bool {
	_, ok := m[k]
	return ok
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

func keyList(m map[string]json.RawMessage) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "[" + strings.Join(keys, ", ") + "]"
}
