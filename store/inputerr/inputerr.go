// Package inputerr is the error every Grove reader returns for bad input:
// a reason positioned at a file, a line and (optionally) a field, such as
// "dump.json:12: claims.P31[0].mainsnak: unknown datatype" or
// "qald_10.json:12: question[0].string: empty", so that a user can see
// where to fix the file. Dump readers (package ingest/source) and question
// set readers (package reasoner/eval/dataset) both use it; it lives here,
// below both, because they may not import each other. Callers find it
// with errors.As.
package inputerr

import "fmt"

// Error is a bad-input error positioned at a file, line and field.
type Error struct {
	File  string
	Line  int64 // 1-based; 0 when the error is not about one line
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
