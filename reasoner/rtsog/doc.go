// Package rtsog implements RTSoG, Reward-guided Tree Search on Graph (Long
// et al., 2025), over Grove's store.KG: question decomposition, a
// self-critic Monte Carlo tree search (SC-MCTS) that retrieves weighted
// reasoning paths, and answer generation through a reasoning path stack.
// The policy model is reasoner.Deps.Model, the value model
// reasoner.Deps.Evaluator (the same model unless set).
//
// Stage 1, decomposition. The topic entities come from the query
// (datasets such as CWQ, WebQSP and GrailQA give Freebase MIDs) or, when
// none is given or usable, are linked from the question: the policy model
// lists the mentions (llm.KindExtract), each is searched with KG.Search
// and the policy model picks the match (llm.KindSelect), through the
// entity linking of package link that every method shares. The policy model
// then writes up to n sub-questions, one per line (llm.KindFree).
//
// Stage 2, SC-MCTS. The tree's root stands for the question; its children
// are the topic entities; every deeper node is an entity reached from its
// parent along one relation, so the nodes on the way down spell a
// reasoning path "topic -> r1 -> e1 -> r2 -> e2". A node holds its value Q
// and its visit count N. Each of the H iterations:
//
//   - Selection descends from the root by UCT, Q/N + c*sqrt(ln N(parent)/N)
//     (see UCT), among the children that still have something to expand,
//     down to a node not yet expanded. A node is a leaf, never expanded,
//     when its path has max_depth hops, when the self-critic flagged it
//     End-of-Search, when it is a literal, or when its expansion found
//     nothing; a node all of whose children are such leaves is exhausted
//     too, and the search ends early when the whole tree is.
//   - Expansion is relation exploration then entity exploration. All the
//     relations of the node's entity, in both directions, come from
//     KG.Relations; the value model keeps a variable number of them, at
//     most w (llm.KindSelect), and scores each kept one (s_r,
//     llm.KindScore). For every kept relation the tails (a page of at
//     most max_candidates, further pages on "more", see below) extend the
//     path into candidate paths, each scored by the value model (s_P,
//     llm.KindScore); the best becomes the
//     node's child along that relation and the others are remembered as
//     its alternative tails. Entities already on the path are skipped, and
//     an unlabelled tail (a Freebase CVT) is described by a few of its own
//     edges so that its path can be judged. The relation scores and all
//     candidate scores of one expansion run concurrently.
//   - Self-critic: the policy model says of every new child, concurrently,
//     whether its path already answers the question (llm.KindYesNo); "yes"
//     is the End-of-Search signal that makes the child a leaf.
//   - Evaluation gives each child Q = alpha*s_r + (1-alpha)*s_P (Value)
//     and N = 1.
//   - Backpropagation adds one visit to every node from the root to the
//     expanded node and sets each of them, bottom up, to the visit-weighted
//     mean of its children's values (Backup).
//
// Stage 3, answer generation. The K nodes of highest value give the
// weighted reasoning paths. In descending weight each path is pushed
// through the reasoning path stack: the policy model, shown the paths kept
// so far, says whether the new one helps derive the answer to the question
// or a sub-question (llm.KindYesNo), and only then is it kept. The policy
// model answers from the kept paths (llm.KindAnswer); each path is listed
// with the other tails of its last relation, so that a list answer ("which
// films did ... direct?") can be read off one path, and with the edges
// that describe its unlabelled entities. Every entity a hop reaches (and
// every alternative tail) is followed by the qualifiers of its edge, each
// statement's apart (subgraph.QualifiersText: "George Washington ->
// position held -> President of the United States (start time: 1789; end
// time: 1797)"). The answer is grounded by
// resolving its text against the entities of those paths (path nodes,
// alternative tails, members of described entities): the answer node is
// the node of the first answer entity on the highest-weighted path that
// reaches it, the answer's value that path's weight, and the support the
// edges that reach every answer entity. An answer given as an id is
// seen by the reasoning (reasoner.NameAnswer names it) when any prompt of
// the run showed that entity (a linking candidate, a topic entity, a
// scored tail or a member of its description), even one the answer
// prompt's paths no longer hold; such an answer has no node, value or
// support and is not confident. The answer is confident when it
// is grounded and the stack kept a path; when the stack keeps nothing the
// model answers from all K paths instead, without confidence.
//
// Trace. The run is recorded in the common trace format: the root (state
// "question", with the sub-questions), topic nodes ("topic") and entity
// nodes ("entity", or "end-of-search" once flagged) whose Action is the
// relation followed and whose Text is the entity; Value is Q, Visits is
// N, Order the expansion order, and Extra holds s_r, s_P, the path, the
// alternative tails, why a node is a leaf and its verdict in the path
// stack. Every model call is tagged with the node it serves (the expanded
// node for relation and path scores, the child for its End-of-Search
// check, the path's node for the stack) and every KG call is recorded.
//
// Malformed model output never aborts a run: an unreadable selection keeps
// no relation, an unreadable score is FailedScore, an unreadable
// End-of-Search or stack verdict counts as "no", an unreadable answer
// gives "no answer"; each is a trace warning. Model transport errors, KG
// errors and cancellation end the run with an error and the partial
// trace.
//
// What the model sees (package hood): a relation's tails are ranked by
// relevance to the question and sub-questions and scored one page of
// MaxCandidates at a time. When a relation has more tails than a page,
// the value model also scores "more: show the next N of TOTAL tails"
// (llm.KindScore, TaskScoreMore), shown the page's tails; when "more"
// beats every tail scored so far, the next page is scored in the same
// expansion, up to Pages pages. Paging is part of entity exploration: it
// adds no tree node and no hop, the relation still gives one child (the
// best tail of all pages read, the others its alternative tails) and
// that child's value is equation 9 as before. Mediator tails are named by
// their contents (the shared renderer), a hop onto a mediator does not
// count towards MaxDepth, and the answer prompt states each relation's
// true total ("Jerry Lewis -> directed: 13 in all (10 listed)"). When every path dies out without an
// End-of-Search, the sub-questions (or the question) are linked again once
// and the search goes on from the new topic entities.
//
// Hyper-parameters are read from reasoner.Params (see ConfigFromParams):
// subquestions (n), iterations (H), width (w), max_depth, c, alpha, paths
// (K), max_candidates, pages, temperature, eval_temperature,
// search_limit and a preset ("grailqa" sets H=18, as the paper does for
// GrailQA).
package rtsog
