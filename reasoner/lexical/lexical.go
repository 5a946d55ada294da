package lexical

// The lexical policy: a deterministic keyword baseline used when no model is
// configured. It is not a language model and never pretends to be one: it
// reads only Request.Task, replies in the canonical format of Task.Kind, and
// names itself ModelName in every Response.
//
// Text is compared as sets of terms: lowercased word tokens (letters and
// digits), stop words and one-letter tokens removed, lightly stemmed
// ("directed", "director" and "directors" all become "direct"; "movies" and
// "movie" both "movi").
//
// Answer chains over the evidence's edges (see evidence.go) serve
// KindAction, llm.KindAnswer and KindYesNo.
//
// Rules per kind:
//
//   - KindSelect: each option (its Text, or its ID when Text is empty) is
//     scored 2*|terms shared with Question| + |terms shared only with
//     Context|; ties go to the option whose terms are covered the most, then
//     to the earlier option. The top Task.Pick (default 1) options with a
//     positive score are replied, "none" if no option scores.
//   - KindAction: ANSWER from the best answer chain of the Task's Facts,
//     else EXPAND*, else THINK (see lexicalAction); for the Graph-CoT
//     actions, RetrieveNode[mention], then NeighbourCheck[node, edge type],
//     then Finish[answer] (see lexicalGraphCoT).
//   - KindScore: "Score: x" with x the fraction of the question's terms that
//     the Candidate contains.
//   - KindVote: "Best: ID" for the option that KindSelect would rank first
//     (the first option when nothing overlaps).
//   - KindExtract: capitalised runs ("Blade Runner", "Lord of the Rings")
//     and quoted strings in the Question (Context when the Question is
//     empty), leading question words dropped; "none" when there are none.
//   - KindAnswer: "Answer: a, b" listing the ids of the Options not
//     mentioned in the Question; without Options, the ends of the best
//     answer chain of the Task's Facts, else "unknown".
//   - KindYesNo: when the Task has Facts, "Yes" only when
//     the best answer chain is complete: it starts at an entity the
//     question names, follows relations the question names to an entity
//     it does not name, and covers every question term the evidence
//     mentions as often as the question uses it (one use fewer for the
//     answer-type word after "which"/"what"). So "Which films did the
//     director of Blade Runner direct?" is not answered by "Blade Runner
//     -> directed by -> Ridley Scott" (one directing hop for two) but is by
//     "... -> Ridley Scott -> directed -> Gladiator". Evidence without edges
//     (prose) gets "Yes" when it contains at least half of the question's
//     terms. A reason follows on the next line.
//   - KindFree (and an empty Kind): the question's content words.

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/grove-kg/grove/reasoner/llm"
)

// ModelName is Response.Model for every lexical-policy response.
const ModelName = "lexical-baseline (not an LLM)"

// yesNoThreshold is the share of question terms KindYesNo needs for "Yes".
const yesNoThreshold = 0.5

// Policy is the deterministic keyword policy. The zero value is ready to
// use and safe for concurrent use.
type Policy struct{}

// Generate replies to req.Task with N identical texts.
func (Policy) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return llm.Response{}, fmt.Errorf("lexical policy: %w", err)
	}
	text, err := lexicalReply(req.Task)
	if err != nil {
		return llm.Response{}, fmt.Errorf("lexical policy, task %q: %w", req.Task.Name, err)
	}
	texts := make([]string, max(1, req.N))
	for i := range texts {
		texts[i] = text
	}
	return llm.Response{Texts: texts, Latency: time.Since(start), Model: ModelName}, nil
}

func lexicalReply(t llm.Task) (string, error) {
	switch t.Kind {
	case llm.KindSelect:
		return lexicalSelect(t), nil
	case llm.KindAction:
		return lexicalAction(t)
	case llm.KindScore:
		return lexicalScore(t), nil
	case llm.KindVote:
		return lexicalVote(t)
	case llm.KindExtract:
		return lexicalExtract(t), nil
	case llm.KindAnswer:
		return lexicalAnswer(t), nil
	case llm.KindYesNo:
		return lexicalYesNo(t), nil
	case llm.KindFree, "":
		return lexicalFree(t), nil
	}
	return "", fmt.Errorf("unknown task kind %q", t.Kind)
}

// ---------------------------------------------------------------------------
// Terms

type termSet map[string]struct{}

