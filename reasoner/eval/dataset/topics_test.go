package dataset

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// TestFreebaseTopicsKeepQIDsApart checks that a Freebase set's
// qid_topic_entity QIDs are not merged into its topic entities (a Freebase
// KG would be asked for, and report missing, Wikidata ids).
func TestFreebaseTopicsKeepQIDsApart(t *testing.T) {
	tests := []struct {
		format   Format
		record   string
		mids     map[string]string
		wikidata map[string]string
	}{
		{FormatWebQuestions, `{"question": "what does jamaican people speak?", "answers": ["Jamaican English"],
			"topic_entity": {"m.03_r3": "Jamaica"}, "qid_topic_entity": {"Q766": "Jamaica"}}`,
			map[string]string{"m.03_r3": "Jamaica"}, map[string]string{"Q766": "Jamaica"}},
		{FormatCWQ, `{"ID": "c1", "question": "q?", "answer": "Germany",
			"topic_entity": {"m.0f8l9c": "France"}, "qid_topic_entity": {"Q142": "France"}}`,
			map[string]string{"m.0f8l9c": "France"}, map[string]string{"Q142": "France"}},
		{FormatCWQ, `{"ID": "c2", "question": "q?", "answer": "Germany", "topic_entity": {"m.0f8l9c": "France"}}`,
			map[string]string{"m.0f8l9c": "France"}, nil},
		{FormatGrailQA, `{"qid": 1, "question": "q?", "answer": [{"answer_type": "Entity",
			"answer_argument": "m.0yrltsn", "entity_name": "The Illusion"}], "topic_entity": {"m.0yrlqjm": "The Illusion"}}`,
			map[string]string{"m.0yrlqjm": "The Illusion"}, nil},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "q.json")
			if err := os.WriteFile(p, []byte("["+tt.record+"]"), 0o644); err != nil {
				t.Fatal(err)
			}
			qs, err := Load(p, tt.format)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(qs[0].TopicEntities, tt.mids) || !maps.Equal(qs[0].WikidataTopicEntities, tt.wikidata) {
				t.Errorf("topic entities %v, Wikidata topic entities %v; want %v and %v",
					qs[0].TopicEntities, qs[0].WikidataTopicEntities, tt.mids, tt.wikidata)
			}
		})
	}
}
