package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/eval/dataset"
	"github.com/grove-kg/grove/reasoner/llm"
)

// Manifest describes a run; it is written next to the results as
// run.json (run.shard-i-of-n.json for a shard) and checked on resume, so
// a resumed run cannot silently mix different question sets or settings.
type Manifest struct {
	Dataset string `json:"dataset,omitempty"`
	// Format is the dataset's format, given or, with FormatDetected,
	// detected from the file ("" for questions given in code, and in
	// manifests written before detected formats were recorded).
	Format         string `json:"format,omitempty"`
	FormatDetected bool   `json:"format_detected,omitempty"`
	Limit          int    `json:"limit,omitempty"`
	Seed           int64  `json:"seed"`
	Shard          string `json:"shard,omitempty"`
	// Questions is the number of questions evaluated (in this shard) and
	// QuestionsHash a hash of their ids in order.
	Questions     int    `json:"questions"`
	QuestionsHash string `json:"questions_hash"`
	// ContentHash fingerprints the questions' ids, texts and gold answers
	// (labels and ids) in order, so that a resume on a dataset whose
	// content changed is refused. Manifests written before it existed lack
	// it; resuming them is allowed with a warning.
	ContentHash string `json:"questions_content_hash,omitempty"`
	// Skipped counts the questions dropped for having no gold answer.
	Skipped int      `json:"skipped,omitempty"`
	Graphs  []string `json:"graphs,omitempty"`
	// KG describes the store the run read (Config.KG).
	KG            string `json:"kg,omitempty"`
	TopicEntities bool   `json:"topic_entities,omitempty"`
	// TopicIDs is the topic-entity ids the questions were asked with,
	// TopicIDsFreebase or TopicIDsWikidata, when the dataset gives both
	// (chosen once for the whole sample, so every shard of a run agrees);
	// "" otherwise, and in manifests written before the choice was
	// recorded.
	TopicIDs string                     `json:"topic_ids,omitempty"`
	Methods  []string                   `json:"methods"`
	Params   map[string]reasoner.Params `json:"params,omitempty"`
	// Model names the model that answered (llm.Describe of Deps.Model,
	// endpoint host redacted) and Judge the LLM judge's, when one scored;
	// Grove is the Grove version that ran.
	Model llm.Info  `json:"model"`
	Judge *llm.Info `json:"judge,omitempty"`
	// Cache says how many of the results' samples the response cache
	// served, what they cost when produced and where they came from
	// (absent when it served none); it is updated when a run ends.
	Cache   *CacheUse `json:"cache,omitempty"`
	Grove   string    `json:"grove_version"`
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
}

func manifestName(s Shard) string { return "run" + s.suffix() + ".json" }

