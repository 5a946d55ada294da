package dataset

import (
	"encoding/json"
	"fmt"
)

// 2WikiMultiHopQA (Ho et al., 2020): a JSON array of {"_id", "type",
// "question", "context", "supporting_facts", "evidences": [[subject,
// relation, object], ...], "answer"}. Type is the question type
// ("comparison", "inference", "compositional", "bridge_comparison").

type wikiQuestion struct {
	ID        string          `json:"_id"`
	Type      string          `json:"type"`
	Question  string          `json:"question"`
	Answer    json.RawMessage `json:"answer"`
	Evidences [][]string      `json:"evidences"`
	EntityIDs string          `json:"entity_ids"`
}

func read2Wiki(name string, data []byte) ([]Question, error) {
	return readArray(name, data, "", func(r record) (Question, error) {
		in, err := decodeQuestion(name, r, func(q *wikiQuestion) string { return q.Question })
		if err != nil {
			return Question{}, err
		}
		golds, err := texts(in.Answer)
		if err != nil {
			return Question{}, fieldError(name, r, "answer", err)
		}
		q := Question{ID: in.ID, Question: in.Question, Type: in.Type, Answers: appendUnique(nil, golds...)}
		if q.ID == "" {
			q.ID = fmt.Sprint(r.index)
		}
		for i, e := range in.Evidences {
			if len(e) != 3 {
				return Question{}, fieldError(name, r, fmt.Sprintf("evidences[%d]", i),
					fmt.Errorf("got %d elements, want 3 (subject, relation, object)", len(e)))
			}
			q.Evidences = append(q.Evidences, [3]string{e[0], e[1], e[2]})
		}
		q.Meta = setMeta(q.Meta, "entity_ids", in.EntityIDs)
		return q, nil
	})
}
