// Package llm is Grove's one model layer, shared by every reasoner.
//
// A Model turns a Request (chat messages or a completion prompt, n samples,
// temperature, stop sequences, max tokens) into n texts plus token usage.
// Besides the prompt, a Request carries a structured Task (what is being
// asked, the options to choose from and the evidence as Facts, Nodes,
// EdgeTypes and PreviousActions) so that test doubles and deterministic
// policies (reasoner/lexical) can act without parsing prompt text. Real
// models ignore Task; they read the prompt.
//
// Every reasoner asks models for output in the canonical formats documented
// on the Kind constants and parses replies with the parsers in this package,
// so one parser serves real models, scripted models and the lexical policy.
package llm

import (
	"context"
	"time"
)

// Role of a chat message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Kind says what a Task asks for. The comment on each kind is the canonical
// reply format that prompts must request.
type Kind string

const (
	// KindSelect: pick up to Task.Pick options. Reply: the chosen option ids,
	// comma separated, best first ("Q42, Q5"); "none" when nothing fits.
	KindSelect Kind = "select"
	// KindAction: pick the next action among Task.Options (ids are action
	// words such as THINK, EXPAND_KG, ANSWER). Reply: the action id on the
	// first line, optionally followed by ": text" (thought or answer).
	KindAction Kind = "action"
	// KindScore: rate Task.Candidate for answering Task.Question. Reply ends
	// with a line "Score: X" with X in [0, 1].
	KindScore Kind = "score"
	// KindVote: choose the best of Task.Options. Reply ends with a line
	// "Best: ID".
	KindVote Kind = "vote"
	// KindExtract: list the entity mentions in Task.Question (or Task.Context).
	// Reply: one mention per line.
	KindExtract Kind = "extract"
	// KindAnswer: answer Task.Question from Task.Context / Task.Options.
	// Reply: "Answer: text" on the last line.
	KindAnswer Kind = "answer"
	// KindYesNo: a yes/no judgement (end-of-search checks, judges). Reply:
	// "Yes" or "No" on the first line, optionally followed by a reason.
	KindYesNo Kind = "yesno"
	// KindFree: free text (thoughts, decompositions); no structure.
	KindFree Kind = "free"
)

// Option is one choice offered to the model.
type Option struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Task is the structured context of a Request.
type Task struct {
	Kind Kind `json:"kind"`
	// Name is the reasoner step, e.g. "tot/select-relation", for traces,
	// scripted models and per-step statistics.
	Name     string   `json:"name"`
	Question string   `json:"question"`
	Context  string   `json:"context,omitempty"`
	Options  []Option `json:"options,omitempty"`
	// Pick is how many options KindSelect may choose.
	Pick int `json:"pick,omitempty"`
	// Candidate is the text scored by KindScore.
	Candidate string `json:"candidate,omitempty"`

	// The evidence in structured form, for policies that do not read
	// prose (the lexical baseline, test doubles); real models read the
	// prompt, which states the same things in words. Facts are the edges
	// the prompt shows (Context's and Candidate's), Nodes the entities a
	// reply may name by id, EdgeTypes the relations an action may follow
	// and PreviousActions the actions already taken, in order.
	Facts           []Fact    `json:"facts,omitempty"`
	Nodes           []NodeRef `json:"nodes,omitempty"`
	EdgeTypes       []string  `json:"edge_types,omitempty"`
	PreviousActions []string  `json:"previous_actions,omitempty"`
}

// Fact is one edge as the prompt shows it: display names of the subject
// and object (qualifiers may follow the object's name) and the relation's
// label, in the stored direction.
type Fact struct {
	Subject  string `json:"s"`
	Relation string `json:"r"`
	Object   string `json:"o"`
}

// NodeRef is an entity a reply may name by id.
type NodeRef struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// Request is one model call.
type Request struct {
	// Messages is the chat form; Prompt the completion form. Exactly one is
	// set; a model that supports only one form converts.
	Messages []Message `json:"messages,omitempty"`
	Prompt   string    `json:"prompt,omitempty"`

	N           int      `json:"n"`
	Temperature float64  `json:"temperature"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Stop        []string `json:"stop,omitempty"`

	Task Task `json:"task"`
}

// Usage counts tokens.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Add returns u + v.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.PromptTokens + v.PromptTokens, u.CompletionTokens + v.CompletionTokens}
}

// Response is what a model returned.
type Response struct {
	// Texts has exactly Request.N entries (N <= 0 counts as 1).
	Texts []string `json:"texts"`
	// Usage counts the tokens spent by this call: samples served from the
	// response cache spend none.
	Usage   Usage         `json:"usage"`
	Latency time.Duration `json:"latency"`
	// CacheHits is how many of Texts came from the response cache.
	CacheHits int `json:"cache_hits"`
	// CachedUsage is the usage the model reported when it produced the
	// samples served from the cache (see Cache), not spent by this call.
	// CacheUnknownUsage counts the samples served from the cache whose
	// entries record no usage (written by an older Grove, before entries kept it):
	// their tokens are unknown, not 0.
	CachedUsage       Usage `json:"cached_usage"`
	CacheUnknownUsage int   `json:"cache_unknown_usage,omitempty"`
	// CacheSources say where the samples served from the cache came from.
	CacheSources []CacheSource `json:"cache_sources,omitempty"`
	Model        string        `json:"model"`
}

// Model is a language model. Implementations are safe for concurrent use.
type Model interface {
	Generate(ctx context.Context, req Request) (Response, error)
}
