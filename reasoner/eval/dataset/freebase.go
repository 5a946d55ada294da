package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The Freebase question sets as distributed by ToG (IDEA-FinAI/ToG data/).
// Each is a JSON array. Topic entities come as "topic_entity" {MID: label}
// and, in some files, "qid_topic_entity" {QID: label}: the MIDs become
// TopicEntities and the QIDs WikidataTopicEntities, kept apart so that a
// question asked against a Freebase KG is not given Wikidata ids.

// topicFields decodes the topic-entity members of a record: the Freebase
// MIDs and the Wikidata QIDs.
func topicFields(name string, r record) (mids, qids map[string]string, err error) {
	var in struct {
		Topic    json.RawMessage `json:"topic_entity"`
		QIDTopic json.RawMessage `json:"qid_topic_entity"`
	}
	if err := decodeRecord(name, r, &in); err != nil {
		return nil, nil, err
	}
	if mids, err = labelMap(in.Topic); err != nil {
		return nil, nil, fieldError(name, r, "topic_entity", err)
	}
	if qids, err = labelMap(in.QIDTopic); err != nil {
		return nil, nil, fieldError(name, r, "qid_topic_entity", err)
	}
	return mids, qids, nil
}

// CWQ (ComplexWebQuestions). ToG's cwq.json has "answer" as one string; the
// original release has "answers": [{"answer", "answer_id", "aliases"}].
type cwqQuestion struct {
	ID       string          `json:"ID"`
	Question string          `json:"question"`
	Answer   json.RawMessage `json:"answer"`
	Answers  []struct {
		Answer   string   `json:"answer"`
		AnswerID string   `json:"answer_id"`
		Aliases  []string `json:"aliases"`
	} `json:"answers"`
	Type            string `json:"compositionality_type"`
	SPARQL          string `json:"sparql"`
	WebQSPID        string `json:"webqsp_ID"`
	MachineQuestion string `json:"machine_question"`
}

func readCWQ(name string, data []byte) ([]Question, error) {
	return readArray(name, data, "", func(r record) (Question, error) {
		in, err := decodeQuestion(name, r, func(q *cwqQuestion) string { return q.Question })
		if err != nil {
			return Question{}, err
		}
		q := Question{ID: in.ID, Question: in.Question, Type: in.Type}
		golds, err := texts(in.Answer)
		if err != nil {
			return Question{}, fieldError(name, r, "answer", err)
		}
		q.Answers = appendUnique(nil, golds...)
		var aliases []string
		for _, a := range in.Answers {
			q.Answers = appendUnique(q.Answers, a.Answer)
			q.AnswerIDs = appendUnique(q.AnswerIDs, a.AnswerID)
			aliases = appendUnique(aliases, a.Aliases...)
		}
		q.Meta = setMeta(q.Meta, "aliases", strings.Join(aliases, " | "))
		q.Meta = setMeta(q.Meta, "sparql", in.SPARQL)
		q.Meta = setMeta(q.Meta, "webqsp_id", in.WebQSPID)
		q.Meta = setMeta(q.Meta, "machine_question", in.MachineQuestion)
		return withTopics(name, r, q)
	})
}

// withTopics fills q.TopicEntities, q.WikidataTopicEntities and a
// positional id when q has none.
func withTopics(name string, r record, q Question) (Question, error) {
	mids, qids, err := topicFields(name, r)
	if err != nil {
		return Question{}, err
	}
	q.TopicEntities, q.WikidataTopicEntities = mids, qids
	if q.ID == "" {
		q.ID = fmt.Sprint(r.index)
	}
	return q, nil
}

// WebQSP: {"QuestionId", "RawQuestion", "ProcessedQuestion", "Parses":
// [{"Answers": [{"AnswerType": "Entity"|"Value", "AnswerArgument",
// "EntityName"}], "TopicEntityMid", "TopicEntityName", "Sparql"}],
// "topic_entity"}. The file is a JSON array (ToG) or the original
// {"Version": ..., "Questions": [...]}.
type webqspQuestion struct {
	QuestionID        string `json:"QuestionId"`
	RawQuestion       string `json:"RawQuestion"`
	ProcessedQuestion string `json:"ProcessedQuestion"`
	Parses            []struct {
		Answers []struct {
			AnswerType     string          `json:"AnswerType"`
			AnswerArgument json.RawMessage `json:"AnswerArgument"`
			EntityName     *string         `json:"EntityName"`
		} `json:"Answers"`
		TopicEntityMid  string `json:"TopicEntityMid"`
		TopicEntityName string `json:"TopicEntityName"`
		Sparql          string `json:"Sparql"`
	} `json:"Parses"`
}

func readWebQSP(name string, data []byte) ([]Question, error) {
	key := ""
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		key = "Questions"
	}
	return readArray(name, data, key, func(r record) (Question, error) {
		return webqspRecord(name, r)
	})
}

