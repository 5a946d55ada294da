package server

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestUTF8Reader: the body passes through unchanged when it is UTF-8,
// however reads split its sequences, and fails at the first invalid byte
// (or a sequence cut off at the end) with its offset.
func TestUTF8Reader(t *testing.T) {
	for _, c := range []struct {
		name, body string
		bad        string // part of the error; "" for none
	}{
		{"ascii", `{"a":"b"}`, ""},
		{"multibyte", "café ☕ 𝄞 naïve", ""},
		{"invalid byte", "ab\xffcd", "invalid UTF-8 at byte 2"},
		{"overlong", "ab\xc0\xafcd", "invalid UTF-8 at byte 2"},
		{"surrogate", "a\xed\xa0\x80b", "invalid UTF-8 at byte 1"},
		{"cut at the end", "abc\xe2\x98", "at byte 3"},
		{"invalid after multibyte", "é\xff", "invalid UTF-8 at byte 2"},
	} {
		for _, how := range []string{"whole", "one byte at a time", "EOF with the last bytes"} {
			name := c.name + "/" + how
			var src io.Reader = strings.NewReader(c.body)
			switch how {
			case "one byte at a time":
				src = iotest.OneByteReader(src)
			case "EOF with the last bytes":
				src = iotest.DataErrReader(iotest.OneByteReader(src))
			}
			t.Run(name, func(t *testing.T) {
				out, err := io.ReadAll(&utf8Reader{r: src, format: "json"})
				var ae *apiError
				switch {
				case c.bad == "" && (err != nil || string(out) != c.body):
					t.Fatalf("read %q, %v; want the body unchanged", out, err)
				case c.bad != "" && (!errors.As(err, &ae) || ae.status != 400 || !strings.Contains(ae.msg, c.bad)):
					t.Fatalf("err %v, want a 400 with %q", err, c.bad)
				}
			})
		}
	}
}
