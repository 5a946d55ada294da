package ingest

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/source"
)

func TestCountingWriter(t *testing.T) {
	qs := []quad.Quad{quad.MakeIRI("a", "p", "b", ""), quad.MakeIRI("b", "p", "c", ""), quad.MakeIRI("c", "p", "d", "")}
	full := errors.New("full")
	tests := []struct {
		name      string
		limit     int // the sink fails past this many quads
		batch     bool
		wantCount int64
		wantKept  int
	}{
		{"quad by quad", 10, false, 3, 3},
		{"batch", 10, true, 3, 3},
		{"batch, sink fails on the second", 1, true, 3, 1}, // counted when handed over, like WriteQuad
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var kept []quad.Quad
			sink := source.WriterFunc(func(q quad.Quad) error {
				if len(kept) == tt.limit {
					return full
				}
				kept = append(kept, q)
				return nil
			})
			var n atomic.Int64
			cw := &countingWriter{w: sink, n: &n}
			var err error
			if tt.batch {
				err = source.WriteAll(cw, qs)
			} else {
				for _, q := range qs {
					if err = cw.WriteQuad(q); err != nil {
						break
					}
				}
			}
			if (err != nil) != (tt.wantKept < len(qs)) || (err != nil && !errors.Is(err, full)) {
				t.Fatalf("err = %v", err)
			}
			if n.Load() != tt.wantCount || len(kept) != tt.wantKept {
				t.Fatalf("counted %d, kept %d; want %d, %d", n.Load(), len(kept), tt.wantCount, tt.wantKept)
			}
		})
	}
}
