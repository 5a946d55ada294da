// Package grounded implements the graph-grounded reasoning strategies of
// "Grounding LLM Reasoning with Knowledge Graphs" (Amayuelas et al., 2025):
// every step of a Chain-, Tree- or Graph-of-Thoughts is tied to the
// knowledge graph through one of two interactions. Register adds six
// methods, interaction x strategy:
//
//	agent-cot   agent-tot   agent-got
//	explore-cot explore-tot explore-got
//
// # States and steps
//
// A state is s = [q, G', z_1..z_i]: the question, the knowledge retrieved
// so far (G', a subgraph.Graph of triples plus the feature values read)
// and the chain of steps. A step is a thought plus its grounding.
//
// The agent (section 4.2.1, Graph-CoT) samples "Thought i:" (a KindFree
// call), then asks for "Action i:" (a KindAction call whose options are the
// actions of package action) and carries the action out on the KG:
// RetrieveNode[keyword] searches every graph of the query (leaving out
// properties, see link.WithoutProperties), NodeFeature
// reads KG.Features, NeighbourCheck follows KG.Edges (adding the edges to
// G'), NodeDegree calls KG.Degree and Finish[answer] ends the chain. Node
// arguments are ids or names of nodes the chain has seen; edge types and
// features are matched by id, label or inverse label, ignoring case and
// '_'. A reply that is no valid action, or an action the graph cannot carry
// out (unknown node, edge type or feature), is not an error: the step's
// observation says what was wrong and how to write it, and the step counts
// against the budget like any other.
//
// The automatic exploration (section 4.2.2, Algorithm 1) samples a thought
// (the Search Thought prompt), lists the entities it mentions (KindExtract;
// at the first step the question's as well, since GRBench has no topic
// entities), links each to the best search candidate of each graph
// (package link, without a model choice, as in the paper), and
// explores from the seen entities for up to depth rounds: each round visits
// every unvisited seen entity concurrently, keeps the relevant attributes,
// relations and tail entities (KindSelect prune calls, asked only for
// lists longer than the attribute, relation or entity width, and for a
// cut tail list, which offers the next page), adds the tails to the seen
// entities, and ends early when the End? check
// (KindYesNo) says the triples suffice. End? is asked after every depth,
// as in Algorithm 1, also after one that found nothing; the one deliberate
// deviation is that a check whose prompt is byte-identical to the one the
// exploration last asked (nothing it shows changed) is skipped: that one
// said No, and at the evaluation temperature (0 by default) the same
// prompt gets the same reply. The step ends with a KindAction
// choice between "ANSWER: text" and THINK (go on).
//
// # Graph definition
//
// Both prompts carry a definition of the graph, which package schema
// derives from the store (node types from grove:nodeType, edge types from
// relation labels, features from literal-valued relations) by sampling
// nodes through KG calls; it is cached per graph size in the Reasoner.
//
// # Strategies
//
// All three strategies run the same breadth-first loop over levels, one
// step per level, for at most steps levels (n = 10 by default):
//
//   - CoT follows one chain (k = t = 1) without an evaluator.
//   - ToT samples k thoughts per open state of the level (one request with
//     N = k; identical thoughts are merged), grounds all children
//     concurrently, ranks the children plus the level's answered states with
//     the state evaluator and keeps the best t. Score rates each state on
//     its own (KindScore, "Score: X" in [0, 1]); Select has the model
//     choose the t states that go on (section 4.1.2), one vote round at a
//     time: a round asks for votes for the best of the states not chosen
//     yet (KindVote, Votes samples in one request) and chooses the one with
//     the most (the earliest on a tie), and rounds go on until t are
//     chosen or the rest all fit in t. So a level makes at most t vote
//     requests, and one when it has t states or fewer. A state's value is
//     its share of the votes of the last round it was in; a round without
//     a valid vote ends the choice, the rest keeping the level's order.
//   - GoT is ToT plus one aggregation per level: the two best open states
//     are merged (their chains, with a shared prefix once, and the union of
//     their knowledge) and the Graph of Thought Merge prompt gives the next
//     thought of the merged chain, which is grounded like any other. The
//     merged node has both states as parents.
//
// The search stops when the best-ranked state of a level is an answer (a
// Finish or ANSWER step). When the budget runs out, or no state can be
// continued, the final answer is asked from the best state's chain
// (KindAnswer) and recorded as a child node; such an answer is not
// Confident, and "unknown" counts as no answer. A Finish or ANSWER step's
// answer is Confident only when the KG supports it: the whole answer, or
// every item of a list, occurs as whole words in an entity name or value of
// the chain's retrieved triples and attributes, or is the id of an entity
// at an end of one of those triples (an answer given before any KG
// evidence, or naming only a search result, is found but not Confident).
// An id answer is then named by reasoner.NameAnswer, which takes the
// chain's graph (its triples and the entities its searches found) for
// what the reasoning saw.
//
// # Trace
//
// Every state is a trace node (package trace): the root holds the
// question and the graph definition; step nodes carry the interaction as
// State, the action word (NeighbourCheck, EXPLORE, ANSWER, INVALID,
// MERGE ...) as Action, the thought (or the answer) as Text, the value of
// the evaluator, and the thought, action and observation in Extra. Model
// and KG calls are tagged with the node they serve; the calls of one level
// (thought sampling, grounding, scoring) run concurrently.
//
// # What the model sees
//
// NeighbourCheck lists the NeighborLimit neighbours most relevant to the
// question (package hood) with the true total, "(1-30 of 133, ranked by
// relevance to the question; repeat NeighbourCheck[...] for the next
// ones)", and repeating it lists the next page. RetrieveNode describes
// candidates without a description by their relations, so the agent can
// tell two nodes of one name apart and replace a wrong topic node. The
// exploration's tail options are ranked the same way, NeighborLimit per
// page, and state the total; when a list is cut, "number of <relation>"
// joins the attributes, so counts stay answerable, and the options end
// with "[NEXT] next page: show the next N of TOTAL tail entities". Pruning
// options are written "[key] text": tails keyed by their rank numbers
// ("[12] (actor: Harrison Ford; character: Rick Deckard)", never by a node
// id), attributes by their names, relations as "R1"; the reply names the
// keys. Choosing
// NEXT (besides or instead of tails) reads the next page within the same
// depth, and the model chooses from it in one more prune call: the kept
// tails of all pages stay within EntityWidth, every page's call counts
// against ExploreCalls (a page the budget cannot pay for is not read, and
// the observation says so), the page's prompt says which page it is
// ("page 2: 11-13 of 13, ...") and the observation lists the pages read
// ("pages: Jerry Lewis -> directed: read page 2 of the tails (11-13 of
// 13, ...)"). Whether to read the next page is always the model's choice:
// a cut page is never kept whole without a call. Mediator (CVT) nodes appear by their contents
// everywhere; their contents join the graph with the hop that reached
// them, and the exploration goes on from the entities they join, so a CVT
// hop is one depth. The graph definition is completed from relation
// summaries over up to 500 nodes per type (package schema).
//
// Statements keep their qualifiers: a NeighbourCheck neighbour and a
// NodeFeature value carry those of their own statement
// (subgraph.QualifiersText: "President of the United States (Q11696)
// (start time: 30 April 1789; end time: 4 March 1797)"), a fact of several
// statements numbers them ("statement 1 of 2: ..."), and a feature value
// two statements give is two values, one per statement ("0.901 (point in
// time: 2011); 0.901 (point in time: 2012)"); qualifiers of different
// statements are never merged; the exploration's attribute options and
// attributes give values the same way. Relations and features without a
// label are named by their id followed by subgraph.NoLabel, and an action
// may name them so; an attribute option without a label is keyed by its
// id ("[P18] (no label in the KG): Flag.svg"). The exploration does not
// offer the features of hidden relations (external ids such as a VIAF
// ID, which flood a Wikidata item's attributes), and an option whose
// values pass 200 characters shows those that fit with their total ("…
// (12 values in all, 3 shown)").
//
// Every list a prompt carries is bounded, and a cut list says how many it
// left out ("… and 1,234 more triples"). The Knowledge Triples and Entity
// Attributes sections of the thought, End?, decision and final-answer
// prompts hold at most 30 triples and 15 attributes: those sharing the
// most words with the question, then the latest (the current step's). An
// exploration step's observation lists at most 10 of its finds, with the
// total, and at most 3 page notes. A chain shown in a prompt gives an
// exploration step as a count ("Observation 2: found 23 new triples and
// attributes"): the facts follow the chain once, bounded, so no prompt
// lists a triple twice. The Score prompt shows at most 30 facts of its
// chain; a Select vote or a Merge prompt 40 over its chains (at least 3
// each), and a vote shows the steps every choice starts with once. With
// thoughts of at most 600 runes and chains of at most Steps steps, the
// prompts of the film sample's "Which other films were directed by the
// director of Pulp Fiction?" stay under 16,000 characters.
//
// Following a type relation (rdf:type, grove:nodeType, the Freebase
// sample's type and type.object.type, Wikidata's P31) keeps the class as a
// fact of the entity ("Blade Runner -> type -> /film/film") but does not
// add it to the seen entities: a class such as /film/film, with 30,000
// films, is never explored as a head entity.
//
// Model text a chain keeps goes back into every later prompt, so it is
// clipped to 600 runes (its whole sentences that fit, else its words,
// marked "…"): a thought, the argument of an agent action, an ANSWER.
//
// The exploration's work is bounded: an entity is explored once per run,
// one depth visits at most Frontier entities, and one exploration makes at
// most ExploreCalls model calls; when they are spent it stops and its
// observation says where. The budget is the chain's own: an entity two
// chains reach at once is explored by one of them, and when that one's
// budget runs out the other explores the entity with its own budget.
//
// # The lexical policy
//
// lexical.Policy reads only Task fields, which every call fills (Question,
// Options, and the retrieved attributes and triples as Facts). It drives the exploration: it extracts the question's
// capitalised mentions, prunes by term overlap, says Yes to End? once an
// answer chain of the triples covers the question, and answers with the
// end of that chain ("Who directed Blade Runner?" -> Ridley Scott on the
// film sample). It drives the agent too, because the action task also
// carries, as Nodes, EdgeTypes and PreviousActions, the nodes the chain can
// name by id, the edge types of the graph definition and the actions
// already taken: it
// retrieves the question's mentions, checks their neighbours along the
// edge types the question names (walking on from the end of a chain that
// does not yet cover the question), then finishes with the chain's answer.
//
// Model transport errors, KG errors and cancellation end the run with the
// partial trace; malformed replies never do (they become warnings,
// observations or unrated states).
package grounded
