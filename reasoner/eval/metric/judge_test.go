package metric

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/grove-kg/grove/reasoner/llm"
)

// fakeModel replies with a fixed text (or error) and records requests.
type fakeModel struct {
	reply string
	err   error
	mu    sync.Mutex
	reqs  []llm.Request
}

func (m *fakeModel) Generate(_ context.Context, req llm.Request) (llm.Response, error) {
	m.mu.Lock()
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	if m.err != nil {
		return llm.Response{}, m.err
	}
	return llm.Response{Texts: []string{m.reply}, Usage: llm.Usage{PromptTokens: 100, CompletionTokens: 5}}, nil
}

func TestJudgeVerdicts(t *testing.T) {
	tests := []struct {
		name, reply string
		correct     bool
		reason      string
		wantErr     error
	}{
		{"yes", "Yes\nThe output names Christopher Nolan.", true, "The output names Christopher Nolan.", nil},
		{"no with punctuation", "No. It names Spielberg.", false, "It names Spielberg.", nil},
		{"markdown and blank lines", "\n\n**Yes**, same person.", true, "same person.", nil},
		{"labelled", "Verdict: No\nwrong year", false, "wrong year", nil},
		{"rambling", "The answer seems right.\nYes", false, "", llm.ErrUnparseable},
		{"empty reply", "", false, "", llm.ErrUnparseable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &fakeModel{reply: tt.reply}
			j := &Judge{Model: m}
			v, err := j.Judge(context.Background(), "Who directed Inception?", "It was Christopher Nolan.", []string{"Christopher Nolan"})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("got %+v, %v; want error %v", v, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.Correct != tt.correct || v.Reason != tt.reason || v.Reply != tt.reply || v.Usage.PromptTokens != 100 {
				t.Errorf("got %+v", v)
			}
			if v.Score() != map[bool]float64{true: 1, false: 0}[tt.correct] {
				t.Errorf("score %v", v.Score())
			}
		})
	}
}

func TestJudgeRequest(t *testing.T) {
	for _, all := range []bool{false, true} {
		m := &fakeModel{reply: "Yes"}
		j := &Judge{Model: m, AllGolds: all}
		if _, err := j.Judge(context.Background(), "Which exchanges?", "NYSE and XETRA", []string{"New York Stock Exchange", " ", "XETRA"}); err != nil {
			t.Fatal(err)
		}
		if len(m.reqs) != 1 {
			t.Fatalf("%d requests", len(m.reqs))
		}
		r := m.reqs[0]
		if r.Task.Kind != llm.KindYesNo || r.Task.Name != JudgeTaskName || r.Task.Question != "Which exchanges?" ||
			r.Task.Candidate != "NYSE and XETRA" || r.Task.Context != "Gold answer: New York Stock Exchange; XETRA" ||
			r.N != 1 || r.Temperature != 0 || r.MaxTokens != defaultJudgeTokens || r.Prompt != "" {
			t.Errorf("request %+v", r)
		}
		user := r.Messages[len(r.Messages)-1]
		if user.Role != llm.RoleUser || !strings.Contains(user.Content, "Model output: NYSE and XETRA") ||
			!strings.Contains(user.Content, "Gold answer: New York Stock Exchange; XETRA") ||
			strings.Contains(user.Content, "must give all of them") != all {
			t.Errorf("prompt %q", user.Content)
		}
	}
}

func TestJudgeShortCircuitsAndErrors(t *testing.T) {
	m := &fakeModel{reply: "Yes"}
	j := &Judge{Model: m}
	ctx := context.Background()
	v, err := j.Judge(ctx, "q", "  ", []string{"Paris"})
	if err != nil || v.Correct || len(m.reqs) != 0 {
		t.Errorf("empty prediction: %+v %v after %d calls", v, err, len(m.reqs))
	}
	if _, err := j.Judge(ctx, "q", "Paris", []string{"", " "}); err == nil {
		t.Error("no gold accepted")
	}
	if _, err := (&Judge{}).Judge(ctx, "q", "Paris", []string{"Paris"}); err == nil {
		t.Error("nil model accepted")
	}
	boom := errors.New("rate limited")
	if _, err := (&Judge{Model: &fakeModel{err: boom}}).Judge(ctx, "q", "Paris", []string{"Paris"}); !errors.Is(err, boom) {
		t.Errorf("model error not wrapped: %v", err)
	}
}

// cachedModel answers as a response cache does when it serves the reply.
type cachedModel struct{ unknown bool }

func (m cachedModel) Generate(context.Context, llm.Request) (llm.Response, error) {
	r := llm.Response{Texts: []string{"Yes"}, CacheHits: 1}
	if m.unknown {
		r.CacheUnknownUsage = 1
	} else {
		r.CachedUsage = llm.Usage{PromptTokens: 90, CompletionTokens: 4}
	}
	return r, nil
}

// TestJudgeCachedUsage: a verdict served from the cache spends no tokens
// and says what it cost when produced, or that this is unknown.
func TestJudgeCachedUsage(t *testing.T) {
	for _, unknown := range []bool{false, true} {
		v, err := (&Judge{Model: cachedModel{unknown: unknown}}).Judge(context.Background(), "q", "Paris", []string{"Paris"})
		if err != nil {
			t.Fatal(err)
		}
		want := llm.Usage{PromptTokens: 90, CompletionTokens: 4}
		if unknown {
			want = llm.Usage{}
		}
		if !v.Correct || v.Usage != (llm.Usage{}) || v.CachedUsage != want || (v.CacheUnknownUsage == 1) != unknown {
			t.Errorf("unknown=%v: verdict %+v", unknown, v)
		}
	}
}
