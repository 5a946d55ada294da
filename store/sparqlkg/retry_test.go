package sparqlkg

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRetryBudget: the waits before retries add up to at most the request
// timeout and end before the call's deadline. A Retry-After (or backoff)
// beyond what is left fails at once, naming the wait and the bound; a
// wait within it is logged as a warning saying how long.
func TestRetryBudget(t *testing.T) {
	cases := []struct {
		name       string
		retryAfter string // "" : no Retry-After (backoff)
		failures   int32  // answers of 429 before a 200 (0: always)
		timeout    time.Duration
		deadline   time.Duration // of the call's context (0: 10 s, beyond the timeout)
		wantErr    []string      // nil: the call succeeds
		maxTime    time.Duration
		wantLog    []string
	}{
		{name: "Retry-After beyond the timeout", retryAfter: "100000", timeout: 5 * time.Second,
			wantErr: []string{"HTTP 429", "asked to retry after 27h46m40s (Retry-After)", "5s its retries may still wait", "--sparql-timeout 5s", "not retried"},
			maxTime: time.Second},
		{name: "Retry-After beyond the deadline", retryAfter: "3", timeout: time.Minute, deadline: time.Second,
			wantErr: []string{"HTTP 429", "asked to retry after 3s (Retry-After)", "left before the call's deadline"},
			maxTime: time.Second},
		{name: "backoff beyond the timeout", timeout: 2 * time.Second,
			wantErr: []string{"HTTP 429", "the next retry would wait 2s (backoff)", "500ms its retries may still wait"},
			maxTime: 3 * time.Second, wantLog: []string{"waiting before a retry", "wait=500ms", "wait=1s"}},
		{name: "Retry-After within the timeout", retryAfter: "1", failures: 1, timeout: 5 * time.Second,
			maxTime: 3 * time.Second, wantLog: []string{"level=WARN", "waiting before a retry", "wait=1s", "retry=1", "HTTP 429"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int32
			url := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
				if r.FormValue("query") == probeQuery {
					answerProbe(w, r)
					return
				}
				if n := calls.Add(1); c.failures == 0 || n <= c.failures {
					if c.retryAfter != "" {
						w.Header().Set("Retry-After", c.retryAfter)
					}
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				w.Header().Set("Content-Type", "application/sparql-results+json")
				w.Write([]byte(okBody))
			})
			var logs syncBuffer
			kg, err := Open(context.Background(), Config{URL: url, Dialect: rdf(t), Timeout: c.timeout,
				Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			deadline := c.deadline
			if deadline == 0 {
				deadline = 10 * time.Second // a bound beyond every case's, so that a failure fails rather than hangs
			}
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			start := time.Now()
			_, err = kg.Graphs(ctx)
			t.Logf("error: %v", err)
			if took := time.Since(start); took > c.maxTime {
				t.Errorf("the call took %v, want at most %v", took, c.maxTime)
			}
			switch {
			case c.wantErr == nil && err != nil:
				t.Errorf("error %v", err)
			case c.wantErr != nil && err == nil:
				t.Errorf("no error")
			}
			for _, w := range c.wantErr {
				if err != nil && !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			for _, w := range c.wantLog {
				if !strings.Contains(logs.String(), w) {
					t.Errorf("log %q lacks %q", logs.String(), w)
				}
			}
		})
	}
}

// TestRetryAfterParse: seconds and HTTP dates, uncapped up to a year
// (retryWait refuses what is beyond the budget); nonsense means backoff.
func TestRetryAfterParse(t *testing.T) {
	cases := []struct {
		h    string
		want time.Duration
	}{
		{"", 0},
		{"2", 2 * time.Second},
		{" 100000 ", 100000 * time.Second},
		{"99999999999999999999", maxRetryAfter},
		{"9999999999999999", maxRetryAfter},
		{"-5", 0},
		{"soon", 0},
		{"Mon, 02 Jan 2006 15:04:05 GMT", 0}, // in the past
	}
	for _, c := range cases {
		if got := retryAfter(c.h); got != c.want {
			t.Errorf("retryAfter(%q) = %v, want %v", c.h, got, c.want)
		}
	}
}
