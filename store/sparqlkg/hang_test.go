package sparqlkg

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// answerProbe answers Open's probe query so that the KG opens.
func answerProbe(w http.ResponseWriter, r *http.Request) bool {
	if strings.Contains(r.FormValue("query"), "LIMIT 1") && !strings.Contains(r.FormValue("query"), "UNION") {
		w.Header().Set("Content-Type", "application/sparql-results+json")
		w.Write([]byte(okBody))
		return true
	}
	return false
}

// TestStalledBody: an endpoint that sends its headers and then stalls
// fails the call after one timeout, not after a timeout per retry.
func TestStalledBody(t *testing.T) {
	var requests atomic.Int64
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	url := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		if answerProbe(w, r) {
			return
		}
		requests.Add(1)
		w.Header().Set("Content-Type", "application/sparql-results+json")
		w.Write([]byte(`{"head":{"vars":["g","n","r"]},"results":{"bindings":[`))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	ctx := context.Background()
	kg, err := Open(ctx, Config{URL: url, Dialect: rdf(t), Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = kg.Graphs(ctx)
	if took := time.Since(start); err == nil || took > 3*time.Second {
		t.Fatalf("Graphs on a stalled answer: %v after %v (%d requests); want an error after one timeout", err, took, requests.Load())
	}
	if !strings.Contains(err.Error(), "did not arrive within") || requests.Load() != 1 {
		t.Errorf("stalled answer: %v after %d requests, want one request and a timeout error", err, requests.Load())
	}
	// The caller's own deadline is reported as such.
	kg2, err := Open(ctx, Config{URL: url, Dialect: rdf(t), Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := kg2.Graphs(cctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Graphs past the caller's deadline: %v, want an error wrapping context.DeadlineExceeded", err)
	}
}

// TestResponseTooLarge: an answer larger than MaxResponseBytes fails the
// call, whatever the endpoint sends.
func TestResponseTooLarge(t *testing.T) {
	url := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		if answerProbe(w, r) {
			return
		}
		w.Header().Set("Content-Type", "application/sparql-results+json")
		fmt.Fprint(w, `{"head":{"vars":["g","n","r"]},"results":{"bindings":[`)
		for i := range 100000 {
			if i > 0 {
				fmt.Fprint(w, ",")
			}
			fmt.Fprintf(w, `{"n":{"type":"literal","value":"%d"}}`, i)
		}
		fmt.Fprint(w, `]}}`)
	})
	ctx := context.Background()
	kg, err := Open(ctx, Config{URL: url, Dialect: rdf(t), MaxResponseBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kg.Graphs(ctx); err == nil || !strings.Contains(err.Error(), "larger than 1048576 bytes") {
		t.Errorf("Graphs with a 3 MB answer and a 1 MiB cap: %v, want a too-large error", err)
	}
}

// TestSharedFetchCancelled: two callers wait for the same query; the
// first gives up. The second, whose context is alive, gets the answer,
// not the first one's cancellation.
func TestSharedFetchCancelled(t *testing.T) {
	var n atomic.Int64
	firstIn := make(chan struct{})
	url := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		if answerProbe(w, r) {
			return
		}
		if n.Add(1) == 1 {
			close(firstIn)
			<-r.Context().Done() // the first request never answers
			return
		}
		w.Header().Set("Content-Type", "application/sparql-results+json")
		w.Write([]byte(`{"head":{"vars":["n","r"]},"results":{"bindings":[{"n":{"type":"literal","value":"7"},"r":{"type":"literal","value":"2"}}]}}`))
	})
	ctx := context.Background()
	kg, err := Open(ctx, Config{URL: url, Dialect: rdf(t)})
	if err != nil {
		t.Fatal(err)
	}
	first, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		kg.Graphs(first)
	}()
	<-firstIn
	var second error
	var quads int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		gs, err := kg.Graphs(ctx)
		second = err
		if len(gs) > 0 {
			quads = gs[0].Quads
		}
	}()
	time.Sleep(100 * time.Millisecond) // the second caller waits on the first's fetch
	cancel()
	wg.Wait()
	if second != nil || quads != 7 {
		t.Errorf("second caller: %d quads, %v; want 7 and no error", quads, second)
	}
}
