package report

import (
	"os"
	"testing"
)

func TestView(t *testing.T) {
	out := os.Getenv("REPORT_OUT")
	if out == "" {
		t.Skip()
	}
	rep, err := Build(runStudy(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rep.Write(out); err != nil {
		t.Fatal(err)
	}
}