// stopWords are ignored when comparing texts.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the of in on at to for from by with about as into onto
		and or but nor not no yes is are was were be been being am do does did done has have had having
		what which who whom whose when where why how that this these those it its he she they them him
		his her hers their theirs i me my we our you your us there here than then so if can could would
		should will shall may might must also any all some such other same name named many much more
		most very just only both each between during after before tell give list find please s t`) {
		m[w] = true
	}
	return m
}()

// questionWords start questions and are dropped from extracted mentions.
var questionWords = map[string]bool{"who": true, "what": true, "which": true, "when": true, "where": true,
	"why": true, "how": true, "whom": true, "whose": true, "is": true, "are": true, "was": true,
	"were": true, "did": true, "do": true, "does": true, "name": true, "list": true, "give": true,
	"tell": true, "in": true, "on": true, "at": true, "for": true, "from": true, "of": true}

// words splits s into lowercased letter/digit runs, accents removed
// ("Amélie" and "Amelie" are one word, as in the KG's label search).
func words(s string) []string {
	return strings.FieldsFunc(foldMarks(strings.ToLower(s)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// foldMarks removes combining marks after canonical decomposition (NFD).
func foldMarks(s string) string {
	ascii := true
	for i := 0; i < len(s) && ascii; i++ {
		ascii = s[i] < utf8.RuneSelf
	}
	if ascii {
		return s
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// terms returns the stemmed content words of s.
func terms(s string) termSet {
	set := termSet{}
	for _, w := range words(s) {
		if utf8.RuneCountInString(w) > 1 && !stopWords[w] {
			set[stem(w)] = struct{}{}
		}
	}
	return set
}

func overlap(a, b termSet) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	n := 0
	for t := range a {
		if _, ok := b[t]; ok {
			n++
		}
	}
	return n
}

// stem is a light suffix stripper (a small subset of Porter's rules), used
// on both sides of every comparison so only consistency matters.
func stem(w string) string {
	if len(w) < 4 || strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
		return w
	}
	w = stripPlural(w)
	for _, suf := range []string{"ing", "ed", "er", "or"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = undouble(w[:len(w)-len(suf)])
			break
		}
	}
	if len(w) > 3 && (strings.HasSuffix(w, "y") || strings.HasSuffix(w, "e")) {
		if w[len(w)-1] == 'y' {
			return w[:len(w)-1] + "i"
		}
		return w[:len(w)-1]
	}
	return w
}

func stripPlural(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "i"
	case strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "zes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

// undouble turns a doubled final consonant into one ("starr" -> "star").
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// ---------------------------------------------------------------------------
// Select, vote, score

type rankedOption struct {
	idx      int
	score    int
	coverage float64
}

// rankOptions orders options by lexical relevance to question and context.
func rankOptions(t llm.Task) []rankedOption {
	q, c := terms(t.Question), terms(t.Context)
	ranked := make([]rankedOption, len(t.Options))
	for i, o := range t.Options {
		text := o.Text
		if strings.TrimSpace(text) == "" {
			text = o.ID
		}
		ot := terms(text)
		inQ, inC := 0, 0
		for term := range ot {
			if _, ok := q[term]; ok {
				inQ++
			} else if _, ok := c[term]; ok {
				inC++
			}
		}
		r := rankedOption{idx: i, score: 2*inQ + inC}
		if len(ot) > 0 {
			r.coverage = float64(inQ+inC) / float64(len(ot))
		}
		ranked[i] = r
	}
	rankByScore(ranked, func(r rankedOption) (int, float64) { return r.score, r.coverage })
	return ranked
}

// rankByScore sorts items by score, then share, both descending, keeping
// the order of equal items.
func rankByScore[T any](items []T, key func(T) (score int, share float64)) {
	slices.SortStableFunc(items, func(a, b T) int {
		sa, fa := key(a)
		sb, fb := key(b)
		if sa != sb {
			return sb - sa
		}
		return cmp.Compare(fb, fa)
	})
}

func lexicalSelect(t llm.Task) string {
	pick := max(1, t.Pick)
	var ids []string
	for _, r := range rankOptions(t) {
		if r.score == 0 || len(ids) == pick {
			break
		}
		ids = append(ids, t.Options[r.idx].ID)
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

func lexicalVote(t llm.Task) (string, error) {
	if len(t.Options) == 0 {
		return "", fmt.Errorf("vote task has no options")
	}
	return "Best: " + t.Options[rankOptions(t)[0].idx].ID, nil
}

func lexicalScore(t llm.Task) string {
	q, c := terms(t.Question), terms(t.Candidate)
	x := 0.0
	if len(q) > 0 {
		x = float64(overlap(q, c)) / float64(len(q))
	}
	return fmt.Sprintf("The candidate shares %d of %d question terms.\nScore: %.2f", overlap(q, c), len(q), x)
}

func lexicalFree(t llm.Task) string {
	var content []string
	seen := map[string]bool{}
	for _, w := range words(t.Question) {
		if utf8.RuneCountInString(w) > 1 && !stopWords[w] && !seen[w] {
			seen[w] = true
			content = append(content, w)
		}
	}
	if len(content) == 0 {
		return "Lexical baseline: the question has no content words."
	}
	return "Lexical baseline: the question is about " + strings.Join(content, ", ") + "."
}

// ---------------------------------------------------------------------------
// Answer

// mentioned reports whether option o is named in the question: its id as a
// whole token, or all terms of its text.
func mentioned(o llm.Option, question string, q termSet) bool {
	if len(llm.MatchOptions(question, []llm.Option{{ID: o.ID}})) > 0 {
		return true
	}
	ot := terms(o.Text)
	return len(ot) > 0 && overlap(ot, q) == len(ot)
}

func lexicalAnswer(t llm.Task) string {
	q := terms(t.Question)
	var ids []string
	for _, o := range t.Options {
		if !mentioned(o, t.Question, q) {
			ids = append(ids, o.ID)
		}
	}
	if len(ids) > 0 {
		return "Answer: " + strings.Join(ids, ", ")
	}
	if len(t.Options) == 0 {
		if cand, ok := answerCandidate(t); ok {
			return "Answer: " + cand
		}
	}
	return "Answer: unknown"
}

// ---------------------------------------------------------------------------
// Extract

// connectors may join capitalised words inside one mention.
var connectors = map[string]bool{"of": true, "the": true, "de": true, "del": true, "la": true,
	"le": true, "du": true, "da": true, "di": true, "von": true, "van": true, "der": true, "&": true}

// quoted matches "…", “…” and '…' (the latter not inside a word).
var quoted = regexp.MustCompile(`"([^"]+)"|“([^”]+)”|(?:^|[\s(])'([^']+)'(?:$|[\s,.?!;:)])`)

