package dataset

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Question is one evaluation question with its gold answers.
type Question struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	// Answers are the gold answer labels.
	Answers []string `json:"answers"`
	// AnswerIDs are the gold entity ids when the dataset has them (Wikidata
	// Q-ids, Freebase MIDs).
	AnswerIDs []string `json:"answer_ids,omitempty"`
	// TopicEntities maps the ids of the entities the question mentions to
	// their labels, in the ids of the KG the dataset was built on (MIDs for
	// the Freebase sets, QIDs for the Wikidata ones).
	TopicEntities map[string]string `json:"topic_entities,omitempty"`
	// WikidataTopicEntities are the same topic entities as Wikidata QIDs,
	// when a Freebase set also gives them (qid_topic_entity), for asking
	// the question against a Wikidata KG. They are never merged into
	// TopicEntities: ids of another KG are not topic entities of this one.
	WikidataTopicEntities map[string]string `json:"wikidata_topic_entities,omitempty"`
	// Type is the dataset's question type (2Wiki "compositional", CWQ
	// "conjunction", GrailQA "zero-shot", QALD answer kind "date", ...).
	Type string `json:"type,omitempty"`
	// Evidences are gold (subject, relation, object) facts (2Wiki).
	Evidences [][3]string `json:"evidences,omitempty"`
	// Meta holds the remaining dataset fields (SPARQL, domain, ...).
	Meta map[string]string `json:"meta,omitempty"`
}

// MetaUnlabeled is the Meta key listing, space separated, the AnswerIDs whose
// labels are still missing from Answers. Resolve fills them in and removes
// the key.
const MetaUnlabeled = "unlabeled_ids"

// MetaIDsOnly is set ("true") by Resolve on a question none of whose gold
// ids has a label, so that its gold answers are the bare ids ("Q42"),
// which a text answer cannot match.
const MetaIDsOnly = "gold_ids_only"

// DefaultSeed is the sampling seed of ReAct and Tree-of-Traversals.
const DefaultSeed = 233

// Format names a dataset file format.
type Format string

// The supported formats. FormatAuto asks Load to call Detect.
const (
	FormatAuto         Format = ""
	FormatQALD10       Format = "qald10"
	FormatQALD10En     Format = "qald10-en"
	Format2Wiki        Format = "2wiki"
	FormatMusicBrainz  Format = "musicbrainz-wikidata"
	FormatGRBench      Format = "grbench"
	FormatCWQ          Format = "cwq"
	FormatWebQSP       Format = "webqsp"
	FormatGrailQA      Format = "grailqa"
	FormatSimpleQA     Format = "simpleqa"
	FormatWebQuestions Format = "webquestions"
	FormatJSONL        Format = "jsonl"
)

// Formats lists every concrete format, for help texts.
func Formats() []Format {
	return []Format{FormatQALD10, FormatQALD10En, Format2Wiki, FormatMusicBrainz, FormatGRBench,
		FormatCWQ, FormatWebQSP, FormatGrailQA, FormatSimpleQA, FormatWebQuestions, FormatJSONL}
}

// ParseFormat parses a format name; "" and "auto" give FormatAuto.
func ParseFormat(s string) (Format, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || s == "auto" {
		return FormatAuto, nil
	}
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown dataset format %q (want auto or one of %s)", s, strings.Join(names, ", "))
}

// Labeler gives the human-readable label of an entity id. A KG or a label
// cache implements it.
type Labeler interface {
	Label(ctx context.Context, id string) (string, bool)
}

// LabelerFunc adapts a function to Labeler.
type LabelerFunc func(ctx context.Context, id string) (string, bool)

// Label calls f.
func (f LabelerFunc) Label(ctx context.Context, id string) (string, bool) { return f(ctx, id) }

// Resolve looks up the labels of the ids listed in Meta[MetaUnlabeled] of
// each question and appends them to its Answers, as the Tree-of-Traversals
// QALD script does: ids without a label are dropped, and when none of a
// question's ids has a label the ids themselves are used (and
// Meta[MetaIDsOnly] says so). Questions are
// modified in place; the context is checked between questions.
func Resolve(ctx context.Context, qs []Question, labeler Labeler) error {
	if labeler == nil {
		return errors.New("resolve answer labels: nil labeler")
	}
	for i := range qs {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("resolve answer labels of question %s: %w", qs[i].ID, err)
		}
		resolveOne(ctx, &qs[i], labeler)
	}
	return nil
}

func resolveOne(ctx context.Context, q *Question, labeler Labeler) {
	ids := strings.Fields(q.Meta[MetaUnlabeled])
	if len(ids) == 0 {
		return
	}
	var labels []string
	for _, id := range ids {
		if l, ok := labeler.Label(ctx, id); ok && l != "" {
			labels = append(labels, l)
		}
	}
	delete(q.Meta, MetaUnlabeled)
	if len(labels) == 0 {
		labels = ids
		q.Meta[MetaIDsOnly] = "true"
	}
	q.Answers = appendUnique(q.Answers, labels...)
	if len(q.Meta) == 0 {
		q.Meta = nil
	}
}

// WriteJSONL writes questions in the plain JSON Lines format that Load reads
// back with FormatJSONL (one Question object per line).
func WriteJSONL(w io.Writer, qs []Question) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range qs {
		if err := enc.Encode(&qs[i]); err != nil {
			return fmt.Errorf("write question %s: %w", qs[i].ID, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write questions: %w", err)
	}
	return nil
}

// appendUnique appends the values of add that are non-empty and not yet in
// dst, keeping first occurrences.
func appendUnique(dst []string, add ...string) []string {
	for _, a := range add {
		if a == "" || contains(dst, a) {
			continue
		}
		dst = append(dst, a)
	}
	return dst
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// setMeta sets m[k] = v when v is non-empty, allocating m on demand.
func setMeta(m map[string]string, k, v string) map[string]string {
	if v == "" {
		return m
	}
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}
