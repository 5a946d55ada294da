// Package dataset loads KGQA evaluation sets into one shape, Question, so
// that `grove eval` can run any benchmark through the same loop.
//
// # Design
//
// Every supported benchmark has its own reader that maps the file's fields
// onto Question: the English question text, the gold answer labels
// (Answers), the gold entity ids when the file has them (AnswerIDs:
// Wikidata Q-ids, Freebase MIDs), the topic entities (id -> label), a
// question type and free-form metadata. Load picks the reader from an
// explicit Format, or from the file's content through Detect: the readers
// never trust file names, only the JSON keys, CSV header or JSON Lines
// records they find. Files are read whole (benchmarks are a few MB at most)
// so that every error can name the file, the line of the offending record
// and the field, as a *Error.
//
// # Formats
//
//   - qald10: QALD-10 (qald_10.json). ID is the file's id; Type is the answer
//     kind (entity, boolean, date, number, literal, uri, mixed); Meta has
//     "sparql" and "aggregation".
//   - qald10-en: ToG's English QALD-10 subset (qald_10-en.json, no ASK
//     questions). ID is the position; topic entities from qid_topic_entity.
//   - 2wiki: 2WikiMultiHopQA: ID from _id, Type from type, Evidences from
//     evidences.
//   - musicbrainz-wikidata: the paper's CSV with columns Question, Answer and
//     Type.
//   - grbench: GRBench JSON Lines; Meta["domain"] is the file name's stem.
//   - cwq, webqsp, grailqa, simpleqa, webquestions: the Freebase sets as ToG
//     ships them (WebQSP also in its original {"Questions": [...]} form, CWQ
//     also with the original "answers" list). Topic entities are
//     topic_entity's MIDs; qid_topic_entity's QIDs, when present, are kept
//     apart as WikidataTopicEntities (for a Wikidata KG, see the eval
//     package). Entity answers give AnswerIDs (MIDs) and their names give
//     Answers. Type is CWQ's
//     compositionality_type or GrailQA's level.
//   - jsonl: one Question per line as WriteJSONL writes it, at least
//     {"id", "question", "answers"}.
//
// Positional ids are 0-based record positions.
//
// # Answers
//
// Gold answers follow the Tree-of-Traversals evaluation scripts, which is
// what the metric package's EMIn reproduces:
//
//   - Wikidata entity URIs in QALD-10 answer bindings become AnswerIDs. The
//     file has no labels for them, so their ids are also listed, space
//     separated, in Meta[MetaUnlabeled]; Resolve looks the labels up through
//     a Labeler (a KG, a label cache) and appends them to Answers. As in the
//     paper's script, ids without a label are dropped, and when none of a
//     question's ids has a label the ids themselves become the answers.
//   - booleans (ASK queries) become "Yes" or "No".
//   - dates (xsd:dateTime, or a literal shaped like one) are rendered as the
//     paper's format_date does: "1997" when the date is the 1st of January
//     (Wikidata's year precision), "April 05, 1997" otherwise (English month,
//     zero-padded day), a "BCE" suffix for negative years ("7000 BCE"), and
//     the bare year zero-padded to four digits when the date cannot be
//     represented ("3600000 BCE"). See FormatDate.
//   - numbers are written plainly: no leading "+", no trailing fractional
//     zeros ("+100" -> "100", "+242.860" -> "242.86"). See PlainNumber.
//   - every other literal and every non-Wikidata URI is kept verbatim.
//
// The same literal rendering is applied to ToG's qald_10-en answers, whose
// keys are raw SPARQL values. Duplicate answers are removed, first
// occurrence kept.
//
// One difference from the paper: its script re-ran each QALD-10 SPARQL query
// against the live Wikidata endpoint (and skipped questions whose query
// failed or returned nothing), while this package takes the answer bindings
// stored in the file, so runs are reproducible offline. One QALD-10 question
// ("Which egyptian pyramid is the tallest?") has no stored answer; callers
// should skip questions without gold answers, as the paper's script does.
//
// # Sampling
//
// Sample reproduces the Tree-of-Traversals (and ReAct) sampling exactly:
// the paper shuffles the list of question indices with Python's
// random.Random(233).shuffle and evaluates the first N. This package
// implements CPython's Mersenne Twister (MT19937 seeded through
// init_by_array, as random.seed does for an int) and CPython's shuffle
// (Fisher-Yates from the end, with _randbelow drawing getrandbits(k) and
// rejecting values >= n), so the Go sample is index-for-index the Python
// one (the tests compare it with CPython 3.11's output). Go's math/rand
// shuffles differently and is not used. The paper shuffles positions in the
// file; for a MusicBrainz CSV with blank rows, which the loader drops, the
// shuffle runs over fewer positions, so only the set of questions matches
// the paper's, and only because it takes N = 500, more than the 109
// questions.
package dataset
