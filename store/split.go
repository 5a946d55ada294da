package store

import "errors"

// ErrTooBig is returned (wrapped) by a store when one write batch is too
// large for one transaction; nothing of the batch was written, and the
// same writes in smaller batches may succeed (see ApplyInParts).
var ErrTooBig = errors.New("too large for one transaction")

// TooBigError is an ErrTooBig (errors.Is) that says how many of the
// batch's first items the store expects to fit in one transaction, so
// that ApplyInParts cuts the batch there instead of trying halves, each
// failed try costing the work of the whole try.
type TooBigError struct {
	// Fit is the number of the batch's first items expected to fit (at
	// least 1); 0 when unknown.
	Fit int
}

func (e *TooBigError) Error() string { return ErrTooBig.Error() }

// Is reports target == ErrTooBig.
func (e *TooBigError) Is(target error) bool { return target == ErrTooBig }

// ApplyInParts calls apply on items as one batch and, while apply fails
// with ErrTooBig, on parts of the failing batch, in order: the first part
// as many items as the store said fit (TooBigError), else half of them,
// so that a batch too large for one transaction is written in as few as
// fit. apply
// must write a batch whole or not at all. It returns the number of items
// written before an error; a single item apply refuses as too big is
// returned as the error.
func ApplyInParts[T any](items []T, apply func([]T) error) (int, error) {
	if len(items) == 0 {
		return 0, nil
	}
	err := apply(items)
	if err == nil {
		return len(items), nil
	}
	if !errors.Is(err, ErrTooBig) || len(items) == 1 {
		return 0, err
	}
	cut := len(items) / 2
	var tb *TooBigError
	if errors.As(err, &tb) && tb.Fit > 0 && tb.Fit < len(items) {
		cut = tb.Fit
	}
	n, err := ApplyInParts(items[:cut], apply)
	if err != nil {
		return n, err
	}
	m, err := ApplyInParts(items[cut:], apply)
	return n + m, err
}
