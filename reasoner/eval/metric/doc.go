// Package metric scores KGQA predictions against gold answers.
//
// # Normalisation
//
// Every string metric compares normal forms (Normalize), which reproduce the
// normalize_answer function of the Tree-of-Traversals evaluation scripts
// (itself SQuAD's, with casefold instead of lower): Unicode case folding,
// deletion of the 32 ASCII punctuation characters of Python's
// string.punctuation, deletion of the words "a", "an" and "the", and
// collapsing of white space. Only ASCII punctuation is removed, as in the
// paper, so "O’Neal" (curly apostrophe) and "O'Neal" normalise differently;
// the tests pin the behaviour on such cases against CPython's output.
//
// # Metrics
//
//   - EMIn, Exact Match Included (Tree-of-Traversals, §3.2): a gold answer
//     is found when its normal form occurs anywhere in the prediction's; with
//     several gold answers the score is the fraction found, over their
//     distinct normal forms. One deliberate difference from the script: golds
//     whose normal form is empty (a gold "A" or "The") are ignored, because
//     the empty string is contained in every prediction. The QALD script's
//     extra credit for a gold number spelled out in the prediction (inflect's
//     number_to_words) is not reproduced: the paper's definition does not
//     include it, and the script's own normalisation strips the hyphen of
//     "twenty-one", so it misses most compound numbers anyway.
//     A second difference: a boolean gold ("Yes" or "No") must be a whole
//     word of the prediction, not a substring, because "no" is inside
//     "cannot", "unknown" and "not": as a substring test every give-up reply
//     would be credited on every gold "No" question.
//   - EM: the prediction's normal form equals a gold's.
//   - F1: SQuAD's token F1, best over the golds.
//   - Hits1: EM of the top-ranked prediction (also for ids).
//   - RougeL: LCS-based F-measure on normalised tokens (Lin, 2004), the
//     rule-based metric GRBench and the graph-grounded reasoning paper report;
//     no stemming is applied.
//   - Judge: an LLM judge (GPT4Score): the model is asked, in the canonical
//     KindYesNo format of reasoner/llm, whether the prediction matches the
//     gold answer, and its reply is parsed with llm.ParseYesNo.
//
// All metrics return a score in [0, 1] and 0 when there is no usable gold
// answer; callers that average over a dataset should skip such questions
// (QALD-10 has one) rather than count them as failures.
package metric
