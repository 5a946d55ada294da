package musicbrainz

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/source"
)

// FuzzRead feeds arbitrary bytes as JSON lines (typed and guessed) and as
// the artist member of a tar archive, and checks that the reader either
// writes well-formed quads or fails with a positioned *source.Error.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"artist.jsonl", "release-group.jsonl", "recording.jsonl"} {
		f.Add(fixture(f, name))
	}
	f.Add([]byte(`{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","relations":[{"type":"x","direction":"backward","target-type":"artist","artist":{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d"}}]}`))
	f.Add([]byte(`{"id":"b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d","coordinates":{"latitude":1e400,"longitude":-0}}` + "\n" + `{"id":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var archive bytes.Buffer
		tw := tar.NewWriter(&archive)
		if err := tw.WriteHeader(&tar.Header{Name: "mbdump/artist", Mode: 0o644, Size: int64(len(data))}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
		tw.Close()
		inputs := []struct {
			entity string
			data   []byte
		}{{"", data}, {"artist", data}, {"", archive.Bytes()}}
		for _, in := range inputs {
			for _, skip := range []bool{false, true} {
				check(t, Options{Options: source.Options{SkipInvalid: skip}, EntityType: in.entity}, in.data)
			}
		}
	})
}

func check(t *testing.T, opts Options, data []byte) {
	var quads []quad.Quad
	w := source.WriterFunc(func(q quad.Quad) error {
		quads = append(quads, q)
		return nil
	})
	err := New(opts).Read(context.Background(), "fuzz", bytes.NewReader(data), w)
	if err != nil {
		var se *source.Error
		if !errors.As(err, &se) {
			t.Fatalf("error %v (%T) is not a positioned error", err, err)
		}
		return
	}
	for _, q := range quads {
		switch q.Subject.(type) {
		case quad.IRI, quad.BNode:
		default:
			t.Fatalf("subject of %v is %T", q, q.Subject)
		}
		if p, ok := q.Predicate.(quad.IRI); !ok || p == "" || q.Object == nil {
			t.Fatalf("malformed quad %v", q)
		}
	}
}
