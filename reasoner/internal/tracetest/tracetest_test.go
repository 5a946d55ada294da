package tracetest

import (
	"context"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/trace"
)

func sample() *trace.Trace {
	return &trace.Trace{Method: "m", Question: "q?",
		Nodes:      []trace.Node{{ID: 1, State: "root", Text: "q?"}},
		ModelCalls: []trace.ModelCall{{Seq: 1, Task: "m/a"}, {Seq: 2, Task: "m/b"}, {Seq: 3, Task: "m/a"}},
		Warnings:   []trace.Warning{{Node: 1, Message: "mention \"x\": no candidate"}, {Message: "odd"}}}
}

func TestLookups(t *testing.T) {
	tr := sample()
	if got := Warnings(tr); got != "#1 mention \"x\": no candidate\n#0 odd\n" {
		t.Errorf("Warnings = %q", got)
	}
	tests := []struct {
		parts []string
		want  bool
	}{
		{[]string{"mention", "no candidate"}, true},
		{[]string{"mention", "odd"}, false},
		{[]string{"odd"}, true},
		{[]string{"missing"}, false},
	}
	for _, tt := range tests {
		if got := HasWarning(tr, tt.parts...); got != tt.want {
			t.Errorf("HasWarning(%q) = %v", tt.parts, got)
		}
	}
	if c := Calls(tr, "m/a"); len(c) != 2 || c[0].Seq != 1 || c[1].Seq != 3 {
		t.Errorf("Calls = %+v", c)
	}
	if c := Calls(tr, "m/c"); len(c) != 0 {
		t.Errorf("Calls of an absent task = %+v", c)
	}
}

func TestRender(t *testing.T) {
	if got := Render(t, nil); got != "(no trace)" {
		t.Errorf("Render(nil) = %q", got)
	}
	if got := Render(t, sample()); !strings.Contains(got, "m: q?") || !strings.Contains(got, "[root]") {
		t.Errorf("Render = %q", got)
	}
}

// fixed is a reasoner that returns its trace.
type fixed struct{ tr *trace.Trace }

func (f fixed) Answer(context.Context, reasoner.Query) (*trace.Trace, error) { return f.tr, nil }

func TestAnswer(t *testing.T) {
	want := sample()
	if got := Answer(t, fixed{want}, reasoner.Query{Question: "q?"}); got != want {
		t.Errorf("Answer returned %p, want %p", got, want)
	}
}
