package metric

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/grove-kg/grove/reasoner/llm"
)

// JudgeTaskName is the Task.Name of judge requests, for scripted models and
// per-step statistics.
const JudgeTaskName = "eval/judge"

// defaultJudgeTokens bounds the judge's reply: a verdict and one sentence.
const defaultJudgeTokens = 64

// Judge asks a language model whether a prediction answers a question with
// the gold answer: the GPT4Score metric of GRBench and the graph-grounded
// reasoning paper, where the score of a run is the share of "Yes" verdicts.
// The zero value is not usable; set Model.
type Judge struct {
	Model llm.Model
	// AllGolds makes a prediction correct only when it gives every gold
	// answer (list questions). By default any one gold answer suffices
	// (alternative answers, as in WebQuestions).
	AllGolds bool
	// MaxTokens bounds the reply (default 64).
	MaxTokens int
	// Logger receives one debug record per verdict (default slog.Default()).
	Logger *slog.Logger
}

// Verdict is the judge's decision on one prediction.
type Verdict struct {
	Correct bool `json:"correct"`
	// Reason is the model's justification (or why no model was asked).
	Reason string `json:"reason,omitempty"`
	// Reply is the raw model reply ("" when no model was asked).
	Reply string `json:"reply,omitempty"`
	// Usage counts the tokens spent asking; CachedUsage what a reply
	// served from the response cache cost when it was produced, and
	// CacheUnknownUsage is 1 when it came from a cache entry that did not
	// record it (see llm.Response).
	Usage             llm.Usage `json:"usage"`
	CachedUsage       llm.Usage `json:"cached_usage"`
	CacheUnknownUsage int       `json:"cache_unknown_usage,omitempty"`
}

// Score is 1 for a correct verdict and 0 otherwise.
func (v Verdict) Score() float64 {
	if v.Correct {
		return 1
	}
	return 0
}

// Judge asks the model for a verdict on pred. An empty prediction is judged
// incorrect without a model call. A reply that is not Yes/No returns an
// error wrapping llm.ErrUnparseable, so the caller may ask again.
func (j *Judge) Judge(ctx context.Context, question, pred string, golds []string) (Verdict, error) {
	if j.Model == nil {
		return Verdict{}, errors.New("judge: no model")
	}
	golds = nonEmpty(golds)
	if len(golds) == 0 {
		return Verdict{}, fmt.Errorf("judge %q: no gold answer", question)
	}
	if strings.TrimSpace(pred) == "" {
		return Verdict{Reason: "empty prediction"}, nil
	}
	resp, err := j.Model.Generate(ctx, j.request(question, pred, golds))
	if err != nil {
		return Verdict{}, fmt.Errorf("judge %q: %w", question, err)
	}
	if len(resp.Texts) == 0 {
		return Verdict{}, fmt.Errorf("judge %q: model returned no text", question)
	}
	reply := resp.Texts[0]
	yes, reason, err := llm.ParseYesNo(reply)
	if err != nil {
		return Verdict{Reply: reply, Usage: resp.Usage, CachedUsage: resp.CachedUsage, CacheUnknownUsage: resp.CacheUnknownUsage},
			fmt.Errorf("judge %q: %w", question, err)
	}
	v := Verdict{Correct: yes, Reason: reason, Reply: reply, Usage: resp.Usage, CachedUsage: resp.CachedUsage,
		CacheUnknownUsage: resp.CacheUnknownUsage}
	j.logger().DebugContext(ctx, "judge verdict", "question", question, "prediction", pred, "correct", yes)
	return v, nil
}

func (j *Judge) logger() *slog.Logger {
	if j.Logger != nil {
		return j.Logger
	}
	return slog.Default()
}

// request builds the judge's model call: a chat prompt in the canonical
// KindYesNo reply format, with the question in Task.Question, the
// prediction in Task.Candidate and the gold answers in Task.Context.
func (j *Judge) request(question, pred string, golds []string) llm.Request {
	maxTokens := j.MaxTokens
	if maxTokens <= 0 {
		maxTokens = defaultJudgeTokens
	}
	goldText := strings.Join(golds, "; ")
	return llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You grade answers to questions strictly and briefly."},
			{Role: llm.RoleUser, Content: j.prompt(question, pred, goldText)},
		},
		N:           1,
		Temperature: 0,
		MaxTokens:   maxTokens,
		Task: llm.Task{
			Kind:      llm.KindYesNo,
			Name:      JudgeTaskName,
			Question:  question,
			Context:   "Gold answer: " + goldText,
			Candidate: pred,
		},
	}
}

func (j *Judge) prompt(question, pred, goldText string) string {
	rule := "If there are several gold answers, any one of them is enough."
	if j.AllGolds {
		rule = "If there are several gold answers, the output must give all of them."
	}
	var b strings.Builder
	b.WriteString("Decide whether the model output correctly answers the question, using the gold answer as the truth.\n\n")
	fmt.Fprintf(&b, "Question: %s\nGold answer: %s\nModel output: %s\n\n", question, goldText, pred)
	b.WriteString("The output is correct when it states the gold answer or an equivalent of it (another name, spelling, " +
		"number or date format for the same thing), even inside a longer sentence. " + rule + " " +
		"The output is wrong when it refuses, says it cannot find the answer, hedges between candidates, " +
		"or contradicts the gold answer.\n\n")
	b.WriteString(`Reply "Yes" or "No" on the first line, then one short sentence giving the reason.`)
	return b.String()
}

// nonEmpty drops blank gold answers.
func nonEmpty(golds []string) []string {
	out := make([]string, 0, len(golds))
	for _, g := range golds {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return out
}
