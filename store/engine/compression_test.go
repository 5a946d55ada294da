package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
)

// tableBytes is the size of a database directory's tables.
func tableBytes(t *testing.T, dir string) int64 {
	t.Helper()
	ssts, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, p := range ssts {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

func openOpts(t *testing.T, dir string, opts Options) *DB {
	t.Helper()
	db, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func quadCount(t *testing.T, db *DB) int64 {
	t.Helper()
	st, err := db.Stats(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	return st.Quads.Value
}

// TestTableCompression: a database loaded with zstd tables is smaller than
// the same load with snappy ones and reads the same; the choice is
// recorded, kept by later opens that do not choose, and changed by one that
// does, after which the old and new tables read alike.
func TestTableCompression(t *testing.T) {
	film := readFilm(t)
	dirs := map[string]string{}
	for _, c := range []string{CompressionSnappy, CompressionZSTD} {
		dirs[c] = t.TempDir()
		db := openOpts(t, dirs[c], Options{Compression: c})
		loadQuads(t, db, "film", film)
		if got := quadCount(t, db); got != int64(len(film)) {
			t.Fatalf("%s: %d quads, want %d", c, got, len(film))
		}
		db.Close()
		db = openOpts(t, dirs[c], Options{})
		if got := db.TableCompression(); got != c {
			t.Errorf("reopened without a choice: tables written with %s, want the recorded %s", got, c)
		}
		db.Close()
	}
	snappy, zstd := tableBytes(t, dirs[CompressionSnappy]), tableBytes(t, dirs[CompressionZSTD])
	if zstd >= snappy*9/10 {
		t.Errorf("zstd tables %d bytes, snappy %d: zstd should be at least 10%% smaller", zstd, snappy)
	}

	// Change the zstd database to snappy: new tables (an incremental write)
	// are snappy, and the zstd ones still read.
	dir := dirs[CompressionZSTD]
	db := openOpts(t, dir, Options{Compression: CompressionSnappy})
	extra := quad.Make(quad.IRI("compression-test"), quad.IRI("p"), quad.String("x"), quad.IRI("film"))
	if err := db.ApplyDeltas([]graph.Delta{{Quad: extra, Action: graph.Add}}, graph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openOpts(t, dir, Options{ReadOnly: true})
	defer db.Close()
	if got := db.TableCompression(); got != CompressionSnappy {
		t.Errorf("after choosing snappy: %s recorded", got)
	}
	if got := quadCount(t, db); got != int64(len(film))+1 {
		t.Errorf("%d quads after the change, want %d", got, len(film)+1)
	}
}

// TestTableCompressionErrors: an unknown choice or recorded value is an
// error naming it (and the file), and a read-only open records nothing.
func TestTableCompressionErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir, Options{Compression: "lz4"}); err == nil || !strings.Contains(err.Error(), `table compression "lz4"`) {
		t.Errorf("Open with lz4: %v, want an error naming it", err)
	}
	openOpts(t, dir, Options{}).Close()
	db := openOpts(t, dir, Options{ReadOnly: true, Compression: CompressionZSTD})
	db.Close()
	if _, err := os.Stat(filepath.Join(dir, compressionFile)); !os.IsNotExist(err) {
		t.Errorf("a read-only open recorded its choice (%v)", err)
	}
	if err := os.WriteFile(filepath.Join(dir, compressionFile), []byte("brotli\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), compressionFile) || !strings.Contains(err.Error(), `"brotli"`) {
		t.Errorf("Open with a bad record: %v, want an error naming the file and value", err)
	}
}

// TestOpenFile: a database path that is a file is refused as such, read
// only or not (the error named a COMPRESSION file inside it).
func TestOpenFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "afile")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{false, true} {
		_, err := Open(file, Options{ReadOnly: ro})
		if err == nil || !strings.Contains(err.Error(), file+": it is a file, not a database directory") {
			t.Errorf("read-only %v: %v", ro, err)
		}
	}
}
