package datadir

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// recorder captures Skip and Fatal, which end the goroutine that called
// them as testing's do, without ending the calling test.
type recorder struct {
	testing.TB
	skipped, failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Skipf(string, ...any)  { r.skipped = true; runtime.Goexit() }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; runtime.Goexit() }

// shared runs Shared with a recorder on its own goroutine.
func shared(t *testing.T, name string) (*recorder, string) {
	r := &recorder{TB: t}
	var p string
	done := make(chan struct{})
	go func() {
		defer close(done)
		p = Shared(r, name)
	}()
	<-done
	return r, p
}

func TestFilmIsBundled(t *testing.T) {
	st, err := os.Stat(Film(t))
	if err != nil || st.Size() < 1<<20 {
		t.Fatalf("film sample: %v %v", st, err)
	}
}

func TestShared(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, env, file      string
		set, skipped, failed bool
	}{
		{"unset skips", "", "x.json", false, true, false},
		{"empty skips", "", "x.json", true, true, false},
		{"present", dir, "x.json", true, false, false},
		{"set but missing fails", dir, "missing.json", true, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.set {
				t.Setenv(EnvShared, c.env)
			} else {
				t.Setenv(EnvShared, "")
				os.Unsetenv(EnvShared)
			}
			r, p := shared(t, c.file)
			if r.skipped != c.skipped || r.failed != c.failed {
				t.Fatalf("skipped %v failed %v, want %v %v", r.skipped, r.failed, c.skipped, c.failed)
			}
			if !c.skipped && !c.failed && p != filepath.Join(dir, c.file) {
				t.Fatalf("path %q", p)
			}
		})
	}
}
