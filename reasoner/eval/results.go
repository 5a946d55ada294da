package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/store/dirlock"
)

// Results files are JSON Lines, one Result per line, appended and synced
// one record at a time, so a crash loses at most the record being
// written. Readers accept a torn last line (no final newline, or invalid
// JSON) and ignore it; every other bad line is an error naming the file
// and line.

// ResultsFile is the results file name of an unsharded run; a shard's is
// "results.shard-i-of-n.jsonl".
const ResultsFile = "results.jsonl"

func resultsName(s Shard) string { return "results" + s.suffix() + ".jsonl" }

// ReadResults reads a results file. torn is the byte offset where a torn
// last line starts (the file's length when there is none).
func ReadResults(path string) (rs []Result, torn int64, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("read results: %w", err)
	}
	return parseResults(path, data)
}

func parseResults(path string, data []byte) ([]Result, int64, error) {
	var out []Result
	off, line := int64(0), 0
	for off < int64(len(data)) {
		line++
		rest := data[off:]
		end := bytes.IndexByte(rest, '\n')
		if end < 0 {
			// No final newline: the write of this record was cut short.
			return out, off, nil
		}
		text := bytes.TrimSpace(rest[:end])
		next := off + int64(end) + 1
		if len(text) > 0 {
			var r Result
			err := json.Unmarshal(text, &r)
			if err == nil {
				err = r.check()
			}
			if err != nil {
				if next == int64(len(data)) {
					return out, off, nil
				}
				return nil, 0, fmt.Errorf("%s:%d: bad result record: %w", path, line, err)
			}
			out = append(out, r)
		}
		off = next
	}
	return out, off, nil
}

// resultLog appends results to a file, syncing each record.
type resultLog struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// ErrRunInUse is returned (wrapped) by Run when another run, in this
// process or another, is writing the same results file: two runs
// appending to one file would mix their results (of different models,
// say) under one manifest, or run the same questions twice.
var ErrRunInUse = errors.New("the results file is being written by another run")

// errLocked is lockFile's refusal.
var errLocked = errors.New("locked")

// openLog opens path for appending and locks it for the life of the log,
// so that one run at a time writes it (ErrRunInUse otherwise). With
// resume, the records already there are returned with the offset where a
// torn last line starts (cut is called to cut it off); without it, a
// non-empty file is an error.
func openLog(path string, resume bool) (*resultLog, []Result, int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("open results file: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, nil, 0, fmt.Errorf("%w: %s is held by %s; wait for that run to end, or write to another "+
				"output directory (--out)", ErrRunInUse, path, dirlock.Describe(dirlock.Holders(path), "another process"))
		}
		return nil, nil, 0, fmt.Errorf("lock %s: %w", path, err)
	}
	l := &resultLog{f: f, path: path}
	st, err := f.Stat()
	if err != nil {
		l.close()
		return nil, nil, 0, fmt.Errorf("results file: %w", err)
	}
	if st.Size() == 0 {
		return l, nil, 0, nil
	}
	if !resume {
		l.close()
		return nil, nil, 0, fmt.Errorf("%s already has results: resume the run (--resume) or choose another output directory", path)
	}
	prev, torn, err := ReadResults(path)
	if err != nil {
		l.close()
		return nil, nil, 0, err
	}
	return l, prev, torn, nil
}

// cut cuts the file at off, the start of a torn last line (nothing when
// off is the file's length). The caller holds the lock (openLog).
func (l *resultLog) cut(off int64) error {
	st, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("results file: %w", err)
	}
	if off >= st.Size() {
		return nil
	}
	if err := l.f.Truncate(off); err != nil {
		return fmt.Errorf("cut the torn last line of %s: %w", l.path, err)
	}
	return nil
}

// append writes r as one line and syncs the file. The caller holds mu.
func (l *resultLog) append(r Result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode result %s/%s: %w", r.Method, r.ID, err)
	}
	b = append(b, '\n')
	if _, err := l.f.Write(b); err != nil {
		return fmt.Errorf("append to %s: %w", l.path, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", l.path, err)
	}
	return nil
}

