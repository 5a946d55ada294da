package store

import "errors"

// ErrTooBig is returned (wrapped) by a store when one write batch is too
// large for one transaction; nothing of the batch was written, and the
// same writes in smaller batches may succeed (see ApplyInParts).
var ErrTooBig = errors.New("too large for one transaction")

// ApplyInParts calls apply on items as one batch and, while apply fails
// with ErrTooBig, on halves of the failing batch, in order, so that a
// batch too large for one transaction is written in as few as fit. apply
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
	half := len(items) / 2
	n, err := ApplyInParts(items[:half], apply)
	if err != nil {
		return n, err
	}
	m, err := ApplyInParts(items[half:], apply)
	return n + m, err
}
