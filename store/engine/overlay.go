package engine

import "slices"

// Write-back state of one ApplyDeltas batch. Every delta edits decoded
// posting lists and pending key values in memory; the batch then writes
// each touched key once, in one Badger transaction. So a batch of 10,000
// quads costs one write per touched key (not one per delta), which keeps
// batches of Cayley's usual size within Badger's transaction limit, and a
// large posting list keeps its chunk layout: only the chunks a batch
// changed (and chunk 0, which holds the total) are written again.

// pendingVal is a key's value as the batch left it.
type pendingVal struct {
	v   []byte
	del bool
}

// groupEdit is one posting list (S, O or P group) edited by the batch.
type groupEdit struct {
	chunks       [][]uint64 // stored chunk layout (one chunk for an inline group)
	dirty        []bool
	count        int64
	storedCount  int64
	storedChunks int // chunk keys stored (0 for an inline or absent group)
}

// value returns a key's value as the batch sees it.
func (u *updater) value(key []byte) ([]byte, bool, error) {
	if p, ok := u.pending[string(key)]; ok {
		return p.v, !p.del, nil
	}
	return txnGet(u.txn, key)
}

func (u *updater) set(key, v []byte) { u.put(key, pendingVal{v: v}) }
func (u *updater) remove(key []byte) { u.put(key, pendingVal{del: true}) }

// put records a key's new value, keeping pendingBytes, the size Badger
// will count for the pending entries (entrySize), up to date.
func (u *updater) put(key []byte, p pendingVal) {
	if old, ok := u.pending[string(key)]; ok {
		u.pendingBytes -= entrySize(len(key), len(old.v))
	}
	u.pending[string(key)] = p
	u.pendingBytes += entrySize(len(key), len(p.v))
}

// entrySize is what Badger counts of an entry against a transaction's
// size limit (Txn.checkSize): key, value and metadata; a value over the
// value-log threshold counts its pointer instead, so this is an upper
// bound for those.
func entrySize(key, value int) int64 { return int64(key+value) + 12 }

// summary returns a node's block in one segment as the batch sees it
// (decoded once per batch; writeGroups updates the decoded copy and
// encodes it once).
func (u *updater) summary(space byte, seg uint8, id uint64) ([]sumEntry, error) {
	key := string(appendBlockKey(nil, space, seg, id))
	if es, ok := u.blocks[key]; ok {
		return es, nil
	}
	v, ok, err := u.value([]byte(key))
	var es []sumEntry
	if err == nil && ok {
		es, err = decodeSummary(v, nil)
	}
	if err != nil {
		return nil, err
	}
	u.blocks[key] = es
	return es, nil
}

// segment is the node-block segment of graph g's groups: its record's,
// 0 for a graph new in this batch (see segment.go).
func (u *updater) segment(g uint64) uint8 {
	if gm, ok := u.graphs[g]; ok {
		return gm.Segment
	}
	return 0
}

// group loads (once per batch) the posting list under a group key.
func (u *updater) group(key []byte) (*groupEdit, error) {
	if ge, ok := u.groups[string(key)]; ok {
		return ge, nil
	}
	ge := &groupEdit{}
	chunked := true
	if isNodeGroup(key) {
		g := getID(key[17:])
		es, err := u.summary(key[0], u.segment(g), getID(key[1:]))
		if err != nil {
			return nil, err
		}
		e, ok := findEntry(es, getID(key[9:]), g)
		chunked = ok && !e.inline()
		if ok && e.inline() {
			ge.chunks = [][]uint64{slices.Clone(e.ids)}
			ge.count = e.count
		}
	}
	for c := 0; chunked; c++ {
		v, ok, err := u.value(withChunk(slices.Clone(key), uint32(c)))
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		ids, err := decodeChunk(nil, v, c == 0)
		if err != nil {
			return nil, err
		}
		ge.chunks = append(ge.chunks, ids)
		ge.count += int64(len(ids))
		ge.storedChunks++
	}
	ge.storedCount = ge.count
	ge.dirty = make([]bool, len(ge.chunks))
	if !isNodeGroup(key) {
		u.lists++
	}
	u.groups[string(key)] = ge
	u.order = append(u.order, string(key))
	return ge, nil
}

// find returns the chunk that holds or would hold id.
func (ge *groupEdit) find(id uint64) int {
	c, _ := slices.BinarySearchFunc(ge.chunks, id, func(ch []uint64, id uint64) int {
		if len(ch) == 0 || ch[len(ch)-1] < id {
			return -1
		}
		return 1
	})
	return min(c, len(ge.chunks)-1)
}

