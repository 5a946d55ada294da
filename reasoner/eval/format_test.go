package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestMergeComparesKnownFormats: runs whose first manifest is an older
// one without a format still have their known formats compared with each
// other (the first known one is the reference), by Merge and Comparable,
// and the merged manifest keeps the known format. Both used to compare
// every manifest with the first only, so "jsonl" and "grbench" runs were
// accepted together after a format-less one, and the merged run.json had
// no format.
func TestMergeComparesKnownFormats(t *testing.T) {
	for _, tc := range []struct {
		name    string
		formats []string // one run directory per format, in order
		want    string   // the error, "" when they merge
		names   []int    // the runs the error names
		merged  string   // the merged manifest's format
	}{
		{"old, jsonl, grbench", []string{"", "jsonl", "grbench"}, `dataset formats "jsonl" and "grbench" differ`, []int{1, 2}, ""},
		{"old, grbench, old, jsonl", []string{"", "grbench", "", "jsonl"}, `dataset formats "grbench" and "jsonl" differ`, []int{1, 3}, ""},
		{"jsonl, grbench", []string{"jsonl", "grbench"}, `dataset formats "jsonl" and "grbench" differ`, []int{0, 1}, ""},
		{"old, jsonl", []string{"", "jsonl"}, "", nil, "jsonl"},
		{"jsonl, old", []string{"jsonl", ""}, "", nil, "jsonl"},
		{"old, old", []string{"", ""}, "", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			var dirs []string
			for i, f := range tc.formats {
				dir := filepath.Join(root, fmt.Sprintf("run%d", i))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				m := Manifest{Dataset: "/d/q.jsonl", Format: f, FormatDetected: f != "", Seed: 233, Methods: []string{"cot"}}
				writeRunDir(t, dir, m)
				dirs = append(dirs, dir)
			}
			if !checkCompared(t, root, dirs, tc.want, tc.names) {
				return
			}
			m, err := ReadManifest(filepath.Join(root, "merged", "run.json"))
			if err != nil {
				t.Fatal(err)
			}
			if m.Format != tc.merged || m.FormatDetected != (tc.merged != "") {
				t.Errorf("merged format %q (detected %v), want %q", m.Format, m.FormatDetected, tc.merged)
			}
		})
	}
}

// writeRunDir writes a run directory holding manifest m and no results.
func writeRunDir(t *testing.T, dir string, m Manifest) {
	t.Helper()
	if err := writeManifest(filepath.Join(dir, "run.json"), m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ResultsFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkCompared runs Comparable and Merge (into root/merged) on dirs and
// checks that both fail with want, naming the directories of names, or
// both succeed when want is ""; it reports whether they succeeded.
func checkCompared(t *testing.T, root string, dirs []string, want string, names []int) bool {
	t.Helper()
	_, merr := Merge(filepath.Join(root, "merged"), dirs...)
	for what, err := range map[string]error{"Comparable": Comparable(dirs...), "Merge": merr} {
		if (err == nil) != (want == "") || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: error %v, want %q", what, err, want)
		}
		for _, i := range names {
			if err != nil && !strings.Contains(err.Error(), dirs[i]+string(filepath.Separator)) {
				t.Errorf("%s: error %v does not name %s", what, err, dirs[i])
			}
		}
	}
	return want == ""
}
