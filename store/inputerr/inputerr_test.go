package inputerr

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestError(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{Errorf("dump.json", 12, "claims.P31[0]", "unknown datatype %q", "x"), `dump.json:12: claims.P31[0]: unknown datatype "x"`},
		{Errorf("q.json", 0, "", "empty file"), "q.json: empty file"},
		{Errorf("a.nt", 3, "", "bad IRI"), "a.nt:3: bad IRI"},
		{&Error{File: "f", Field: "x", Err: io.EOF}, "f: x: EOF"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	wrapped := fmt.Errorf("load: %w", &Error{File: "f", Line: 1, Err: io.ErrUnexpectedEOF})
	var e *Error
	if !errors.As(wrapped, &e) || e.Line != 1 || !errors.Is(wrapped, io.ErrUnexpectedEOF) {
		t.Fatalf("errors.As/Is failed on %v", wrapped)
	}
}
