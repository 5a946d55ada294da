// Package tot implements Tree-of-Traversals (Markowitz et al., 2024) and
// its single-branch variant Chain-of-Traversals over Grove's store.KG.
//
// The method keeps a local knowledge graph (package subgraph) that grows
// until a model can answer the question from it. Three parts cooperate:
//
// The action state machine. A search state is in one of four states:
// default, selecting-entities, selecting-relation and done. From default
// the model may THINK (stay in default), EXPAND_KG (go to
// selecting-entities) or ANSWER (go to done). In selecting-entities it
// picks the local entities to expand (SELECT_ENTITIES, go to
// selecting-relation); in selecting-relation it picks one relation among
// those the KG reports for them in either direction (SELECT_RELATION), the
// edges along it are fetched into the local graph, and the state returns
// to default. Each state has its own prompt (question, local graph, action
// history, current task), written after the paper's appendix F. THINK is
// not offered right after a THINK, and EXPAND_KG only when the local graph
// has an entity to expand.
//
// Initialisation. A model call lists the entity mentions of the question
// (llm.KindExtract); each mention is searched in every selected KG; a
// second call per mention picks the matching candidates (llm.KindSelect,
// at most one per KG, "none" allowed); package link, shared with the other
// methods, does this. Topic entities given with the query replace this
// step. With several KGs, every entity that enters the local
// graph, at initialisation or later, is linked into the other KGs through
// KG.SameAs, so a walk can cross from one KG into another.
//
// The tree search, as Algorithm 1 of the paper: repeatedly choose the
// unexpanded, non-terminal node of highest value (ties depth first: the
// deeper node, then the later one), sample k actions with the prompt of its state at
// the sampling temperature (2k samples for the two selection states, of
// which the first k distinct are kept; identical default-state actions are
// merged too), apply each action, and score each child with the evaluator
// at the evaluation temperature: answers with the answer-scoring prompt,
// other states with the state-scoring prompt (llm.KindScore, read with
// llm.ParseScore). The search stops as soon as an answer scores above tau;
// a default-state node at max depth may only ANSWER; after max expansions
// (or when no node is left to expand) the highest-valued answer is
// returned, or a "no answer" result when no answer was proposed. The
// result is always the highest-valued answer.
//
// The k samples of one node are one model request with N = k (the llm
// layer splits it into parallel single requests for servers that ignore
// n), and the k children are transitioned and evaluated concurrently, so
// with a model of latency L one expansion costs about 2L.
//
// Malformed model output never aborts a run: a reply without an action
// word, with no offered id, "none", or an empty answer is dropped with a
// trace warning; an evaluation without a readable "Score:" line gives the
// node the value FailedEvalValue (0) and records the error on the node; a
// relation whose edges add nothing new yields no child. Model transport
// errors, KG errors and cancellation end the run with an error and the
// partial trace.
//
// What the model sees (Grove's additions, package hood). A relation
// expansion fetches the MaxEdges edges most relevant to the question
// (lexical similarity of the far end's name, or of a mediator's contents,
// then degree) instead of the store's first ones, shares the page among
// several selected entities, and records the relation's true total: the
// graph text says "directed (61 in all, 10 shown):", the relation options
// say how many edges the graph already holds, and choosing the same
// relation again fetches the next page, so every edge is reachable. The
// relation options list those with a label first, each with its id ("R1 -
// country of citizenship (P27, 1 edge)"), then those without one, named
// by their id once ("R3 - P102 (no label in the KG) (1 edge)").
// Mediator (CVT) nodes are named by their contents, "(actor: Harrison
// Ford; character: Rick Deckard)", and their edges join the graph in the
// same expansion, so a CVT hop costs one expansion, not three. SEARCH_KG
// links a name again inside the search (the linker's select task; its
// candidates are described by their relations when they have no
// description), so a wrong or missing first link can be repaired.
//
// Unlike the reference implementation, de-duplication keeps sample order,
// answers are taken verbatim from the parsed ANSWER line, entity ids are
// matched exactly (never as substrings), a fact is stored once whichever
// direction it was fetched in, only a parsed ANSWER action makes a node
// terminal, out-of-range option numbers are rejected, and scores are read
// only from the "Score:" line.
package tot