// edit inserts or removes id; it reports whether the list changed.
func (ge *groupEdit) edit(id uint64, insert bool) bool {
	if len(ge.chunks) == 0 {
		if !insert {
			return false
		}
		ge.chunks, ge.dirty = [][]uint64{{id}}, []bool{true}
		ge.count = 1
		return true
	}
	c := ge.find(id)
	var changed bool
	if insert {
		ge.chunks[c], changed = insertSorted(ge.chunks[c], id)
	} else {
		ge.chunks[c], changed = removeSorted(ge.chunks[c], id)
	}
	if !changed {
		return false
	}
	ge.dirty[c] = true
	if insert {
		ge.count++
	} else {
		ge.count--
	}
	if len(ge.chunks[c]) == 0 && len(ge.chunks) > 1 {
		// Drop the emptied chunk; the chunks after it are renumbered.
		ge.chunks = slices.Delete(ge.chunks, c, c+1)
		ge.dirty = slices.Delete(ge.dirty, c, c+1)
		for i := c; i < len(ge.dirty); i++ {
			ge.dirty[i] = true
		}
	}
	if len(ge.chunks[min(c, len(ge.chunks)-1)]) > 2*chunkSize {
		// Split the chunk; the chunks after it are renumbered.
		half := slices.Clone(ge.chunks[c][chunkSize:])
		ge.chunks[c] = ge.chunks[c][:chunkSize]
		ge.chunks = slices.Insert(ge.chunks, c+1, half)
		ge.dirty = slices.Insert(ge.dirty, c+1, true)
		for i := c + 1; i < len(ge.dirty); i++ {
			ge.dirty[i] = true
		}
	}
	return true
}

// writeGroups stores every group the batch changed and their node blocks.
func (u *updater) writeGroups() error {
	slices.Sort(u.order)
	changed := map[string]bool{}
	for _, k := range u.order {
		ge := u.groups[k]
		if ge.count == ge.storedCount && !slices.Contains(ge.dirty, true) {
			continue
		}
		if err := u.writeGroup([]byte(k), ge); err != nil {
			return err
		}
		if isNodeGroup([]byte(k)) {
			changed[string(appendBlockKey(nil, k[0], u.segment(getID([]byte(k[17:]))), getID([]byte(k[1:]))))] = true
		}
	}
	for key := range changed {
		if es := u.blocks[key]; len(es) == 0 {
			u.remove([]byte(key))
		} else {
			u.set([]byte(key), encodeSummary(es))
		}
	}
	return nil
}

func (u *updater) writeGroup(key []byte, ge *groupEdit) error {
	node := isNodeGroup(key)
	var list []uint64
	if node && ge.count <= inlineMax {
		for _, ch := range ge.chunks {
			list = append(list, ch...)
		}
		ge.chunks = nil // inline: no chunk keys
	} else if ge.count == 0 {
		ge.chunks = nil
	} else {
		if ge.storedChunks == 0 {
			// New or formerly inline: lay the list out in full chunks.
			var all []uint64
			for _, ch := range ge.chunks {
				all = append(all, ch...)
			}
			ge.chunks = nil
			for i := 0; i < len(all); i += chunkSize {
				ge.chunks = append(ge.chunks, all[i:min(i+chunkSize, len(all))])
			}
			ge.dirty = make([]bool, len(ge.chunks))
			for i := range ge.dirty {
				ge.dirty[i] = true
			}
		}
		if len(ge.dirty) > 0 {
			ge.dirty[0] = true // chunk 0 holds the total
		}
		for i, ch := range ge.chunks {
			if ge.dirty[i] {
				u.set(withChunk(slices.Clone(key), uint32(i)), encodeChunk(nil, ch, i == 0, int(ge.count)))
			}
		}
	}
	for i := len(ge.chunks); i < ge.storedChunks; i++ {
		u.remove(withChunk(slices.Clone(key), uint32(i)))
	}
	if !node {
		return nil
	}
	space, a, b, g := key[0], getID(key[1:]), getID(key[9:]), getID(key[17:])
	seg := u.segment(g)
	es, err := u.summary(space, seg, a)
	if err != nil {
		return err
	}
	u.blocks[string(appendBlockKey(nil, space, seg, a))] = mergeSummary(es, []sumEntry{{p: b, g: g, count: ge.count, ids: list}})
	return nil
}

// flush writes every pending key into the transaction.
func (u *updater) flush() error {
	keys := make([]string, 0, len(u.pending))
	for k := range u.pending {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := u.pending[k]
		var err error
		if p.del {
			err = u.txn.Delete([]byte(k))
		} else {
			err = u.txn.Set([]byte(k), p.v)
		}
		if err != nil {
			return err
		}
	}
	clear(u.pending)
	return nil
}

// termID looks a term up as the batch sees the dictionary.
func (u *updater) termID(enc []byte) (uint64, bool, error) {
	v, ok, err := u.value(termKey(enc))
	if err == nil && !ok && legacyLongTerm(enc) {
		return legacyTermID(u.value, enc)
	}
	if err != nil || !ok {
		return 0, false, err
	}
	if len(v) != idLen {
		return 0, false, errBadTerm
	}
	return getID(v), true, nil
}

// setTerm stores (term nil: removes) the term of id in its id block.
func (u *updater) setTerm(id uint64, term []byte) error {
	key := idBlockKey(id)
	v, _, err := u.value(key)
	if err != nil {
		return err
	}
	s, err := decodeIDBlock(v)
	if err != nil {
		return err
	}
	s[id&(idBlockSize-1)] = term
	if s.count() == 0 {
		u.remove(key)
	} else {
		u.set(key, s.encode())
	}
	return nil
}
