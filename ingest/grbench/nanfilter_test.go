package grbench

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readAllSmall reads r through a tiny buffer, to exercise partial reads.
func readAllSmall(r io.Reader, size int) ([]byte, error) {
	var out bytes.Buffer
	buf := make([]byte, size)
	for {
		n, err := r.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			return out.Bytes(), nil
		}
		if err != nil {
			return out.Bytes(), err
		}
	}
}

func TestNaNFilter(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": NaN}`, `{"a": {} }`},
		{`[Infinity, -Infinity, -1, 2]`, `[{}      , {}       , -1, 2]`},
		{`["NaN", "a\"NaN", "\\", NaN]`, `["NaN", "a\"NaN", "\\", {} ]`},
		{`{"k\\\"NaN": "Infinity"}`, `{"k\\\"NaN": "Infinity"}`},
		{`NaNaN`, `{} aN`},
		{`Na`, `Na`},
		{`-`, `-`},
		{`-Inf`, `-Inf`},
		{`"unterminated NaN`, `"unterminated NaN`},
		{``, ``},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 3, 4096} {
			got, err := readAllSmall(newNaNFilter(iotest.OneByteReader(strings.NewReader(tt.in))), size)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("filter(%q) with %d-byte reads = %q, want %q", tt.in, size, got, tt.want)
			}
		}
		got, err := io.ReadAll(newNaNFilter(strings.NewReader(tt.in)))
		if err != nil || string(got) != tt.want {
			t.Errorf("filter(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestNaNFilterError(t *testing.T) {
	boom := io.ErrClosedPipe
	r := io.MultiReader(strings.NewReader(`[NaN, `), iotest.ErrReader(boom))
	got, err := io.ReadAll(newNaNFilter(r))
	if err != boom || string(got) != `[{} , ` {
		t.Fatalf("got %q, %v; want the data then %v", got, err, boom)
	}
}

// FuzzNaNFilter checks that the filter keeps the length, does not depend on
// how the input is chunked, is idempotent, and leaves inputs without N and I
// alone.
func FuzzNaNFilter(f *testing.F) {
	for _, s := range []string{`{"a": NaN}`, `[-Infinity, "NaN\"", Infinity]`, `"\\"NaN`, `Na`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, err := io.ReadAll(newNaNFilter(bytes.NewReader(in)))
		if err != nil {
			t.Fatal(err)
		}
		chunked, err := readAllSmall(newNaNFilter(iotest.OneByteReader(bytes.NewReader(in))), 2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(whole, chunked) {
			t.Fatalf("chunking changes output: %q vs %q", whole, chunked)
		}
		if len(whole) != len(in) {
			t.Fatalf("length %d, want %d", len(whole), len(in))
		}
		again, _ := io.ReadAll(newNaNFilter(bytes.NewReader(whole)))
		if !bytes.Equal(again, whole) {
			t.Fatalf("not idempotent: %q then %q", whole, again)
		}
		if !bytes.ContainsAny(in, "NI") && !bytes.Equal(whole, in) {
			t.Fatalf("changed input without tokens: %q -> %q", in, whole)
		}
	})
}
