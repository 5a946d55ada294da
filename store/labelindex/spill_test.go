package labelindex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// randomPairs returns n pairs mixing the cases a spilled build must keep
// exact: duplicate pairs, ids repeated under many keys, keys cut at
// MaxKeyLen, non-ASCII labels and labels that normalize to "".
func randomPairs(r *rand.Rand, n int) []pair {
	words := []string{"alien", "Alien!", "blade runner", "Café", "cafe", "Straße", "東京", "Ωmega", "a", "ab", "abc"}
	empty := []string{"", "!!!", "  ", "\u0301"}
	pairs := make([]pair, n)
	for i := range pairs {
		id := uint64(r.IntN(50))
		if r.IntN(4) == 0 {
			id = r.Uint64() >> r.IntN(64) // large and small ids
		}
		var l string
		switch k := r.IntN(10); {
		case k < 4:
			l = words[r.IntN(len(words))]
		case k < 6:
			l = fmt.Sprintf("%s %d", words[r.IntN(len(words))], r.IntN(200))
		case k == 6:
			// Longer than MaxKeyLen: cut, so distinct labels share a key.
			l = strings.Repeat(string(rune('a'+r.IntN(3))), MaxKeyLen-2) + fmt.Sprint(r.IntN(1000))
		case k == 7:
			l = empty[r.IntN(len(empty))]
		default:
			l = strings.Repeat("é", 1+r.IntN(MaxKeyLen/2+10)) // multi-byte runes around the cut
		}
		pairs[i] = pair{l, id}
	}
	return pairs
}

// tempFiles lists the files in dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// dirBytes is the total size of the files in dir.
func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	for _, name := range tempFiles(t, dir) {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// buildWith builds pairs with b, checks b's counts against a plain
// Builder, and returns the blob.
func buildWith(t *testing.T, b *Builder, pairs []pair) []byte {
	t.Helper()
	for _, p := range pairs {
		b.Add(p.label, p.id)
	}
	if err := b.Err(); err != nil {
		t.Fatalf("spill: %v", err)
	}
	var buf bytes.Buffer
	if err := b.Build(&buf); err != nil {
		t.Fatalf("Build: %v", err)
	}
	return buf.Bytes()
}

func TestSpilledBuildMatchesMemory(t *testing.T) {
	tests := []struct {
		name     string
		budget   int64
		pairs    int
		manyRuns bool // the budget must force more than one run
	}{
		{"tiny budget", 512, 400, true},
		{"small budget", 8 << 10, 3000, true},
		{"budget never reached", 64 << 20, 500, false},
		{"empty", 512, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(25) {
				pairs := randomPairs(rand.New(rand.NewPCG(seed, 11)), tt.pairs)
				dir := t.TempDir()
				sb := NewSpillingBuilder(SpillOptions{Dir: dir, Budget: tt.budget})
				got := buildWith(t, sb, pairs)
				want := build(t, pairs...)
				if !bytes.Equal(got, want) {
					t.Fatalf("seed %d: spilled blob (%d bytes, %d runs) differs from the in-memory blob (%d bytes)",
						seed, len(got), sb.Runs(), len(want))
				}
				if tt.manyRuns != (sb.Runs() > 1) {
					t.Fatalf("seed %d: %d runs, want more than one: %v", seed, sb.Runs(), tt.manyRuns)
				}
				if sb.Len() != NewBuilderOf(pairs).Len() {
					t.Fatalf("seed %d: Len %d, want %d", seed, sb.Len(), NewBuilderOf(pairs).Len())
				}
				if n := len(tempFiles(t, dir)); n != sb.Runs() {
					t.Fatalf("seed %d: %d temporary files before Close, want the %d runs", seed, n, sb.Runs())
				}
				if got, want := sb.RunBytes(), dirBytes(t, dir); got != want {
					t.Fatalf("seed %d: RunBytes %d, the run files hold %d bytes", seed, got, want)
				}
				if err := sb.Close(); err != nil {
					t.Fatal(err)
				}
				if left := tempFiles(t, dir); len(left) != 0 {
					t.Fatalf("seed %d: temporary files left after Close: %v", seed, left)
				}
			}
		})
	}
}

// NewBuilderOf returns an in-memory Builder of pairs.
func NewBuilderOf(pairs []pair) *Builder {
	b := NewBuilder()
	for _, p := range pairs {
		b.Add(p.label, p.id)
	}
	return b
}

