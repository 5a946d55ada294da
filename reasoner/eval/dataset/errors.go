package dataset

import "fmt"

// Error is a bad-record error positioned at a dataset file, line and
// (optionally) field, e.g. "qald_10.json:12: question[0].string: empty".
// Every reader reports bad records this way, so callers can show where to
// fix the file (errors.As).
type Error struct {
	File  string
	Line  int64
	Field string
	Err   error
}

// Error formats file:line: field: reason.
func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s = fmt.Sprintf("%s:%d", s, e.Line)
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the underlying reason.
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds a positioned error.
func Errorf(file string, line int64, field, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Field: field, Err: fmt.Errorf(format, args...)}
}
