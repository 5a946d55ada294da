package dataset

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestLoadBinary: compressed, archived and binary files are refused with
// what they appear to be, whatever the format asked for, instead of a CSV
// header or JSON error about their bytes.
func TestLoadBinary(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want []string
	}{
		{"gzip N-Quads", gzipped(t, "<f1> <name> \"Blade Runner\" <film> .\n"),
			[]string{"gzip-compressed RDF", "`grove ingest`"}},
		{"gzip JSON Lines", gzipped(t, `{"id":"1","question":"q","answers":["a"]}`+"\n"),
			[]string{"gzip-compressed JSON", "gunzip it first"}},
		{"bzip2", []byte("BZh91AY&SY\x00\x01"), []string{"bzip2-compressed", "bunzip2"}},
		{"xz", []byte("\xfd7zXZ\x00\x00\x04"), []string{"xz-compressed"}},
		{"zip", []byte("PK\x03\x04\x14\x00\x00\x00"), []string{"a zip archive"}},
		{"binary", []byte("\x7fELF\x02\x01\x01\x00\x00\x00"), []string{"binary data"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, f := range []Format{FormatAuto, FormatJSONL, FormatMusicBrainz} {
				_, err := Load(path, f)
				if err == nil || strings.Contains(err.Error(), "CSV header") || !strings.Contains(err.Error(), path) {
					t.Fatalf("Load(%s) = %v", f, err)
				}
				for _, want := range append(tc.want, "not a question dataset") {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("Load(%s) error %q lacks %q", f, err, want)
					}
				}
			}
			if _, err := Detect(path); err == nil || !strings.Contains(err.Error(), tc.want[0]) {
				t.Errorf("Detect = %v, want %q", err, tc.want[0])
			}
		})
	}
	// Text still loads.
	path := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(path, []byte(`{"id":"1","question":"q","answers":["a"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if qs, err := Load(path, FormatAuto); err != nil || len(qs) != 1 {
		t.Errorf("text: %v, %v", qs, err)
	}
}

func TestLoadRealGzip(t *testing.T) {
	path := filepath.Join("..", "..", "..", "data", "film.nq.gz")
	if _, err := os.Stat(path); err != nil {
		t.Skip(err)
	}
	_, err := Load(path, FormatAuto)
	if err == nil || !strings.Contains(err.Error(), "gzip-compressed RDF") {
		t.Fatalf("Load(film.nq.gz) = %v", err)
	}
}
