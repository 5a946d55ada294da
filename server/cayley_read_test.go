package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/engine"
)

// stallingQuads is a quad store that, after a number of quads, stops
// answering as a silent database does under Cayley's context-free Quad
// (NameOf): the call returns only when the test ends.
type stallingQuads struct {
	graph.QuadStore
	after   int64
	calls   atomic.Int64
	release chan struct{}
}

func (s *stallingQuads) Quad(r graph.Ref) (quad.Quad, error) {
	if s.calls.Add(1) > s.after {
		<-s.release
	}
	return s.QuadStore.Quad(r)
}

// manyQuadsDB is an in-memory store of n quads in graph <big>.
func manyQuadsDB(t *testing.T, n int) *engine.DB {
	t.Helper()
	db, err := engine.Open("", engine.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	l, err := db.NewLoader(engine.LoadOptions{Graph: "big", KeepLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range n {
		q := quad.MakeIRI(fmt.Sprintf("s%d", i), "p", fmt.Sprintf("o%d", i), "big")
		if err := l.WriteQuad(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// readRaw GETs a read and returns the response, its body and the time it
// took.
func readRaw(t *testing.T, ts *testServer, query string) (*http.Response, string, time.Duration) {
	t.Helper()
	start := time.Now()
	resp, err := ts.client.Get(ts.url + "/cayley/api/v2/read?" + query)
	if err != nil {
		t.Fatalf("read: %v (after %s)", err, time.Since(start))
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("read body: %v (after %s)", err, time.Since(start))
	}
	return resp, string(b), time.Since(start)
}

// TestCayleyReadTimeLimit: a /read on a store that stops answering ends
// at the request's time limit, where it held the connection until the
// store's idle bound (Cayley's ServeRead reads with context.TODO) and
// then sent an empty reply: before its first quad it is a 504 as on every
// route; after some quads went out, the answer is cut with the byte cap's
// marker and trailer, naming the timeout.
func TestCayleyReadTimeLimit(t *testing.T) {
	const timeout = 300 * time.Millisecond
	const cutMsg = "truncated: the read failed: request timed out"
	cases := []struct {
		name, query string
		after       int64
		check       func(t *testing.T, resp *http.Response, body string)
	}{
		{"before the first quad", "format=nquads", 0, func(t *testing.T, resp *http.Response, body string) {
			if resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(body, `"request timed out"`) {
				t.Errorf("status %d body %.300s, want 504 request timed out", resp.StatusCode, body)
			}
		}},
		{"nquads after quads were sent", "format=nquads", 12000, func(t *testing.T, resp *http.Response, body string) {
			lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
			if resp.StatusCode != 200 || len(lines) < 2 || lines[len(lines)-1] != "# "+cutMsg {
				t.Errorf("status %d, last line %q, want 200 ending %q", resp.StatusCode, lines[len(lines)-1], "# "+cutMsg)
			}
			for _, l := range lines[:len(lines)-1] {
				if !strings.HasSuffix(l, " .") {
					t.Fatalf("a cut quad line: %q", l)
				}
			}
		}},
		{"json after quads were sent", "format=json", 12000, func(t *testing.T, resp *http.Response, body string) {
			var elems []map[string]any
			if err := json.Unmarshal([]byte(body), &elems); err != nil {
				t.Fatalf("the cut json answer is not valid: %v (ends %q)", err, body[max(0, len(body)-200):])
			}
			if last := elems[len(elems)-1]; resp.StatusCode != 200 || len(elems) < 2 || last["error"] != cutMsg {
				t.Errorf("status %d, last element %v, want 200 ending {\"error\": %q}", resp.StatusCode, last, cutMsg)
			}
		}},
	}
	db := manyQuadsDB(t, 15000)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			qs := &stallingQuads{QuadStore: db, after: c.after, release: make(chan struct{})}
			t.Cleanup(func() { close(qs.release) })
			ts := startServer(t, Config{RequestTimeout: timeout, MaxCayleyReadBytes: 64 << 20}, db, Deps{QuadStore: qs})
			resp, body, took := readRaw(t, ts, c.query)
			if took > 10*timeout {
				t.Errorf("the read took %s, over the time limit of %s", took, timeout)
			}
			c.check(t, resp, body)
			if c.after > 0 && resp.Trailer.Get(readTruncatedTrailer) != cutMsg {
				t.Errorf("trailer %q, want %q", resp.Trailer.Get(readTruncatedTrailer), cutMsg)
			}
		})
	}
}

// unavailableQuads is a quad store whose quad listing fails as a
// database that does not answer.
type unavailableQuads struct{ graph.QuadStore }

func (unavailableQuads) QuadsAllIterator() iterator.Shape {
	return iterator.NewError(fmt.Errorf("sql query failed: %w: dial tcp 10.1.2.3:5432", store.ErrUnavailable))
}

// TestCayleyReadUnavailableEveryFormat: a read of a store that does not
// answer is a 503 in every format; pquads answered 200 with an empty but
// valid stream (its writer sends a header before the first quad, so the
// error came after the first byte and went to Cayley's log only).
func TestCayleyReadUnavailableEveryFormat(t *testing.T) {
	db := testDB(t)
	ts := startServer(t, Config{}, db, Deps{QuadStore: unavailableQuads{db}})
	for _, f := range []string{"nquads", "pquads", "json", "json-stream", "jsonld"} {
		resp, body, _ := readRaw(t, ts, "format="+f)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, unavailableMsg) ||
			strings.Contains(body, "10.1.2.3") {
			t.Errorf("%s: status %d body %q, want 503 %q", f, resp.StatusCode, body, unavailableMsg)
		}
	}
}
