package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFormatHintOnlyWhenDetectionFails: a truncated compressed file whose
// format is auto-detected fails with the decompression error alone (it
// added "(pass --format)", which does not help: with --format the same
// error returns); a file of no known format keeps the hint.
func TestFormatHintOnlyWhenDetectionFails(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, src string // src: a file under input/testdata, cut in half
		text      string // else the file's content
		want      string
		hint      bool
	}{
		{name: "trunc.nt.gz", src: "sample.nt.gz", want: "read gzip"},
		{name: "trunc.nt.xz", src: "sample.nt.xz", want: "read xz"},
		{name: "trunc.nt.zst", src: "sample.nt.zst", want: "zst"},
		{name: "trunc.nt.bz2", src: "sample.nt.bz2", want: "bzip2"},
		{name: "junk.txt", text: "hello world\n", want: `unknown input format: starts with "hello world"`, hint: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := []byte(c.text)
			if c.src != "" {
				b, err := os.ReadFile(filepath.Join("input", "testdata", c.src))
				if err != nil {
					t.Fatal(err)
				}
				data = b[:len(b)/2]
			}
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := Parse(context.Background(), []string{path}, Options{Graph: "g"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if got := strings.HasSuffix(err.Error(), "(pass --format)"); got != c.hint {
				t.Errorf("error %q: hint %v, want %v", err, got, c.hint)
			}
		})
	}
}
