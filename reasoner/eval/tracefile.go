package eval

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/grove-kg/grove/reasoner/trace"
)

// TracesDir is the directory, inside the output directory, of the trace
// files: one gzipped JSON trace per (method, question), at
// traces/<method>/<question id>-<hash>.json.gz.
const TracesDir = "traces"

// traceRel returns the trace file path of a (method, id) pair relative
// to the output directory. Names are reduced to safe characters and
// suffixed with a hash of the exact method and id, so distinct pairs
// never share a file.
func traceRel(method, id string) string {
	sum := sha256.Sum256([]byte(method + "\x00" + id))
	return filepath.Join(TracesDir, safeName(method), safeName(id)+"-"+hex.EncodeToString(sum[:4])+".json.gz")
}

// safeName keeps letters, digits, '-', '_' and single '.' (others become
// '_'), at most 60 bytes, never empty, starting with a dot or holding "..".
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 60 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0 && !strings.HasSuffix(b.String(), "."):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// WriteTrace writes t as gzipped JSON to path atomically (a temporary
// file renamed into place after a sync), creating the directory.
func WriteTrace(path string, t *trace.Trace) (err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write trace: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".trace-*")
	if err != nil {
		return fmt.Errorf("write trace: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	zw := gzip.NewWriter(f)
	if err := json.NewEncoder(zw).Encode(t); err != nil {
		return fmt.Errorf("encode trace %s: %w", path, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("write trace %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil { // CreateTemp's 0600, as results.jsonl is 0644
		return fmt.Errorf("write trace %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync trace %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write trace %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write trace: %w", err)
	}
	return nil
}

// ReadTrace reads a trace written by WriteTrace (gzipped or plain JSON).
func ReadTrace(path string) (*trace.Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read trace: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("read trace %s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	var t trace.Trace
	if err := json.NewDecoder(r).Decode(&t); err != nil {
		return nil, fmt.Errorf("read trace %s: %w", path, err)
	}
	return &t, nil
}
