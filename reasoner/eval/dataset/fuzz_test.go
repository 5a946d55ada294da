package dataset

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to detection and to every reader: they must
// never panic, and whatever they accept must be usable questions.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"questions": [{"id": 1, "question": [{"language": "en", "string": "Who?"}], "answers": [{"boolean": true}]}]}`))
	f.Add([]byte(`[{"question": "q", "answer": {"Q1": "x", "+5": "+5"}, "qid_topic_entity": {}}]`))
	f.Add([]byte(`{"qid": "0", "question": "q", "answer": "a"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		formats := append([]Format{FormatAuto}, Formats()...)
		for _, format := range formats {
			qs, err := parse("fuzz", data, format)
			if err != nil {
				continue
			}
			for _, q := range qs {
				if q.Question == "" || q.ID == "" {
					t.Fatalf("format %q accepted a question without text or id: %+v", format, q)
				}
			}
		}
	})
}

// FuzzFormatDate checks that the date renderer accepts any string.
func FuzzFormatDate(f *testing.F) {
	for _, s := range []string{"1997-04-05T00:00:00Z", "-7000-01-01T00:00:00Z", "0000-01-01", "+12-1-1T1:1:1Z", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if FormatDate(s) == "" {
			t.Fatalf("FormatDate(%q) is empty", s)
		}
		_ = PlainNumber(s)
	})
}
