// Package baseline implements the model-only baselines the
// Tree-of-Traversals paper compares against, on the same model layer as
// the KG methods.
//
// # Methods
//
// "zeroshot" asks the model the question directly, once (llm.KindAnswer,
// task "zeroshot/answer"), and reads the reply with llm.ParseAnswer.
//
// "cot" is two-stage Chain-of-Thought (Wei et al., 2022, in the zero-shot
// form of Kojima et al.): a first call asks for step-by-step reasoning
// without the final answer (llm.KindFree, task "cot/reason"); a second
// call shows the question and that reasoning and asks "so the answer is"
// (llm.KindAnswer, task "cot/answer", the reasoning in Task.Context). The
// answer is read with llm.ParseAnswer; because a model continuing "So the
// answer is" often writes the bare answer, a reply without an "Answer:"
// line falls back to its first non-empty line, with a trace warning.
//
// Neither method shows its model the knowledge graph. An answer that
// looks like an entity id ("Q64", "/en/ridley_scott") can only come from
// the model's memory, so it is settled by reasoner.NameModelAnswer: it is
// flagged with a trace warning on the answer node, and, when the caller
// passes a KG (Deps.KG, optional), checked against the query's graphs and
// named with its label when it is in them; it is never confident. With no
// KG the id cannot be checked, so only an unmistakable KG id (a Freebase
// MID or key, a Wikidata id, an IRI, a prefixed id, a dotted Freebase
// relation id; llm.KGIDLike) is flagged, and a name that merely looks
// like a code ("B12", "COVID-19", "R2-D2") is an ordinary answer. That
// lookup is the only KG call a baseline makes. Both record a small trace: a
// root node holding the question, a THINK node with the reasoning (cot
// only) and a terminal ANSWER node, plus the model calls. An answer is
// Found unless it is a non-answer (see IsNonAnswer). Parameters:
// "temperature" (default 0) and "max_tokens" (default 0: the model's
// default) for the reasoning or the zero-shot answer, "answer_max_tokens"
// (default 64) for the cot answer call.
//
// # Fallback
//
// The paper falls back to Chain-of-Thought when a method finds no answer
// or a non-answer; that composition ("tot->cot") is the registry's
// (reasoner.Registry.Build, reasoner.Fallback), so it works with any pair
// of methods in `grove ask`, the server and `grove eval` alike.
package baseline
