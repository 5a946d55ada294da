// Package tracetest holds the helpers the reasoners' tests share to run a
// method and inspect its trace: failures show the rendered trace, and
// warnings and model calls are looked up by text and task.
package tracetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/trace"
)

// Answer runs r on q and fails the test when it returns an error, showing
// the partial trace. With -v the trace is logged.
func Answer(t testing.TB, r reasoner.Reasoner, q reasoner.Query) *trace.Trace {
	t.Helper()
	tr, err := r.Answer(t.Context(), q)
	if err != nil {
		t.Fatalf("answer: %v\n%s", err, Render(t, tr))
	}
	if testing.Verbose() {
		t.Log("\n" + Render(t, tr))
	}
	return tr
}

// Render is the text form of tr (trace.Render), "(no trace)" for nil.
func Render(t testing.TB, tr *trace.Trace) string {
	t.Helper()
	if tr == nil {
		return "(no trace)"
	}
	var b strings.Builder
	if err := trace.Render(&b, tr); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Warnings lists tr's warnings, one "#node message" line each.
func Warnings(tr *trace.Trace) string {
	var b strings.Builder
	for _, w := range tr.Warnings {
		fmt.Fprintf(&b, "#%d %s\n", w.Node, w.Message)
	}
	return b.String()
}

// HasWarning reports whether some warning of tr contains all parts.
func HasWarning(tr *trace.Trace, parts ...string) bool {
	return slices.ContainsFunc(tr.Warnings, func(w trace.Warning) bool {
		for _, p := range parts {
			if !strings.Contains(w.Message, p) {
				return false
			}
		}
		return true
	})
}

// Calls returns tr's model calls of one task, in order.
func Calls(tr *trace.Trace, task string) []trace.ModelCall {
	var out []trace.ModelCall
	for _, c := range tr.ModelCalls {
		if c.Task == task {
			out = append(out, c)
		}
	}
	return out
}
