package source

import (
	"errors"
	"testing"

	"github.com/cayleygraph/quad"
)

// batchSink records quads and how they arrived.
type batchSink struct {
	got     []quad.Quad
	batches int
	failAt  int // fail on the quad with this index (-1: never)
}

func (s *batchSink) WriteQuad(q quad.Quad) error {
	if len(s.got) == s.failAt {
		return errors.New("sink full")
	}
	s.got = append(s.got, q)
	return nil
}

// perQuad hides WriteQuads.
type perQuad struct{ s *batchSink }

func (p perQuad) WriteQuad(q quad.Quad) error { return p.s.WriteQuad(q) }

type batched struct{ *batchSink }

func (b batched) WriteQuads(qs []quad.Quad) error {
	b.batches++
	for _, q := range qs {
		if err := b.WriteQuad(q); err != nil {
			return err
		}
	}
	return nil
}

func TestWriteAll(t *testing.T) {
	qs := []quad.Quad{
		quad.MakeIRI("a", "p", "b", ""), quad.MakeIRI("b", "p", "c", ""), quad.MakeIRI("c", "p", "d", ""),
	}
	tests := []struct {
		name        string
		batch       bool
		failAt      int
		wantN       int
		wantBatches int
		wantErr     bool
	}{
		{"per quad", false, -1, 3, 0, false},
		{"batch", true, -1, 3, 1, false},
		{"per quad stops at the error", false, 1, 1, 0, true},
		{"batch stops at the error", true, 2, 2, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &batchSink{failAt: tt.failAt}
			var w Writer = perQuad{s}
			if tt.batch {
				w = batched{s}
			}
			err := WriteAll(w, qs)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if len(s.got) != tt.wantN || s.batches != tt.wantBatches {
				t.Fatalf("wrote %d quads in %d batches, want %d in %d", len(s.got), s.batches, tt.wantN, tt.wantBatches)
			}
			for i, q := range s.got {
				if q != qs[i] {
					t.Fatalf("quad %d = %v, want %v", i, q, qs[i])
				}
			}
		})
	}
}
