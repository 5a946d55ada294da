package musicbrainz

import (
	"bytes"
	"context"
	"testing"

	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store/storetest"
)

// TestWriterErrorPositioned checks that an error from the writer (a
// backend refusing a value) names the file, the line and the entity.
func TestWriterErrorPositioned(t *testing.T) {
	const beatles = "b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d"
	good := `{"id":"` + beatles + `","name":"X"}`
	nul := `{"id":"` + beatles + `","name":"a\u0000b"}`
	tests := []struct {
		name, file string
		opts       Options
		data       []byte
		mark       string
		want       string
	}{
		{"NUL on line 3", "a.jsonl", Options{EntityType: "artist"}, []byte(good + "\n\n" + nul + "\n"), "\x00",
			"a.jsonl:3: artist " + beatles + ": "},
		{"guessed type", "a.jsonl", Options{}, []byte(good + "\n" + `{"id":"` + beatles + `","gender":"x","name":"a\u0000b"}` + "\n"), "\x00",
			"a.jsonl:2: artist " + beatles + ": "},
		{"tar member", "dump.tar", Options{}, dumpTar(t), "The Beatles",
			"dump.tar/mbdump/artist:1: artist " + beatles + ": "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := New(tc.opts).Read(context.Background(), tc.file, bytes.NewReader(tc.data), source.WriterFunc(storetest.Refusing(tc.mark)))
			storetest.CheckRefused(t, err, tc.want)
		})
	}
}