func webqspRecord(name string, r record) (Question, error) {
	var in webqspQuestion
	if err := decodeRecord(name, r, &in); err != nil {
		return Question{}, err
	}
	q := Question{ID: in.QuestionID, Question: in.RawQuestion}
	if q.Question == "" {
		q.Question = in.ProcessedQuestion
	}
	if err := requireQuestion(name, r, "RawQuestion", q.Question); err != nil {
		return Question{}, err
	}
	for i, p := range in.Parses {
		for j, a := range p.Answers {
			arg, err := text(a.AnswerArgument)
			if err != nil {
				return Question{}, fieldError(name, r, fmt.Sprintf("Parses[%d].Answers[%d].AnswerArgument", i, j), err)
			}
			addTypedAnswer(&q, a.AnswerType, arg, a.EntityName)
		}
	}
	q, err := withTopics(name, r, q)
	if err != nil {
		return Question{}, err
	}
	for _, p := range in.Parses {
		if p.TopicEntityMid != "" {
			q.TopicEntities = mergeLabels(q.TopicEntities, map[string]string{p.TopicEntityMid: p.TopicEntityName})
		}
	}
	if len(in.Parses) > 0 {
		q.Meta = setMeta(q.Meta, "sparql", in.Parses[0].Sparql)
	}
	return q, nil
}

// addTypedAnswer adds a WebQSP/GrailQA answer: an "Entity" contributes its id
// and its name (the id when unnamed), a "Value" its literal.
func addTypedAnswer(q *Question, typ, arg string, entityName *string) {
	if strings.EqualFold(typ, "Entity") {
		q.AnswerIDs = appendUnique(q.AnswerIDs, arg)
		if entityName != nil && *entityName != "" {
			q.Answers = appendUnique(q.Answers, *entityName)
			return
		}
	}
	q.Answers = appendUnique(q.Answers, arg)
}

// GrailQA: {"qid", "question", "answer": [{"answer_type", "answer_argument",
// "entity_name"}], "function", "level", "domains", "s_expression",
// "sparql_query", "topic_entity"}. Type is the generalisation level
// ("i.i.d.", "compositional", "zero-shot").
type grailQuestion struct {
	QID      json.RawMessage `json:"qid"`
	Question string          `json:"question"`
	Answer   []struct {
		AnswerType     string          `json:"answer_type"`
		AnswerArgument json.RawMessage `json:"answer_argument"`
		EntityName     *string         `json:"entity_name"`
	} `json:"answer"`
	Function string   `json:"function"`
	Level    string   `json:"level"`
	Domains  []string `json:"domains"`
	SExpr    string   `json:"s_expression"`
	SPARQL   string   `json:"sparql_query"`
}

func readGrailQA(name string, data []byte) ([]Question, error) {
	return readArray(name, data, "", func(r record) (Question, error) {
		in, err := decodeQuestion(name, r, func(q *grailQuestion) string { return q.Question })
		if err != nil {
			return Question{}, err
		}
		id, err := text(in.QID)
		if err != nil {
			return Question{}, fieldError(name, r, "qid", err)
		}
		q := Question{ID: id, Question: in.Question, Type: in.Level}
		for i, a := range in.Answer {
			arg, err := text(a.AnswerArgument)
			if err != nil {
				return Question{}, fieldError(name, r, fmt.Sprintf("answer[%d].answer_argument", i), err)
			}
			addTypedAnswer(&q, a.AnswerType, arg, a.EntityName)
		}
		q.Meta = setMeta(q.Meta, "function", in.Function)
		q.Meta = setMeta(q.Meta, "domains", strings.Join(in.Domains, ","))
		q.Meta = setMeta(q.Meta, "s_expression", in.SExpr)
		q.Meta = setMeta(q.Meta, "sparql", in.SPARQL)
		return withTopics(name, r, q)
	})
}

// SimpleQuestions (ToG subset): {"question", "answer", "topic_entity",
// "relation"}.
type simpleQuestion struct {
	Question string          `json:"question"`
	Answer   json.RawMessage `json:"answer"`
	Relation string          `json:"relation"`
}

func readSimpleQA(name string, data []byte) ([]Question, error) {
	return readArray(name, data, "", func(r record) (Question, error) {
		in, err := decodeQuestion(name, r, func(q *simpleQuestion) string { return q.Question })
		if err != nil {
			return Question{}, err
		}
		golds, err := texts(in.Answer)
		if err != nil {
			return Question{}, fieldError(name, r, "answer", err)
		}
		q := Question{Question: in.Question, Answers: appendUnique(nil, golds...)}
		q.Meta = setMeta(q.Meta, "relation", in.Relation)
		return withTopics(name, r, q)
	})
}

// WebQuestions (ToG): {"question", "answers": [...], "topic_entity",
// "qid_topic_entity", "url"}.
type webQuestion struct {
	Question string          `json:"question"`
	Answers  json.RawMessage `json:"answers"`
	URL      string          `json:"url"`
}

func readWebQuestions(name string, data []byte) ([]Question, error) {
	return readArray(name, data, "", func(r record) (Question, error) {
		in, err := decodeQuestion(name, r, func(q *webQuestion) string { return q.Question })
		if err != nil {
			return Question{}, err
		}
		golds, err := texts(in.Answers)
		if err != nil {
			return Question{}, fieldError(name, r, "answers", err)
		}
		q := Question{Question: in.Question, Answers: appendUnique(nil, golds...)}
		q.Meta = setMeta(q.Meta, "url", in.URL)
		return withTopics(name, r, q)
	})
}
