package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// MergeSummary is what Merge did.
type MergeSummary struct {
	Out     string
	Results int
	// Questions is the number of distinct question ids.
	Questions int
	Methods   []string
	// TracesCopied counts trace files copied into Out.
	TracesCopied int
}

// Merge combines the results of several run directories (typically the
// shards of one run, possibly made on different machines) into
// out/results.jsonl, one result per (method, question) as Load picks
// them, copying trace files into out when they live elsewhere, and writes
// a merged manifest out/run.json. The shards' manifests must agree on the
// dataset and its format, limit, seed, graphs, topic-entity setting and
// the topic-entity ids chosen (Manifest.TopicIDs), and the model.
func Merge(out string, dirs ...string) (*MergeSummary, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("merge: no input directories")
	}
	man, err := mergeManifests(dirs)
	if err != nil {
		return nil, err
	}
	rs, err := Load(dirs...)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	sum := &MergeSummary{Out: out, Results: len(rs)}
	ids := map[string]bool{}
	merged := make([]Result, len(rs))
	for i, l := range rs {
		r := l.Result
		if !slices.Contains(sum.Methods, r.Method) {
			sum.Methods = append(sum.Methods, r.Method)
		}
		ids[r.ID] = true
		if r.Trace != "" && !sameDir(l.Dir, out) {
			rel := traceRel(r.Method, r.ID)
			if err := copyFile(l.TracePath(), filepath.Join(out, rel)); err != nil {
				return nil, fmt.Errorf("merge: %w", err)
			}
			r.Trace = rel
			sum.TracesCopied++
		}
		merged[i] = r
	}
	sum.Questions = len(ids)
	if err := writeResults(filepath.Join(out, ResultsFile), merged); err != nil {
		return nil, err
	}
	man.Methods = unionMethods(man.Methods, sum.Methods)
	man.Questions = sum.Questions
	man.Cache = NewCacheUse(merged, man.Model).orNil()
	man.Updated = time.Now().UTC()
	if err := writeManifest(filepath.Join(out, manifestName(Shard{})), man); err != nil {
		return nil, err
	}
	return sum, nil
}

// mergeManifests reads every run*.json of dirs and checks they describe
// shards of one run. The merged manifest is the first one's, with the
// format of the first that records one (see questionSet).
func mergeManifests(dirs []string) (Manifest, error) {
	var set questionSet
	for _, dir := range dirs {
		paths, err := filepath.Glob(filepath.Join(globEscape(dir), "run*.json"))
		if err != nil {
			return set.m, fmt.Errorf("merge: %w", err)
		}
		for _, p := range paths {
			m, err := ReadManifest(p)
			if err != nil {
				return set.m, fmt.Errorf("merge: %w", err)
			}
			if set.path == "" {
				m.Shard, m.QuestionsHash, m.ContentHash = "", "", ""
			}
			if ref, err := set.add(m, p, sameRun); err != nil {
				return set.m, fmt.Errorf("merge: %s and %s are not shards of one run: %w", ref, p, err)
			}
			set.m.Methods = unionMethods(set.m.Methods, m.Methods)
			if m.Started.Before(set.m.Started) {
				set.m.Started = m.Started
			}
		}
	}
	return set.m, nil
}

// questionSet is the reference the manifests of runs to merge or report
// together are checked against: the first manifest, whose format and
// topic-entity ids (when it records none: an older manifest) are those of
// the first manifest that records them. Known values are thus compared
// with each other, not only with the first manifest.
type questionSet struct {
	m          Manifest
	path       string // the first manifest's file
	formatPath string // the file whose format m has ("" while none has)
	topicPath  string // the file whose topic-entity ids m has, likewise
}

