package dataset

import "github.com/grove-kg/grove/store/inputerr"

// Error is a bad-record error positioned at a dataset file, line and
// (optionally) field, e.g. "qald_10.json:12: question[0].string: empty".
// Every reader reports bad records this way, so callers can show where to
// fix the file (errors.As). It is the same type as store/inputerr.Error,
// which the dump readers return too.
type Error = inputerr.Error

// Errorf builds a positioned error.
func Errorf(file string, line int64, field, format string, args ...any) *Error {
	return inputerr.Errorf(file, line, field, format, args...)
}
