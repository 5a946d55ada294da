package grbench

import (
	"context"
	"strings"
	"testing"

	"github.com/grove-kg/grove/ingest/source"
	"github.com/grove-kg/grove/store/storetest"
)

// TestWriterErrorPositioned checks that an error from the writer (a
// backend refusing a value) names the file, the line, the node's field and
// its byte offset.
func TestWriterErrorPositioned(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"label, line 4", "{\n\"movie_nodes\": {\n\"m1\": {\"features\": {\"title\": \"ok\"}},\n" +
			"\"m2\": {\"features\": {\"title\": \"Bad\\u0000title\"}, \"neighbors\": {}}\n}}\n",
			`g.json:4: movie_nodes["m2"].features.title: at byte 60: `},
		{"feature, one line", `{"movie_nodes": {"m1": {"features": {"title": "ok", "note": "a\u0000b"}}}}`,
			`g.json:1: movie_nodes["m1"].features.note: at byte 21: `},
		{"deferred edge, line 3", "{\"movie_nodes\": {\n\"m1\": {},\n\"m2\": {\"neighbors\": {\"li\\u0000nk\": [\"m1\"]}}\n}}",
			`g.json:3: movie_nodes["m2"].neighbors.li` + "\x00" + `nk[0]: at byte 32: `},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := New(Options{Options: source.Options{SkipInvalid: true}}).Read(context.Background(), "g.json",
				strings.NewReader(tc.input), source.WriterFunc(storetest.RefuseNUL))
			storetest.CheckRefused(t, err, tc.want)
		})
	}
}

// TestLineIndex checks offsets to lines across reads, including offsets
// read ahead of the last one asked for.
func TestLineIndex(t *testing.T) {
	l := &lineIndex{r: strings.NewReader("ab\ncd\n\nef")}
	buf := make([]byte, 4)
	for {
		if _, err := l.Read(buf); err != nil {
			break
		}
	}
	for _, tc := range []struct{ off, line int64 }{{0, 1}, {2, 1}, {3, 2}, {6, 3}, {7, 4}, {9, 4}} {
		if got := l.lineAt(tc.off); got != tc.line {
			t.Errorf("lineAt(%d) = %d, want %d", tc.off, got, tc.line)
		}
	}
}