// TestSpilledBuildTwice checks that a spilled Builder stays usable after
// Build, like an in-memory one.
func TestSpilledBuildTwice(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	first, second := randomPairs(r, 300), randomPairs(r, 300)
	sb := NewSpillingBuilder(SpillOptions{Dir: t.TempDir(), Budget: 1 << 10})
	defer sb.Close()
	if got, want := buildWith(t, sb, first), build(t, first...); !bytes.Equal(got, want) {
		t.Fatal("first build differs")
	}
	if got, want := buildWith(t, sb, second), build(t, append(first, second...)...); !bytes.Equal(got, want) {
		t.Fatal("second build differs")
	}
}

func TestSpilledMergeAndCompact(t *testing.T) {
	for seed := range uint64(15) {
		r := rand.New(rand.NewPCG(seed, 5))
		oldPairs, addPairs := randomPairs(r, 300), randomPairs(r, 600)
		old := open(t, oldPairs...)
		segAdd, segDel := NewBuilderOf(randomPairs(r, 30)), NewBuilderOf(randomPairs(r, 30))
		var sb bytes.Buffer
		if err := WriteSegment(&sb, segAdd, segDel); err != nil {
			t.Fatal(err)
		}
		seg, err := OpenSegment(sb.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		ops := []struct {
			name string
			run  func(w *bytes.Buffer, add *Builder) error
		}{
			{"Merge", func(w *bytes.Buffer, add *Builder) error { return Merge(w, old, add) }},
			{"Compact", func(w *bytes.Buffer, add *Builder) error { return NewView(old, seg).Compact(w, add) }},
		}
		for _, op := range ops {
			var want, got bytes.Buffer
			if err := op.run(&want, NewBuilderOf(addPairs)); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			spilled := NewSpillingBuilder(SpillOptions{Dir: dir, Budget: 700})
			for _, p := range addPairs {
				spilled.Add(p.label, p.id)
			}
			if err := op.run(&got, spilled); err != nil {
				t.Fatalf("%s: %v", op.name, err)
			}
			if spilled.Runs() < 2 || !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("seed %d: %s with %d runs differs from the in-memory %s", seed, op.name, spilled.Runs(), op.name)
			}
			spilled.Close()
			if left := tempFiles(t, dir); len(left) != 0 {
				t.Fatalf("%s: temporary files left: %v", op.name, left)
			}
		}
	}
}

// TestCompactSpillingMatchesCompact: a compaction without additions whose
// memory is bounded by explicit options writes what the in-memory one
// writes and leaves no temporary file.
func TestCompactSpillingMatchesCompact(t *testing.T) {
	for seed := range uint64(5) {
		r := rand.New(rand.NewPCG(seed, 11))
		old := open(t, randomPairs(r, 500)...)
		var sb bytes.Buffer
		if err := WriteSegment(&sb, NewBuilderOf(randomPairs(r, 40)), NewBuilderOf(randomPairs(r, 40))); err != nil {
			t.Fatal(err)
		}
		seg, err := OpenSegment(sb.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		var want, got bytes.Buffer
		if err := NewView(old, seg).Compact(&want, nil); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := NewView(old, seg).CompactSpilling(context.Background(), &got, SpillOptions{Dir: dir, Budget: 700}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("seed %d: CompactSpilling differs from Compact", seed)
		}
		if left := tempFiles(t, dir); len(left) != 0 {
			t.Fatalf("temporary files left: %v", left)
		}
	}
}

func TestSpilledSegmentMatchesMemory(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	addPairs, delPairs := randomPairs(r, 400), randomPairs(r, 400)
	var want, got bytes.Buffer
	if err := WriteSegment(&want, NewBuilderOf(addPairs), NewBuilderOf(delPairs)); err != nil {
		t.Fatal(err)
	}
	opts := SpillOptions{Dir: t.TempDir(), Budget: 600}
	add, del := NewSpillingBuilder(opts), NewSpillingBuilder(opts)
	defer add.Close()
	defer del.Close()
	for i := range addPairs {
		add.Add(addPairs[i].label, addPairs[i].id)
		del.Add(delPairs[i].label, delPairs[i].id)
	}
	if err := WriteSegment(&got, add, del); err != nil {
		t.Fatal(err)
	}
	if add.Runs() < 2 || del.Runs() < 2 || !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("spilled segment (%d and %d runs) differs", add.Runs(), del.Runs())
	}
}

// failingFile fails every write once more than limit bytes were written.
type failingFile struct {
	*os.File
	limit, n int
}