func lexicalExtract(t llm.Task) string {
	src := t.Question
	if strings.TrimSpace(src) == "" {
		src = t.Context
	}
	if out := extractMentions(src); len(out) > 0 {
		return strings.Join(out, "\n")
	}
	return "none"
}

// extractMentions returns the quoted strings and capitalised runs of src,
// without duplicates (case-insensitive).
func extractMentions(src string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(m string) {
		m = strings.TrimSpace(m)
		if m != "" && !seen[strings.ToLower(m)] {
			seen[strings.ToLower(m)] = true
			out = append(out, m)
		}
	}
	rest := quoted.ReplaceAllStringFunc(src, func(q string) string {
		sm := quoted.FindStringSubmatch(q)
		add(sm[1] + sm[2] + sm[3])
		return " , "
	})
	for _, m := range capitalisedRuns(rest) {
		add(m)
	}
	return out
}

// capitalisedRuns returns runs of capitalised words in s, joined by
// connector words, with leading question words dropped.
func capitalisedRuns(s string) []string {
	var runs []string
	var cur, pending []string
	flush := func() {
		for len(cur) > 0 && questionWords[strings.ToLower(cur[0])] {
			cur = cur[1:]
		}
		if len(cur) > 0 && !(len(cur) == 1 && cur[0] == "I") {
			runs = append(runs, strings.Join(cur, " "))
		}
		cur, pending = nil, nil
	}
	for _, tok := range strings.Fields(s) {
		w := strings.TrimLeft(tok, "([{\"'“‘")
		core := strings.TrimRight(w, ",.?!;:)]}\"'”’")
		endsRun := strings.ContainsAny(w[len(core):], ",.?!;:")
		if c, ok := cutPossessive(core); ok {
			core, endsRun = c, true
		}
		switch {
		case core == "":
			flush()
		case isCapitalised(core) || (len(cur) > 0 && hasDigit(core)):
			cur = append(cur, pending...)
			cur, pending = append(cur, core), nil
		case len(cur) > 0 && connectors[strings.ToLower(core)]:
			pending = append(pending, core)
		default:
			flush()
		}
		if endsRun {
			flush()
		}
	}
	flush()
	return runs
}

// cutPossessive removes a trailing "'s" or "’s".
func cutPossessive(w string) (string, bool) {
	for _, suf := range []string{"'s", "’s"} {
		if strings.HasSuffix(w, suf) && len(w) > len(suf) {
			return w[:len(w)-len(suf)], true
		}
	}
	return w, false
}

func isCapitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

func hasDigit(w string) bool {
	return strings.IndexFunc(w, unicode.IsDigit) >= 0
}

// Provider is llm.Info.Provider of the lexical policy.
const Provider = "lexical"

// Describe names the policy as what it is: a keyword baseline, not an LLM.
func (Policy) Describe() llm.Info {
	return llm.Info{Name: ModelName, Provider: Provider, NotLLM: true}
}
