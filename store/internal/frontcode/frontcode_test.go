package frontcode

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"
)

func encode(keys [][]byte) []byte {
	var e Encoder
	var out []byte
	for _, k := range keys {
		out = e.Append(out, k)
	}
	return out
}

func decodeAll(t *testing.T, data []byte, max int) ([][]byte, error) {
	t.Helper()
	d := Decoder{MaxLen: max}
	r := bufio.NewReader(bytes.NewReader(data))
	var got [][]byte
	for {
		k, err := d.Next(r)
		if errors.Is(err, io.EOF) {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		got = append(got, slices.Clone(k))
	}
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		size int // encoded size, -1: do not check
	}{
		{"empty list", nil, 0},
		{"one empty key", []string{""}, 2},
		{"one key", []string{"abc"}, 5},
		{"shared prefixes", []string{"http://a/x", "http://a/xy", "http://a/z"}, 12 + 3 + 3},
		{"repeat", []string{"same", "same"}, 6 + 2},
		{"unsorted", []string{"b", "ab", "abc", ""}, -1},
		{"long", []string{string(bytes.Repeat([]byte("x"), 300)), string(bytes.Repeat([]byte("x"), 301))}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var keys [][]byte
			for _, k := range tc.keys {
				keys = append(keys, []byte(k))
			}
			data := encode(keys)
			if tc.size >= 0 && len(data) != tc.size {
				t.Errorf("encoded size %d, want %d", len(data), tc.size)
			}
			got, err := decodeAll(t, data, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(keys) {
				t.Fatalf("decoded %d keys, want %d", len(got), len(keys))
			}
			for i := range keys {
				if !bytes.Equal(got[i], keys[i]) {
					t.Errorf("key %d = %q, want %q", i, got[i], keys[i])
				}
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	good := encode([][]byte{[]byte("abcdef"), []byte("abcxyz")})
	tests := []struct {
		name string
		data []byte
		max  int
		want error
	}{
		{"cut inside the first length", good[:1], 0, io.ErrUnexpectedEOF},
		{"cut inside a suffix", good[:5], 0, io.ErrUnexpectedEOF},
		{"cut inside the second entry", good[:len(good)-1], 0, io.ErrUnexpectedEOF},
		{"prefix longer than the previous key", []byte{3, 1, 'a'}, 0, ErrCorrupt},
		{"longer than the limit", good, 4, ErrCorrupt},
		{"huge suffix length", []byte{0, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 0, ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeAll(t, tc.data, tc.max)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
}

// prefixLenRef is the byte-by-byte definition CommonPrefixLen must match.
func prefixLenRef(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func TestCommonPrefixLen(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 0}, {"abc", "abd", 2}, {"abc", "abc", 3}, {"ab", "abc", 2}, {"x", "y", 0},
		{"http://www.wikidata.org/entity/Q1", "http://www.wikidata.org/entity/Q2", 32},
		{"http://www.wikidata.org/entity/Q1", "http://www.wikidata.org/entity/Q10", 33},
		{"0123456789abcdef", "0123456789abcdef", 16}, {"01234567", "01234567x", 8},
	}
	for _, tc := range tests {
		if got := CommonPrefixLen([]byte(tc.a), []byte(tc.b)); got != tc.want {
			t.Errorf("CommonPrefixLen(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	// Every length up to 40 (whole words, tails, both orders of the
	// arguments) with the first difference at every position.
	for n := 0; n <= 40; n++ {
		a := make([]byte, n)
		for i := range a {
			a[i] = byte('a' + i%26)
		}
		for m := 0; m <= n; m++ {
			if got, want := CommonPrefixLen(a, a[:m]), m; got != want {
				t.Fatalf("prefix of length %d of a %d-byte key: got %d", m, n, got)
			}
			if got := CommonPrefixLen(a[:m], a); got != m {
				t.Fatalf("reversed, prefix %d of %d: got %d", m, n, got)
			}
		}
		for d := 0; d < n; d++ {
			b := bytes.Clone(a)
			b[d] ^= 0x80
			if got := CommonPrefixLen(a, b); got != d {
				t.Fatalf("length %d, difference at %d: got %d", n, d, got)
			}
		}
	}
}

// FuzzCommonPrefixLen checks the word-at-a-time comparison against the
// byte-wise definition.
func FuzzCommonPrefixLen(f *testing.F) {
	f.Add([]byte("http://a/x"), []byte("http://a/y"))
	f.Add([]byte("0123456789abcdefg"), []byte("0123456789abcdefh"))
	f.Add([]byte{}, []byte{1})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if got, want := CommonPrefixLen(a, b), prefixLenRef(a, b); got != want {
			t.Fatalf("CommonPrefixLen(%q, %q) = %d, want %d", a, b, got, want)
		}
	})
}

// BenchmarkCommonPrefixLen compares the word-at-a-time CommonPrefixLen with
// the byte-wise definition on IRIs that share a 32-byte namespace.
func BenchmarkCommonPrefixLen(b *testing.B) {
	x := []byte("http://www.wikidata.org/entity/statement/Q42-1F7F9B5C")
	y := []byte("http://www.wikidata.org/entity/statement/Q42-1F7F9B6D")
	for _, bc := range []struct {
		name string
		fn   func(a, b []byte) int
	}{{"words", CommonPrefixLen}, {"bytes", prefixLenRef}} {
		b.Run(bc.name, func(b *testing.B) {
			n := 0
			for b.Loop() {
				n += bc.fn(x, y)
			}
			if n == 0 {
				b.Fatal("no common prefix")
			}
		})
	}
}

// FuzzDecode feeds arbitrary bytes to the decoder (it must not panic or
// allocate past its limit) and checks that what decodes re-encodes to the
// same bytes.
func FuzzDecode(f *testing.F) {
	f.Add(encode([][]byte{[]byte("http://a/x"), []byte("http://a/y")}))
	f.Add([]byte{3, 1, 'a'})
	f.Add([]byte{0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, data []byte) {
		keys, err := decodeAll(t, data, 1<<16)
		if err != nil {
			return
		}
		if again := encode(keys); len(keys) > 0 && !bytes.Equal(again, data) {
			// Only a minimal encoding round-trips byte for byte; a longer
			// shared prefix is never written, so check the keys instead.
			back, err := decodeAll(t, again, 1<<16)
			if err != nil || len(back) != len(keys) {
				t.Fatalf("re-encoded list does not decode: %v", err)
			}
			for i := range keys {
				if !bytes.Equal(back[i], keys[i]) {
					t.Fatalf("key %d changed: %q -> %q", i, keys[i], back[i])
				}
			}
		}
	})
}
