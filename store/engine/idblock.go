package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	badger "github.com/dgraph-io/badger/v4"
)

// Id -> term blocks. Ids are handed out sequentially, so the terms of 16
// consecutive ids share one key:
//
//	i<id >> 4>  ->  16 slots, each uvarint(len(term)+1) then the term;
//	                0 marks an empty slot, trailing empty slots are omitted
//
// A bulk load writes a sixteenth of the keys one entry per id would cost;
// a read is still one point read plus a short scan of the block.
const (
	idBlockBits = 4
	idBlockSize = 1 << idBlockBits
)

var errBadIDBlock = errors.New("corrupt id block")

// idBlockKey is the key of the block holding id.
func idBlockKey(id uint64) []byte {
	k := make([]byte, 1+idLen)
	k[0] = spaceID
	putID(k[1:], id>>idBlockBits)
	return k
}

// idBlockFirst is the first id of the block with key k.
func idBlockFirst(k []byte) (uint64, bool) {
	if len(k) != 1+idLen {
		return 0, false
	}
	return getID(k[1:]) << idBlockBits, true
}

// idSlots are the terms of one block (nil: empty slot).
type idSlots [idBlockSize][]byte

func decodeIDBlock(v []byte) (idSlots, error) {
	var s idSlots
	for i := 0; len(v) > 0; i++ {
		if i == idBlockSize {
			return s, errBadIDBlock
		}
		n, k := binary.Uvarint(v)
		if k <= 0 || n > uint64(len(v)-k)+1 {
			return s, errBadIDBlock
		}
		v = v[k:]
		if n > 0 {
			s[i] = v[: n-1 : n-1]
			v = v[n-1:]
		}
	}
	return s, nil
}

func (s *idSlots) encode() []byte { return s.appendTo(nil) }

// appendTo appends the block's encoding to b.
func (s *idSlots) appendTo(b []byte) []byte {
	last, n := -1, 0
	for i, t := range s {
		if t != nil {
			last = i
			n += len(t) + binary.MaxVarintLen32
		}
	}
	b = slices.Grow(b, n+idBlockSize)
	for _, t := range s[:last+1] {
		if t == nil {
			b = append(b, 0)
			continue
		}
		b = binary.AppendUvarint(b, uint64(len(t))+1)
		b = append(b, t...)
	}
	return b
}

func (s *idSlots) count() int {
	n := 0
	for _, t := range s {
		if t != nil {
			n++
		}
	}
	return n
}

// readIDBlock returns the stored block holding id (all slots empty if
// none). The slots alias the value: they are valid for the transaction.
func readIDBlock(txn *badger.Txn, id uint64) (idSlots, error) {
	item, err := txn.Get(idBlockKey(id))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return idSlots{}, nil
	} else if err != nil {
		return idSlots{}, err
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return idSlots{}, err
	}
	s, err := decodeIDBlock(v)
	if err != nil {
		return s, fmt.Errorf("id block of %d: %w", id, err)
	}
	return s, nil
}

// termBytes returns the encoded term of id (badger.ErrKeyNotFound if the
// id has none).
func termBytes(txn *badger.Txn, id uint64) ([]byte, error) {
	s, err := readIDBlock(txn, id)
	if err != nil {
		return nil, err
	}
	t := s[id&(idBlockSize-1)]
	if t == nil {
		return nil, badger.ErrKeyNotFound
	}
	return t, nil
}