// hashIDs fingerprints the evaluated questions.
func hashIDs(qs []dataset.Question) string {
	h := sha256.New()
	for _, q := range qs {
		h.Write([]byte(q.ID))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// hashContent fingerprints the evaluated questions' ids, texts and gold
// answers.
func hashContent(qs []dataset.Question) string {
	h := sha256.New()
	field := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	for _, q := range qs {
		field(q.ID)
		field(q.Question)
		for _, a := range q.Answers {
			field(a)
		}
		h.Write([]byte{1})
		for _, a := range q.AnswerIDs {
			field(a)
		}
		h.Write([]byte{2})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// contentDiffs names the questions whose text or gold answers differ from
// those recorded in the previous results (at most five, then a count).
func contentDiffs(prev []Result, qs []dataset.Question) []string {
	byID := make(map[string]dataset.Question, len(qs))
	for _, q := range qs {
		byID[q.ID] = q
	}
	var out []string
	seen := map[string]bool{}
	n := 0
	for _, r := range prev {
		q, ok := byID[r.ID]
		if !ok || seen[r.ID] {
			continue
		}
		seen[r.ID] = true
		var what []string
		if q.Question != r.Question {
			what = append(what, fmt.Sprintf("text %q (was %q)", q.Question, r.Question))
		}
		if !slices.Equal(q.Answers, r.Gold) {
			what = append(what, fmt.Sprintf("gold answers %q (were %q)", q.Answers, r.Gold))
		}
		if !slices.Equal(q.AnswerIDs, r.GoldIDs) {
			what = append(what, fmt.Sprintf("gold ids %q (were %q)", q.AnswerIDs, r.GoldIDs))
		}
		if len(what) == 0 {
			continue
		}
		if n++; n <= 5 {
			out = append(out, fmt.Sprintf("question %s: %s", r.ID, strings.Join(what, ", ")))
		}
	}
	if n > 5 {
		out = append(out, fmt.Sprintf("and %d more questions", n-5))
	}
	return out
}

// ReadManifest reads a manifest file.
func ReadManifest(path string) (Manifest, error) {
	var m Manifest
	data, err := os.ReadFile(path)
	if err != nil {
		return m, fmt.Errorf("read manifest: %w", err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("read manifest %s: %w", path, err)
	}
	return m, nil
}

// writeManifest writes m to path atomically.
func writeManifest(path string, m Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	return nil
}

// updateManifest records the cache use of a finished run in the manifest
// at path.
func updateManifest(path string, cache CacheUse) error {
	m, err := ReadManifest(path)
	if err != nil {
		return fmt.Errorf("update manifest: %w", err)
	}
	m.Cache = cache.orNil()
	m.Updated = time.Now().UTC()
	return writeManifest(path, m)
}

// reconcile checks the manifest of a previous run in the same place
// against the new one and returns the manifest to write: the new settings
// with the union of the methods and the first start time.
//
// The question contents (texts and gold answers) must be those of the
// previous run: qs are the questions now and prev the results recorded so
// far, which name the questions that changed. A manifest without a
// content hash (written by an older Grove) is accepted with a warning.
func reconcile(path string, m Manifest, qs []dataset.Question, prev []Result) (Manifest, []string, error) {
	old, err := ReadManifest(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil, nil
	}
	if err != nil {
		return m, nil, err
	}
	var diffs, warnings []string
	if old.QuestionsHash != m.QuestionsHash {
		diffs = append(diffs, fmt.Sprintf("questions (%d questions, hash %s, were %d, hash %s: check dataset, limit, seed and shard)",
			m.Questions, m.QuestionsHash, old.Questions, old.QuestionsHash))
	} else if old.ContentHash == "" {
		warnings = append(warnings, fmt.Sprintf("the manifest %s predates question content hashes: "+
			"the question texts and gold answers cannot be checked against the previous run's", path))
	} else if old.ContentHash != m.ContentHash {
		what := contentDiffs(prev, qs)
		if len(what) == 0 {
			what = []string{fmt.Sprintf("content hash %s, was %s", m.ContentHash, old.ContentHash)}
		}
		diffs = append(diffs, "question texts or gold answers (the dataset's content, or the KG labels of its "+
			"answers, changed): "+strings.Join(what, "; "))
	}
	if !slices.Equal(old.Graphs, m.Graphs) {
		diffs = append(diffs, fmt.Sprintf("graphs %v (were %v)", m.Graphs, old.Graphs))
	}
	if old.TopicEntities != m.TopicEntities {
		diffs = append(diffs, fmt.Sprintf("topic entities %v (were %v)", m.TopicEntities, old.TopicEntities))
	}
	if old.TopicIDs != "" && m.TopicIDs != "" && old.TopicIDs != m.TopicIDs {
		diffs = append(diffs, fmt.Sprintf("topic entity ids %s (were %s: the graphs' entities changed)", m.TopicIDs, old.TopicIDs))
	}
	if old.Model.Name != "" && !old.Model.Same(m.Model) {
		diffs = append(diffs, fmt.Sprintf("model %s (was %s)", describeModel(m.Model, old.Model), describeModel(old.Model, m.Model)))
	}
	if old.KG != "" && m.KG != "" && old.KG != m.KG {
		diffs = append(diffs, fmt.Sprintf("knowledge graph store %s (was %s)", m.KG, old.KG))
	}
	switch {
	case old.Judge == nil && m.Judge == nil:
	case old.Judge == nil:
		diffs = append(diffs, fmt.Sprintf("judge %s (the run so far had none: its answers were not judged)", m.Judge))
	case m.Judge == nil:
		diffs = append(diffs, fmt.Sprintf("no judge (was %s: resume with --judge)", old.Judge))
	case !old.Judge.Same(*m.Judge):
		diffs = append(diffs, fmt.Sprintf("judge %s (was %s)", describeModel(*m.Judge, *old.Judge), describeModel(*old.Judge, *m.Judge)))
	}
	diffs = append(diffs, paramDiffs(old, m)...)
	if len(diffs) > 0 {
		return m, nil, fmt.Errorf("cannot resume the run in %s: settings changed: %s", filepath.Dir(path), strings.Join(diffs, "; "))
	}
	for _, name := range old.Methods {
		if !slices.Contains(m.Methods, name) {
			m.Methods = append(m.Methods, name)
		}
	}
	for name, p := range old.Params {
		if _, ok := m.Params[name]; !ok {
			if m.Params == nil {
				m.Params = map[string]reasoner.Params{}
			}
			m.Params[name] = p
		}
	}
	m.Started = old.Started
	return m, warnings, nil
}

// describeModel describes a for a message comparing it with b: its name,
// provider and endpoint, and its settings (Params) when those are all that
// differ.
func describeModel(a, b llm.Info) string {
	if a.String() != b.String() {
		return a.String()
	}
	p, _ := json.Marshal(a.Params)
	return fmt.Sprintf("%s with settings %s", a, p)
}

// paramDiffs lists the methods, used by both runs, whose parameters
// differ.
func paramDiffs(old, cur Manifest) []string {
	both := map[string]bool{}
	for _, n := range baseNames(old.Methods) {
		both[n] = slices.Contains(baseNames(cur.Methods), n)
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(both)) {
		if !both[name] {
			continue
		}
		o, c := old.Params[name], cur.Params[name]
		if len(o) == 0 && len(c) == 0 {
			continue
		}
		a, _ := json.Marshal(o)
		b, _ := json.Marshal(c)
		if string(a) != string(b) {
			out = append(out, fmt.Sprintf("parameters of %s %s (were %s)", name, b, a))
		}
	}
	return out
}

// baseNames lists the registered method names used by specs.
func baseNames(specs []string) []string {
	var out []string
	for _, s := range specs {
		p, f, err := reasoner.ParseSpec(s)
		if err != nil {
			continue
		}
		for _, n := range []string{p, f} {
			if n != "" && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}