func (f *failingFile) Write(p []byte) (int, error) {
	if f.n+len(p) > f.limit {
		return 0, errors.New("injected write error")
	}
	f.n += len(p)
	return f.File.Write(p)
}

// failAfter returns a create hook whose nth file (from 1) matching
// pattern fails after limit bytes; nth 0 never fails.
func failAfter(pattern string, nth, limit int) func(dir, p string) (tempFile, error) {
	seen := 0
	return func(dir, p string) (tempFile, error) {
		f, err := os.CreateTemp(dir, p)
		if err != nil || !strings.HasPrefix(p, pattern) {
			return f, err
		}
		if seen++; seen != nth {
			return f, nil
		}
		return &failingFile{File: f, limit: limit}, nil
	}
}

func TestSpillErrorsRemoveTempFiles(t *testing.T) {
	pairs := randomPairs(rand.New(rand.NewPCG(1, 2)), 2000)
	tests := []struct {
		name       string
		pattern    string
		nth, limit int
		inAdd      bool // the error shows while adding (a run), not in Build
	}{
		{"first run", "labelindex-run-", 1, 0, true},
		{"third run", "labelindex-run-", 3, 10, true},
		{"section", "labelindex-section-", 1, 100, false},
		{"no failure", "labelindex-run-", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := SpillOptions{Dir: dir, Budget: 2 << 10, create: failAfter(tt.pattern, tt.nth, tt.limit)}
			b := NewSpillingBuilder(opts)
			for _, p := range pairs {
				b.Add(p.label, p.id)
			}
			if (b.Err() != nil) != tt.inAdd {
				t.Fatalf("Err after Add = %v, want an error: %v", b.Err(), tt.inAdd)
			}
			err := b.Build(&bytes.Buffer{})
			fails := tt.nth > 0
			if fails != (err != nil) {
				t.Fatalf("Build = %v, want an error: %v", err, fails)
			}
			if fails && (!strings.Contains(err.Error(), "injected") || !strings.Contains(err.Error(), dir)) {
				t.Errorf("error %q does not name the cause and the temporary file", err)
			}
			if n := len(tempFiles(t, dir)); n != b.Runs() {
				t.Errorf("%d temporary files after Build, want the %d runs", n, b.Runs())
			}
			b.Close()
			if left := tempFiles(t, dir); len(left) != 0 {
				t.Errorf("temporary files left after Close: %v", left)
			}
		})
	}
}

func TestSpilledBuildCancelled(t *testing.T) {
	dir := t.TempDir()
	b := NewSpillingBuilder(SpillOptions{Dir: dir, Budget: 1 << 10})
	defer b.Close()
	for i, l := range genLabels(5000, 4) {
		b.Add(l, uint64(i))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var buf bytes.Buffer
	if err := b.BuildContext(ctx, &buf); !errors.Is(err, context.Canceled) || buf.Len() != 0 {
		t.Fatalf("BuildContext after cancel = %v with %d bytes written", err, buf.Len())
	}
	if n := len(tempFiles(t, dir)); n != b.Runs() {
		t.Fatalf("%d temporary files after a cancelled build, want the %d runs", n, b.Runs())
	}
}

func TestCorruptRunIsAnError(t *testing.T) {
	dir := t.TempDir()
	b := NewSpillingBuilder(SpillOptions{Dir: dir, Budget: 256})
	defer b.Close()
	for i, l := range genLabels(200, 5) {
		b.Add(l, uint64(i))
	}
	if b.Runs() == 0 {
		t.Fatal("no run written")
	}
	if err := os.WriteFile(b.runs[0], []byte{0, 200, 'x'}, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.Build(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), b.runs[0]) {
		t.Fatalf("Build over a truncated run = %v, want an error naming it", err)
	}
}

// TestBuilderSortsAgainAfterAdd: a Builder streamed once (and so sorted)
// sorts again when pairs are added before the next stream.
func TestBuilderSortsAgainAfterAdd(t *testing.T) {
	b := NewBuilder()
	b.Add("zeta", 1)
	b.Add("beta", 2)
	var first bytes.Buffer
	if err := Merge(&first, nil, b); err != nil {
		t.Fatal(err)
	}
	b.Add("alpha", 3)
	var got, want bytes.Buffer
	if err := Merge(&got, nil, b); err != nil {
		t.Fatal(err)
	}
	if err := Merge(&want, nil, NewBuilderOf([]pair{{"zeta", 1}, {"beta", 2}, {"alpha", 3}})); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatal("a pair added after a stream is out of order")
	}
}
