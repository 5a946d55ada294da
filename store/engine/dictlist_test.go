package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"
)

// segs makes a list of segments of the given entry counts (term bytes:
// entries*8, so weights follow the counts).
func segs(counts ...int64) dictList {
	var out dictList
	for i, n := range counts {
		out = append(out, dictSegment{path: fmt.Sprint(i), entries: n, bytes: n * 8})
	}
	return out
}

func TestSplitDict(t *testing.T) {
	for _, tc := range []struct {
		name  string
		segs  dictList
		parts int
		want  [][]int64 // entries of the segments of each part
	}{
		{"empty dictionary", nil, 2, nil},
		{"one term", segs(1), 2, [][]int64{{1}}},
		{"one part asked", segs(5, 5, 5), 1, [][]int64{{5, 5, 5}}},
		{"zero parts asked", segs(5, 5), 0, [][]int64{{5, 5}}},
		{"even halves", segs(10, 10, 10, 10), 2, [][]int64{{10, 10}, {10, 10}}},
		{"even thirds", segs(4, 4, 4, 4, 4, 4), 3, [][]int64{{4, 4}, {4, 4}, {4, 4}}},
		{"all terms in one segment", segs(1000), 4, [][]int64{{1000}}},
		{"skew: one huge segment first", segs(1000, 1, 1, 1), 2, [][]int64{{1000}, {1, 1, 1}}},
		{"skew: one huge segment last", segs(1, 1, 1, 1000), 2, [][]int64{{1, 1, 1, 1000}}},
		{"skew: huge segment in the middle", segs(10, 10, 1000, 10), 3, [][]int64{{10, 10, 1000}, {10}}},
		{"more parts than segments", segs(3, 3), 8, [][]int64{{3}, {3}}},
		{"uneven tail", segs(8, 8, 8, 8, 8, 8, 8, 1), 2, [][]int64{{8, 8, 8, 8}, {8, 8, 8, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := splitDict(tc.segs, tc.parts)
			var counts [][]int64
			var joined dictList
			for _, p := range got {
				if len(p) == 0 {
					t.Fatalf("empty part in %v", got)
				}
				var c []int64
				for _, s := range p {
					c = append(c, s.entries)
				}
				counts = append(counts, c)
				joined = append(joined, p...)
			}
			if !slices.EqualFunc(counts, tc.want, slices.Equal) {
				t.Errorf("parts %v, want %v", counts, tc.want)
			}
			if !slices.Equal(joined, tc.segs) {
				t.Errorf("parts do not join to the list in order: %v", joined)
			}
			if len(got) > max(tc.parts, 1) {
				t.Errorf("%d parts, at most %d asked", len(got), tc.parts)
			}
		})
	}
}

// TestSplitDictBalance: with many segments of random sizes each part's
// weight is within one segment of an equal share.
func TestSplitDictBalance(t *testing.T) {
	var list dictList
	var total, biggest int64
	for i := range 200 {
		n := int64(50 + (i*7919)%400)
		list = append(list, dictSegment{entries: n, bytes: n * int64(1+i%50)})
		total += list[i].weight()
		biggest = max(biggest, list[i].weight())
	}
	for parts := 1; parts <= 5; parts++ {
		got := splitDict(list, parts)
		if len(got) != parts {
			t.Fatalf("%d parts, want %d", len(got), parts)
		}
		for i, p := range got {
			var w int64
			for _, s := range p {
				w += s.weight()
			}
			if share := total / int64(parts); w < share-biggest || w > share+biggest {
				t.Errorf("parts %d: part %d weighs %d, share %d (one segment: %d)", parts, i, w, share, biggest)
			}
		}
	}
}

func TestDictSegmentSize(t *testing.T) {
	for _, tc := range []struct{ upper, want int64 }{
		{0, 1 << 10}, {1000, 1 << 10}, {64 << 10, 1 << 10}, {64 << 20, 1 << 20}, {1 << 40, 1 << 34},
	} {
		if got := dictSegmentSize(tc.upper); got != tc.want {
			t.Errorf("dictSegmentSize(%d) = %d, want %d", tc.upper, got, tc.want)
		}
	}
}

// TestDictWriterSegments: a list written in segments reads back whole
// and in order, and each segment holds at most per entries.
func TestDictWriterSegments(t *testing.T) {
	for _, compress := range []bool{false, true} {
		sd := &spillDir{path: t.TempDir(), compress: compress}
		w := &dictWriter{sd: sd, name: "terms", per: 3}
		var terms []string
		for i := range 10 {
			terms = append(terms, fmt.Sprintf("term%02d", i))
			if err := w.write([]byte(terms[i]), uint64(100+i*i)); err != nil {
				t.Fatal(err)
			}
		}
		list, err := w.close()
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 4 || list.entries() != 10 || list[3].entries != 1 || list[0].bytes != 18 {
			t.Fatalf("segments %+v", list)
		}
		var got []string
		err = eachListEntry(context.Background(), list, func(term []byte, id uint64) error {
			i := len(got)
			if id != uint64(100+i*i) {
				t.Errorf("entry %d: id %d", i, id)
			}
			got = append(got, string(term))
			return nil
		})
		if err != nil || !slices.Equal(got, terms) {
			t.Errorf("read %v, %v; want %v", got, err, terms)
		}
		empty := &dictWriter{sd: sd, name: "terms", per: 3}
		if l, err := empty.close(); err != nil || len(l) != 0 {
			t.Errorf("empty list: %v, %v", l, err)
		}
	}
}

// loadSplit bulk-loads qs with the term keys cut as split says and
// returns how many term streams the write used.
func loadSplit(t *testing.T, db *DB, graph string, qs []quad.Quad, split dictSplit) int {
	t.Helper()
	l, err := db.NewLoader(LoadOptions{Graph: graph, MaxMemory: minMaxMemory})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.split = split
	for _, q := range qs {
		if err := l.WriteQuad(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	return l.split.used
}

// TestSplitDictionaryStreamsSameKeys: writing the term keys as several
// streams from many segments stores exactly the keys and values of one
// stream from one segment (the layout before the split), into an empty
// database and into one holding another graph (where the id list is
// written apart from the term list).
func TestSplitDictionaryStreamsSameKeys(t *testing.T) {
	first, second := synthQuads(3, 30000), synthQuads(4, 20000)
	var dumps []map[string]string
	for _, tc := range []struct {
		split   dictSplit
		streams int // at least
	}{
		{dictSplit{parts: 1, segment: 1 << 40}, 1},
		{dictSplit{parts: 3, segment: 500}, 3},
		{dictSplit{parts: maxTermStreams, segment: 100}, maxTermStreams},
		{dictSplit{}, 1},
	} {
		db, err := Open(t.TempDir(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		n1 := loadSplit(t, db, "a", first, tc.split)
		n2 := loadSplit(t, db, "b", second, tc.split)
		if n1 < tc.streams || n2 < tc.streams || n1 > max(tc.split.parts, dictParts()) {
			t.Errorf("split %+v: %d and %d term streams", tc.split, n1, n2)
		}
		dumps = append(dumps, dumpKeys(t, db))
		db.Close()
	}
	for i := 1; i < len(dumps); i++ {
		assertSameKeys(t, dumps[0], dumps[i])
	}
}

// orderSink records the order in which streams get keys and end.
type orderSink struct {
	kvWriter
	mu     sync.Mutex
	events []sinkEvent
}

type sinkEvent struct {
	stream uint32
	done   bool
}

func (s *orderSink) Set(stream uint32, key, val []byte) error {
	s.mu.Lock()
	if n := len(s.events); n == 0 || s.events[n-1] != (sinkEvent{stream, false}) {
		s.events = append(s.events, sinkEvent{stream, false})
	}
	s.mu.Unlock()
	return s.kvWriter.Set(stream, key, val)
}

func (s *orderSink) Done(streams ...uint32) error {
	s.mu.Lock()
	for _, id := range streams {
		s.events = append(s.events, sinkEvent{id, true})
	}
	s.mu.Unlock()
	return s.kvWriter.Done(streams...)
}

func isDictStream(id uint32) bool { return id == streamID || id == streamTerm || id > streamTermParts }

// TestDictionaryStreamsEndBeforeLists: every dictionary stream is ended
// before the first key of any other keyspace is written, so a crash
// never leaves a list naming an id whose term is not stored; into an
// empty database and into one holding another graph.
func TestDictionaryStreamsEndBeforeLists(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, qs := range [][]quad.Quad{synthQuads(5, 20000), synthQuads(6, 20000)} {
		rec := &orderSink{}
		loadSplit(t, db, fmt.Sprint("g", i), qs, dictSplit{parts: 4, segment: 300, wrapSink: func(w kvWriter) kvWriter {
			rec.kvWriter = w
			return rec
		}})
		open := map[uint32]bool{}
		var dictDone, lists, termStreams int
		for _, e := range rec.events {
			switch {
			case isDictStream(e.stream) && !e.done:
				if lists > 0 {
					t.Fatalf("load %d: dictionary stream %d written after a list", i, e.stream)
				}
				if !open[e.stream] && e.stream != streamID {
					termStreams++
				}
				open[e.stream] = true
			case isDictStream(e.stream):
				if open[e.stream] {
					dictDone++
				}
				delete(open, e.stream)
			default:
				if len(open) > 0 {
					t.Fatalf("load %d: stream %d written while dictionary streams %v are open", i, e.stream, open)
				}
				lists++
			}
		}
		if termStreams < 2 || dictDone != termStreams+1 || lists == 0 {
			t.Errorf("load %d: %d term streams, %d dictionary streams ended, %d list writes; events %v",
				i, termStreams, dictDone, lists, rec.events)
		}
	}
}
