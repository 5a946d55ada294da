// Package sim studies the search of the KG reasoners without a language
// model: Oracle is an llm.Model that knows each question's gold path and
// makes the right choice with probability P, and Run compares methods
// (Chain- against Tree-of-Traversals by default) as P varies, the paper's
// claim being that tree search recovers from mistakes a chain cannot undo.
//
// # Gold paths
//
// A Gold is a question's answers and its path as hops: the From entities,
// the relation text as the method shows it (the relation's label in the
// walked direction), and the To entities. FromPath walks a path of the
// film demo questions ("path": [entity, relation, "~relation", ...]; read
// with ReadPaths) in the KG; FromEvidences turns 2WikiMultiHopQA
// evidences (subject, relation, object labels) into hops.
//
// # What the oracle understands
//
// The oracle reads only Request.Task (Kind, Name, Question, Context,
// Options, Pick, Candidate), never the prompt text. It looks the question
// up in its gold set (an unknown question is an error) and reads the
// local graph from Task.Context or Task.Candidate in the structured form
// Tree-of-Traversals gives there: an "Entities: a; b" line and
// "subject -> relation -> object" lines. A hop is reached when one of its
// To entities not met on an earlier hop is shown.
//
//   - KindExtract: the topic entities' labels, one per line.
//   - KindSelect (entity linking, entity and relation selection): the
//     options that continue the path: for the hop named by an "[hop N]"
//     tag in Task.Context (the oracle writes one into its EXPAND_KG goals,
//     which Tree-of-Traversals passes to its selection tasks), else for the
//     deepest hop that matches, the options naming the hop's From entities
//     (by id or label), or else the option whose label is the hop's
//     relation; at most Task.Pick. With probability 1-P one wrong option
//     instead, when there is one. With no matching option, a random one.
//   - KindAction (THINK / EXPAND_KG / ANSWER): ANSWER with the gold answers
//     shown when the graph shows one (or reached every hop), else
//     EXPAND_KG "[hop N] find the <relation> of <entities>" for the next
//     hop, else (only ANSWER offered) a guess. With probability 1-P one of
//     the other offered actions: a THINK, an aimless EXPAND_KG, or ANSWER
//     with a wrong entity shown in the graph ("unknown" when none).
//   - KindScore: for answer evaluations (a Task.Name containing
//     "answer"), the EM-in of the Candidate's first line against the gold
//     answers; for states, 0.25 + 0.5 x (hops reached / hops) + 0.15 x the
//     judgement of the last action in the Candidate's history (+1 when an
//     EXPAND_KG targets the next hop, a SELECT_ENTITIES names its From
//     entities or a SELECT_RELATION is a gold relation; -1 when they do
//     not; 0 for thoughts). Gaussian noise of deviation Noise is added and
//     the result clamped to [0, 1]: "Score: X".
//   - KindVote: "Best: ID" of the option with the best EM-in (random with
//     probability 1-P).
//   - KindYesNo: "Yes" when the Candidate contains a gold answer, flipped
//     with probability 1-P.
//   - KindAnswer: the gold answers shown in Task.Context (a wrong shown
//     entity with probability 1-P); with no KG context (the cot and
//     zeroshot baselines) the gold answers with probability Recall, else
//     "unknown".
//   - KindFree: a sentence naming the path's relations.
//
// # Determinism
//
// Each sample's randomness comes from a PCG seeded with a hash of the
// oracle's seed, the Task fields and the sample index, so replies do not
// depend on call order or concurrency, identical states get identical
// values, and a chain and a tree facing the same state with the same seed
// receive the same first sample. Usage counts words as tokens.
package sim
