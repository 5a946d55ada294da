package report

import (
	"os"
	"path/filepath"
	"testing"
)

// TestView writes a whole report of a small study and checks every file is
// there and not empty. With REPORT_OUT=<dir> the files are written there
// instead of a temporary directory, to look at them.
func TestView(t *testing.T) {
	out := os.Getenv("REPORT_OUT")
	if out == "" {
		out = t.TempDir()
	}
	rep, err := Build(runStudy(t))
	if err != nil {
		t.Fatal(err)
	}
	files, err := rep.Write(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append([]string{files.Markdown, files.JSON}, files.Figures...) {
		st, err := os.Stat(f)
		if err != nil || st.Size() == 0 || filepath.Dir(f) != filepath.Clean(out) {
			t.Errorf("report file %s: %v %v", f, st, err)
		}
	}
}
