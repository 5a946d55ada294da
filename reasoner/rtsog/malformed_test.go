package rtsog

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/internal/tracetest"
	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/reasoner/trace"
	"github.com/grove-kg/grove/store/storetest"
)

// TestMalformedReplies: unreadable model output never aborts a run; each
// case degrades as documented and leaves a warning.
func TestMalformedReplies(t *testing.T) {
	db := storetest.Open(t, map[string]string{"toy": toyGraph})
	tests := []struct {
		name    string
		task    string
		reply   string
		warning []string
		check   func(t *testing.T, tr *trace.Trace)
	}{
		{"relation selection without an offered id", TaskSelectRelation, "I would follow the best one.",
			[]string{"relation filtering", "no offered option"},
			func(t *testing.T, tr *trace.Trace) {
				if len(tr.Nodes) != 2 || !tnode(t, tr, idT).Terminal {
					t.Errorf("the topic should be a dead end:\n%s", tracetest.Render(t, tr))
				}
				if tr.Answer.Found {
					t.Errorf("answer found without any path: %+v", tr.Answer)
				}
			}},
		{"relation selection out of range", TaskSelectRelation, "9", []string{"out of range"}, nil},
		{"score without a Score line", TaskScorePath, "Quite likely, 0.9", []string{TaskScorePath, "no \"Score:\" line"},
			func(t *testing.T, tr *trace.Trace) {
				for _, id := range []int{idA, idB, idC} {
					if n := tnode(t, tr, id); n.Extra["s_p"] != "0.000" {
						t.Errorf("node %d s_p=%s, want the failed score", id, n.Extra["s_p"])
					}
				}
			}},
		{"unreadable end-of-search", TaskEndOfSearch, "Perhaps.", []string{"end-of-search check"},
			func(t *testing.T, tr *trace.Trace) {
				for _, n := range tr.Nodes {
					if n.State == StateEndOfSearch {
						t.Errorf("node %d flagged End-of-Search from an unreadable reply", n.ID)
					}
				}
			}},
		{"unreadable stack verdict", TaskStack, "It depends.", []string{"path stack"},
			func(t *testing.T, tr *trace.Trace) {
				if tr.Answer.Confident || !tracetest.HasWarning(tr, "kept none") {
					t.Errorf("with no path kept the answer must not be confident: %+v", tr.Answer)
				}
			}},
		{"answer without an Answer line", TaskAnswer, "Beta, I think.", []string{"answer", "no \"Answer:\" line"},
			func(t *testing.T, tr *trace.Trace) {
				if tr.Answer.Found || !strings.Contains(tr.Answer.Reason, "unreadable") {
					t.Errorf("answer %+v", tr.Answer)
				}
			}},
		{"unknown answer", TaskAnswer, "Answer: unknown", nil,
			func(t *testing.T, tr *trace.Trace) {
				if tr.Answer.Found || !strings.Contains(tr.Answer.Reason, "does not know") {
					t.Errorf("answer %+v", tr.Answer)
				}
			}},
		{"decomposition with nothing usable", TaskDecompose, "\n  \n", []string{"decomposition gave 0 of 2"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := toyOracle().model()
			m.Rules = slices.Insert(m.Rules, 0, llm.Rule{Name: tt.task, Repeat: true, Replies: []string{tt.reply}})
			// A search whose paths die out links the sub-questions again.
			m.Rules = append(m.Rules, llm.Rule{Name: TaskExtract, Repeat: true, Replies: []string{"none"}})
			tr := answerWith(t, db, m, m, toyConfig(nil), toyQuery)
			if tt.warning != nil && !tracetest.HasWarning(tr, tt.warning...) {
				t.Errorf("no warning with %q; warnings: %+v", tt.warning, tr.Warnings)
			}
			if tt.check != nil {
				tt.check(t, tr)
			}
		})
	}
}

// TestUnofferedRelations: a relation selection naming an option that was
// not offered keeps the offered ones and warns of the other.
func TestUnofferedRelations(t *testing.T) {
	db := storetest.Open(t, map[string]string{"toy": toyGraph})
	for _, tc := range []struct{ reply, warning string }{
		{"R1, R99", "relation filtering of T: the reply names R99, not offered: ignored"},
		{"R1", ""},
	} {
		t.Run(tc.reply, func(t *testing.T) {
			m := toyOracle().model()
			m.Rules = slices.Insert(m.Rules, 0, llm.Rule{Name: TaskSelectRelation, Replies: []string{tc.reply}})
			m.Rules = append(m.Rules, llm.Rule{Name: TaskExtract, Repeat: true, Replies: []string{"none"}})
			tr := answerWith(t, db, m, m, toyConfig(nil), toyQuery)
			if !slices.Equal(tnode(t, tr, idA).Parents, []int{idT}) {
				t.Errorf("R1 was not followed:\n%s", tracetest.Render(t, tr))
			}
			if warned := tracetest.HasWarning(tr, "not offered"); warned != (tc.warning != "") ||
				tc.warning != "" && !tracetest.HasWarning(tr, tc.warning) {
				t.Errorf("warnings %+v, want %q", tr.Warnings, tc.warning)
			}
		})
	}
}

// TestModelErrors: a failing model ends the run with the error and the
// partial trace.
func TestModelErrors(t *testing.T) {
	db := storetest.Open(t, map[string]string{"toy": toyGraph})
	boom := errors.New("server on fire")
	tests := []struct {
		name string
		task string
	}{
		{"policy: decomposition", TaskDecompose},
		{"value: relation selection", TaskSelectRelation},
		{"value: relation score", TaskScoreRelation},
		{"value: path score", TaskScorePath},
		{"policy: end-of-search", TaskEndOfSearch},
		{"policy: stack", TaskStack},
		{"policy: answer", TaskAnswer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := toyOracle().model()
			m.Rules = slices.Insert(m.Rules, 0, llm.Rule{Name: tt.task, Err: boom})
			r, err := New(reasoner.Deps{KG: db, Model: m}, toyConfig(nil))
			if err != nil {
				t.Fatal(err)
			}
			tr, err := r.Answer(t.Context(), toyQuery)
			if !errors.Is(err, boom) || !strings.Contains(err.Error(), tt.task) {
				t.Fatalf("error %v", err)
			}
			if tr == nil || !strings.Contains(tr.Error, "server on fire") || len(tr.Nodes) == 0 {
				t.Fatalf("partial trace missing: %+v", tr)
			}
			if !slices.ContainsFunc(tr.ModelCalls, func(c trace.ModelCall) bool { return c.Task == tt.task && c.Error != "" }) {
				t.Errorf("the failed call is not recorded")
			}
		})
	}
}

// TestCancelled: a cancelled context stops the run.
func TestCancelled(t *testing.T) {
	db := storetest.Open(t, map[string]string{"toy": toyGraph})
	m := toyOracle().model()
	r, err := New(reasoner.Deps{KG: db, Model: m}, toyConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := r.Answer(ctx, toyQuery); err == nil {
		t.Fatal("no error from a cancelled run")
	}
}
