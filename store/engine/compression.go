package engine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// Table compression. Badger compresses the blocks of every table it
// writes (bulk loads, transactions' flushes, compactions) with the
// database's option of the moment, and records the choice of each table in
// its manifest, so tables written with different choices read alike. The
// choice is Options.Compression: snappy (the default) or zstd, which takes
// about a quarter less disk on dump-like Wikidata JSON for about a tenth
// more CPU in a bulk load (BENCHMARKS.md, session 19). A writable Open with
// the option set records it in compressionFile beside the tables, and an
// Open without it uses the recorded one, so that later writes and
// compactions (grove serve, grove optimize) keep the database's choice.

// Table compressions for Options.Compression.
const (
	CompressionSnappy = "snappy"
	CompressionZSTD   = "zstd"
)

// compressionFile holds a database's table compression when it was chosen
// explicitly ("zstd\n"); without it the tables are written with snappy.
const compressionFile = "COMPRESSION"

// tableCompression returns the compression of the tables an Open with
// opts writes, and whether opts chose it (it is then recorded).
func tableCompression(dir string, opts Options) (c string, chosen bool, err error) {
	c, from := opts.Compression, "table compression"
	if c == "" {
		if opts.InMemory {
			return CompressionSnappy, false, nil
		}
		path := filepath.Join(dir, compressionFile)
		from = path + ": " + from
		b, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return CompressionSnappy, false, nil
		case err != nil:
			return "", false, fmt.Errorf("read the table compression: %w", err)
		}
		c = string(bytes.TrimSpace(b))
	}
	if c != CompressionSnappy && c != CompressionZSTD {
		return "", false, fmt.Errorf("%s %q: want %s or %s", from, c, CompressionSnappy, CompressionZSTD)
	}
	return c, opts.Compression != "", nil
}

// withCompression sets Badger's table compression.
func withCompression(o badger.Options, c string) badger.Options {
	if c == CompressionZSTD {
		return o.WithCompression(options.ZSTD).WithZSTDCompressionLevel(1)
	}
	return o.WithCompression(options.Snappy)
}

// recordCompression records c as the database's table compression unless
// it already is; it is called with the database open for writing (its
// lock held). The file is replaced whole (written and synced under a
// temporary name, then renamed).
func recordCompression(dir, c string) error {
	path := filepath.Join(dir, compressionFile)
	if b, err := os.ReadFile(path); err == nil && string(bytes.TrimSpace(b)) == c {
		return nil
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("record the table compression: %w", err)
	}
	_, err = f.WriteString(c + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("record the table compression: %w", err)
	}
	return nil
}

// TableCompression returns the compression of the tables this handle
// writes: CompressionSnappy or CompressionZSTD.
func (db *DB) TableCompression() string { return db.compression }
