package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestDictWriter: a list reads back whole and in order, with its counts;
// an empty list has no file.
func TestDictWriter(t *testing.T) {
	for _, compress := range []bool{false, true} {
		sd := &spillDir{path: t.TempDir(), compress: compress}
		w := &dictWriter{sd: sd, name: "terms"}
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
		if list.path == "" || list.entries != 10 || list.bytes != 60 {
			t.Fatalf("list %+v", list)
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
		empty := &dictWriter{sd: sd, name: "terms"}
		l, err := empty.close()
		if err != nil || l != (dictList{}) {
			t.Errorf("empty list: %+v, %v", l, err)
		}
		if err := eachListEntry(context.Background(), l, func([]byte, uint64) error {
			t.Error("entry in an empty list")
			return nil
		}); err != nil {
			t.Error(err)
		}
	}
}

// loadWrapped bulk-loads qs with the write phase's writer wrapped by wrap.
func loadWrapped(t *testing.T, db *DB, graph string, qs []quad.Quad, wrap func(kvWriter) kvWriter) {
	t.Helper()
	l, err := db.NewLoader(LoadOptions{Graph: graph, MaxMemory: minMaxMemory})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.wrapSink = wrap
	for _, q := range qs {
		if err := l.WriteQuad(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Commit(context.Background()); err != nil {
		t.Fatal(err)
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

func isDictStream(id uint32) bool { return id == streamID || id == streamTerm || id == streamHash }

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
		loadWrapped(t, db, fmt.Sprint("g", i), qs, func(w kvWriter) kvWriter {
			rec.kvWriter = w
			return rec
		})
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
		if termStreams != 1 || dictDone != 2 || lists == 0 {
			t.Errorf("load %d: %d term streams, %d dictionary streams ended, %d list writes; events %v",
				i, termStreams, dictDone, lists, rec.events)
		}
	}
}
