package dataset

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// QALD-10 (KGQA/QALD-10 data/qald_10/qald_10.json):
//
//	{"dataset": {...}, "questions": [{"id": 0, "aggregation": false,
//	  "question": [{"language": "en", "string": "..."}, ...],
//	  "answers": [{"head": {"vars": ["result"]}, "results": {"bindings":
//	    [{"result": {"type": "uri", "value": "http://www.wikidata.org/entity/Q42299"}}]}}
//	    or [{"head": {}, "boolean": true}],
//	  "query": {"sparql": "..."}}]}

type qaldQuestion struct {
	ID          json.RawMessage `json:"id"`
	Aggregation *bool           `json:"aggregation"`
	Question    []struct {
		Language string `json:"language"`
		String   string `json:"string"`
	} `json:"question"`
	Answers []qaldAnswer `json:"answers"`
	Query   struct {
		SPARQL string `json:"sparql"`
	} `json:"query"`
}

type qaldAnswer struct {
	Head struct {
		Vars []string `json:"vars"`
	} `json:"head"`
	Boolean *bool `json:"boolean"`
	Results *struct {
		Bindings []map[string]qaldValue `json:"bindings"`
	} `json:"results"`
}

type qaldValue struct {
	Type     string `json:"type"`
	Value    string `json:"value"`
	Datatype string `json:"datatype"`
	Lang     string `json:"xml:lang"`
}

// reWikidataEntity matches the URI of a Wikidata item or lexeme.
var reWikidataEntity = regexp.MustCompile(`^https?://www\.wikidata\.org/entity/([QL][1-9][0-9]*)$`)

// reWikidataID matches a bare Wikidata item, lexeme or property id.
var reWikidataID = regexp.MustCompile(`^[QLP][1-9][0-9]*$`)

func readQALD10(name string, data []byte) ([]Question, error) {
	return readArray(name, data, "questions", func(r record) (Question, error) {
		return qaldRecord(name, r)
	})
}

func qaldRecord(name string, r record) (Question, error) {
	var in qaldQuestion
	if err := decodeRecord(name, r, &in); err != nil {
		return Question{}, err
	}
	id, err := text(in.ID)
	if err != nil {
		return Question{}, fieldError(name, r, "id", err)
	}
	q := Question{ID: id}
	if q.ID == "" {
		q.ID = fmt.Sprint(r.index)
	}
	for _, s := range in.Question {
		if s.Language == "en" {
			q.Question = s.String
			break
		}
	}
	if err := requireQuestion(name, r, "question[language=en].string", q.Question); err != nil {
		return Question{}, err
	}
	kinds := map[string]bool{}
	for i, a := range in.Answers {
		if err := qaldAnswerInto(&q, a, kinds); err != nil {
			return Question{}, fieldError(name, r, fmt.Sprintf("answers[%d]", i), err)
		}
	}
	q.Type = kindOfSet(kinds)
	q.Meta = setMeta(q.Meta, "sparql", in.Query.SPARQL)
	if in.Aggregation != nil {
		q.Meta = setMeta(q.Meta, "aggregation", fmt.Sprint(*in.Aggregation))
	}
	if len(q.AnswerIDs) > 0 {
		q.Meta = setMeta(q.Meta, MetaUnlabeled, strings.Join(q.AnswerIDs, " "))
	}
	return q, nil
}

// qaldAnswerInto adds the gold answers of one SPARQL result to q.
func qaldAnswerInto(q *Question, a qaldAnswer, kinds map[string]bool) error {
	if a.Boolean != nil {
		kinds[KindBoolean] = true
		q.Answers = appendUnique(q.Answers, yesNo(*a.Boolean))
		return nil
	}
	if a.Results == nil {
		return fmt.Errorf("neither boolean nor results")
	}
	for i, b := range a.Results.Bindings {
		v, ok := pickBinding(b, a.Head.Vars)
		if !ok {
			continue
		}
		if err := qaldValueInto(q, v, kinds); err != nil {
			return fmt.Errorf("results.bindings[%d]: %w", i, err)
		}
	}
	return nil
}

// pickBinding chooses the answer variable of a result row as the paper's
// script does: ?result when bound, otherwise the first bound variable (in
// head.vars order, then by name).
func pickBinding(b map[string]qaldValue, vars []string) (qaldValue, bool) {
	if v, ok := b["result"]; ok {
		return v, true
	}
	for _, name := range vars {
		if v, ok := b[name]; ok {
			return v, true
		}
	}
	names := make([]string, 0, len(b))
	for k := range b {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return qaldValue{}, false
	}
	return b[names[0]], true
}