func (l *resultLog) close() error {
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", l.path, err)
	}
	return nil
}

// ResultFiles lists the results files of dir (results.jsonl and shard
// files), sorted.
func ResultFiles(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(globEscape(dir), "results*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("list results in %s: %w", dir, err)
	}
	slices.Sort(paths)
	return paths, nil
}

// globEscape escapes glob metacharacters in a directory name.
func globEscape(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(s)
}

// Loaded is one result with the directory its trace path is relative to.
type Loaded struct {
	Result
	Dir string
}

// TracePath is the trace file's path, "" when there is none.
func (l Loaded) TracePath() string {
	if l.Trace == "" {
		return ""
	}
	if filepath.IsAbs(l.Trace) {
		return l.Trace
	}
	return filepath.Join(l.Dir, l.Trace)
}

// Load reads the results files of the given directories and returns one
// result per (model, method, question): a later record replaces an
// earlier one, except that an error record never replaces a successful
// one. The model of a results file is the one its manifest names
// (run.json for results.jsonl, run.shard-i-of-n.json for a shard's). When
// the files are of more than one model, every result's Method is suffixed
// with its model's name, "cot (Qwen2.5-7B)", so that results of one method
// under different models are kept, and reported, apart. Two records of
// one key whose question texts differ come from different datasets, and
// Load refuses them. Results are ordered by question index, then method
// name.
func Load(dirs ...string) ([]Loaded, error) {
	type file struct {
		dir, path string
		model     llm.Info
	}
	var files []file
	var models []llm.Info
	for _, dir := range dirs {
		paths, err := ResultFiles(dir)
		if err != nil {
			return nil, err
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("no results*.jsonl in %s", dir)
		}
		for _, p := range paths {
			info := resultsModel(p)
			if !slices.ContainsFunc(models, info.Same) {
				models = append(models, info)
			}
			files = append(files, file{dir, p, info})
		}
	}
	label := func(info llm.Info) string {
		for _, o := range models {
			if o.Name == info.Name && !o.Same(info) {
				return info.String() // two settings of one model name
			}
		}
		return info.Name
	}
	byKey := map[string]Loaded{}
	from := map[string]string{}
	var order []string
	for _, f := range files {
		rs, _, err := ReadResults(f.path)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if !r.Found {
				// Results written before non-answers scored 0 may
				// credit them (an "unknown" containing a gold "No").
				zero(r.Scores)
			}
			if len(models) > 1 {
				r.Method += " (" + label(f.model) + ")"
			}
			k := r.Key()
			old, seen := byKey[k]
			if !seen {
				order = append(order, k)
			} else if old.Question != r.Question {
				return nil, fmt.Errorf("question id %q of method %s is a different question in %s (%q) and %s (%q): "+
					"these are results of different datasets", r.ID, r.Method, from[k], old.Question, f.path, r.Question)
			}
			if !seen || r.Error == "" || old.Error != "" {
				byKey[k] = Loaded{Result: r, Dir: f.dir}
				from[k] = f.path
			}
		}
	}
	out := make([]Loaded, 0, len(order))
	for _, k := range order {
		out = append(out, byKey[k])
	}
	slices.SortStableFunc(out, func(a, b Loaded) int {
		if a.Index != b.Index {
			return a.Index - b.Index
		}
		return strings.Compare(a.Method, b.Method)
	})
	return out, nil
}

// resultsModel is the model named by the manifest of a results file
// (results.jsonl: run.json; results.shard-i-of-n.jsonl:
// run.shard-i-of-n.json), or an "unknown" model when there is none.
func resultsModel(path string) llm.Info {
	suffix := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "results"), ".jsonl")
	m, err := ReadManifest(filepath.Join(filepath.Dir(path), "run"+suffix+".json"))
	if err != nil || m.Model.Name == "" {
		return llm.Info{Name: "unknown model", Provider: "unknown"}
	}
	return m.Model
}
