package eval

import (
	"testing"
)

// TestSameQuestionsFormats: runs of the same dataset compare by format,
// an auto-detected format an older manifest did not record ("") matching
// any, so such a run still merges with one that records its format.
func TestSameQuestionsFormats(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"cwq", "cwq", true},
		{"", "cwq", true},
		{"cwq", "", true},
		{"", "", true},
		{"cwq", "webqsp", false},
	} {
		a := Manifest{Dataset: "/d/q.json", Format: tc.a}
		b := Manifest{Dataset: "/d/q.json", Format: tc.b, FormatDetected: true}
		if err := sameQuestions(a, b); (err == nil) != tc.same {
			t.Errorf("formats %q and %q: error %v, want same %v", tc.a, tc.b, err, tc.same)
		}
	}
}