func qaldValueInto(q *Question, v qaldValue, kinds map[string]bool) error {
	switch v.Type {
	case "uri":
		if m := reWikidataEntity.FindStringSubmatch(v.Value); m != nil {
			kinds[KindEntity] = true
			q.AnswerIDs = appendUnique(q.AnswerIDs, m[1])
			return nil
		}
		kinds[KindURI] = true
		q.Answers = appendUnique(q.Answers, v.Value)
	case "literal", "typed-literal":
		s, kind := renderLiteral(v.Value, v.Datatype)
		kinds[kind] = true
		q.Answers = appendUnique(q.Answers, s)
	case "bnode":
		return nil
	default:
		return fmt.Errorf("type: unknown binding type %q", v.Type)
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

// kindOfSet names a question's answer kind: the single kind, "mixed", or "".
func kindOfSet(kinds map[string]bool) string {
	if len(kinds) > 1 {
		return KindMixed
	}
	for k := range kinds {
		return k
	}
	return ""
}

// ToG's qald_10-en.json: a JSON array of {"question", "answer": {key:
// label}, "qid_topic_entity": {QID: label}, "sparql"}. Keys of "answer" are
// Wikidata ids (their values are labels) or raw SPARQL literal values.

type qaldEnQuestion struct {
	Question string          `json:"question"`
	Answer   json.RawMessage `json:"answer"`
	Topic    json.RawMessage `json:"qid_topic_entity"`
	SPARQL   string          `json:"sparql"`
}

func readQALD10En(name string, data []byte) ([]Question, error) {
	return readArray(name, data, "", func(r record) (Question, error) {
		in, err := decodeQuestion(name, r, func(q *qaldEnQuestion) string { return q.Question })
		if err != nil {
			return Question{}, err
		}
		q := Question{ID: fmt.Sprint(r.index), Question: in.Question}
		if err := qaldEnAnswers(&q, in.Answer); err != nil {
			return Question{}, fieldError(name, r, "answer", err)
		}
		if q.TopicEntities, err = labelMap(in.Topic); err != nil {
			return Question{}, fieldError(name, r, "qid_topic_entity", err)
		}
		q.Meta = setMeta(q.Meta, "sparql", in.SPARQL)
		return q, nil
	})
}

// qaldEnPlaceholder is the label ToG's qald_10-en writes for an answer
// that has none (lexeme L30607 of question 14, 27 shows of question 256,
// the URL of question 285). It is not one-letter labels in general: the
// notes of question 168 are really labelled "G", "E" and "C".
const qaldEnPlaceholder = "N"

// qaldEnAnswers adds the {key: label} answers of a qald_10-en record: ids
// with their labels, or literals rendered as in QALD-10. An id labelled
// with the placeholder "N" has no label: as Resolve does for QALD-10, it is
// dropped when another id of the question has a label, and when none has
// the ids themselves are the gold answers (and Meta[MetaIDsOnly] says so).
func qaldEnAnswers(q *Question, raw json.RawMessage) error {
	pairs, err := orderedObject(raw)
	if err != nil {
		return err
	}
	kinds := map[string]bool{}
	var unlabeled []string
	labeled := false
	for _, p := range pairs {
		label, err := text(p.Value)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Key, err)
		}
		if reWikidataID.MatchString(p.Key) {
			kinds[KindEntity] = true
			q.AnswerIDs = appendUnique(q.AnswerIDs, p.Key)
			if label = strings.TrimSpace(label); label == "" || label == qaldEnPlaceholder {
				unlabeled = append(unlabeled, p.Key)
				continue
			}
			labeled = true
			q.Answers = appendUnique(q.Answers, label)
			continue
		}
		s, kind := renderLiteral(p.Key, "")
		kinds[kind] = true
		q.Answers = appendUnique(q.Answers, s)
	}
	if !labeled && len(unlabeled) > 0 {
		q.Answers = appendUnique(q.Answers, unlabeled...)
		q.Meta = setMeta(q.Meta, MetaIDsOnly, "true")
	}
	q.Type = kindOfSet(kinds)
	return nil
}

// readArray maps every element of a top-level JSON array (or of the array
// under key) to a Question.
func readArray(name string, data []byte, key string, fn func(record) (Question, error)) ([]Question, error) {
	recs, err := arrayRecords(name, data, key)
	if err != nil {
		return nil, err
	}
	return questions(recs, fn)
}
