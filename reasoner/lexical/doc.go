// Package lexical is Grove's lexical policy: a deterministic keyword
// baseline that answers model requests without any language model. It
// exists so that `grove ask`, `serve` and `eval` work offline on a fresh
// machine and so that tests can run every reasoner end to end; it is never
// used silently (cmd/grove warns on standard error, and every trace, eval
// manifest and report names it through Describe, with NotLLM set).
//
// Policy implements llm.Model. It reads only the request's structured
// llm.Task, never the prompt: the question, options and candidate as text,
// and the evidence as Facts, Nodes, EdgeTypes and PreviousActions, which
// the reasoners fill next to the prose they show a real model. Replies
// follow the canonical format of each llm.Kind, so the reasoners parse them
// with the same parsers as a real model's. The rules per kind are listed in
// lexical.go; answer chains over the facts in evidence.go; the Graph-CoT
// and Tree-of-Traversals action rules in action.go.
package lexical