// add checks m, read from path, against the set with same and, when it
// agrees, takes its format and topic-entity ids where the set has none
// yet. On disagreement it returns the file m disagrees with.
func (s *questionSet) add(m Manifest, path string, same func(a, b Manifest) error) (string, error) {
	if s.path == "" {
		s.m, s.path = m, path
		s.formatPath, s.topicPath = pathIf(m.Format, path), pathIf(m.TopicIDs, path)
		return "", nil
	}
	if err := same(s.m, m); err != nil {
		// Every manifest added agrees with the first on all but these.
		switch {
		case s.m.Dataset != m.Dataset:
		case known2(s.m.Format, m.Format):
			return s.formatPath, err
		case known2(s.m.TopicIDs, m.TopicIDs):
			return s.topicPath, err
		}
		return s.path, err
	}
	if s.m.Format == "" && m.Format != "" {
		s.m.Format, s.m.FormatDetected, s.formatPath = m.Format, m.FormatDetected, path
	}
	if s.m.TopicIDs == "" && m.TopicIDs != "" {
		s.m.TopicIDs, s.topicPath = m.TopicIDs, path
	}
	return "", nil
}

// known2 says whether a and b are both known ("" is not) and differ.
func known2(a, b string) bool { return a != "" && b != "" && a != b }

// pathIf returns path when v is known, else "".
func pathIf(v, path string) string {
	if v == "" {
		return ""
	}
	return path
}

func sameRun(a, b Manifest) error {
	if err := sameQuestions(a, b); err != nil {
		return err
	}
	if !a.Model.Same(b.Model) {
		return fmt.Errorf("models %s and %s differ", a.Model, b.Model)
	}
	return nil
}

// sameQuestions checks that two runs asked the same questions of the same
// graphs: same dataset file and format, limit and seed, graphs and
// topic-entity setting and ids. A format or topic-entity ids "" (an
// older manifest's, which did not record them) match any; questionSet
// compares the known ones with each other.
func sameQuestions(a, b Manifest) error {
	switch {
	case a.Dataset != b.Dataset:
		return fmt.Errorf("datasets %s and %s differ", a.Dataset, b.Dataset)
	case a.Format != b.Format && a.Format != "" && b.Format != "":
		// "": an auto-detected format that an older manifest did not record.
		return fmt.Errorf("dataset formats %q and %q differ", a.Format, b.Format)
	case a.Limit != b.Limit || a.Seed != b.Seed:
		return fmt.Errorf("limit/seed %d/%d and %d/%d differ", a.Limit, a.Seed, b.Limit, b.Seed)
	case !slices.Equal(a.Graphs, b.Graphs):
		return fmt.Errorf("graphs %v and %v differ", a.Graphs, b.Graphs)
	case a.TopicEntities != b.TopicEntities:
		return fmt.Errorf("topic entity settings differ")
	case a.TopicIDs != b.TopicIDs && a.TopicIDs != "" && b.TopicIDs != "":
		// "": a manifest written before the choice was recorded.
		return fmt.Errorf("topic entity ids %s and %s differ (the questions were asked with other ids)", a.TopicIDs, b.TopicIDs)
	}
	return nil
}

// Comparable checks that the runs in dirs can be reported together: their
// manifests (run*.json) must name the same dataset, format, limit and
// seed, graphs and topic-entity setting and ids (the models may differ: a
// report compares them). Runs of different datasets would pool unrelated
// questions, and results of equal question ids would silently replace
// each other.
func Comparable(dirs ...string) error {
	var set questionSet
	for _, dir := range dirs {
		paths, err := filepath.Glob(filepath.Join(globEscape(dir), "run*.json"))
		if err != nil {
			return err
		}
		slices.Sort(paths)
		for _, p := range paths {
			m, err := ReadManifest(p)
			if err != nil {
				return err
			}
			if ref, err := set.add(m, p, sameQuestions); err != nil {
				return fmt.Errorf("%s and %s are runs of different question sets (%w): report them separately", ref, p, err)
			}
		}
	}
	return nil
}

func unionMethods(a, b []string) []string {
	out := slices.Clone(a)
	for _, m := range b {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

func sameDir(a, b string) bool {
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}

// writeResults writes a results file atomically.
func writeResults(path string, rs []Result) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, r := range rs {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return fmt.Errorf("write results %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write results %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync results %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write results %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}
