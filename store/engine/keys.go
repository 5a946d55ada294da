package engine

import (
	"crypto/sha256"
	"encoding/binary"
)

// Key layout. The first byte of every key names its keyspace; ids are 8-byte
// big-endian term ids so that keys sort by id and prefix scans are exact.
//
//	m<name>                      meta: format version, next id, stats, graphs
//	t<term>                      term -> id (8 bytes)
//	h<sha256(term)>              term -> id, for terms over maxInlineTerm bytes
//	i<id/16>                     id -> term, 16 ids per key (idblock.go)
//	S<s><p><g><chunk>            posting list of objects o for (s, p, g)
//	O<o><p><g><chunk>            posting list of subjects s for (o, p, g)
//	P<p><g><chunk>               posting list of subjects s having p in g
//	R<S|O><id>                   node block: (p, g, count) of every group,
//	                             with the members of small groups inline
//	R<s|o><k><id>                the same, for the graphs of segment k
//	                             (1-7; segment.go)
//
// S and O chunk keys exist only for groups of more than inlineMax members
// (summary.go); smaller groups live in the node block. A posting list is
// split into chunks of at most chunkSize ids (chunk is a 4-byte big-endian
// number). Chunk 0 starts with the total number of ids in the list. The
// count of every group of a node is in its block, so listing the
// relations of a hub costs O(relations), not O(edges).
const (
	spaceMeta  = 'm'
	spaceTerm  = 't'
	spaceHash  = 'h'
	spaceID    = 'i'
	spaceSPO   = 'S'
	spaceOPS   = 'O'
	spacePred  = 'P'
	idLen      = 8
	chunkLen   = 4
	groupLen   = 1 + 3*idLen // S/O keys without the chunk suffix
	predGroup  = 1 + 2*idLen // P keys without the chunk suffix
	chunkSize  = 4096
	metaPrefix = "m"
)

func putID(b []byte, id uint64) { binary.BigEndian.PutUint64(b, id) }
func getID(b []byte) uint64     { return binary.BigEndian.Uint64(b) }

// maxInlineTerm is the longest term encoding that is its own dictionary
// key: Badger refuses keys over 65,000 bytes (its table format cannot hold
// more than 65,535), so a longer term (a literal holding a document or a
// WKT polygon) is keyed by its SHA-256 in the h keyspace instead. The id ->
// term side holds every term whole. Every term that fit in a key before
// keeps its key.
const maxInlineTerm = 65000 - 1

// termKey is the key of the term -> id entry.
func termKey(term []byte) []byte {
	if len(term) > maxInlineTerm {
		return hashKey(term)
	}
	k := make([]byte, 1+len(term))
	k[0] = spaceTerm
	copy(k[1:], term)
	return k
}

// maxLegacyTerm is the longest term encoding earlier versions' bulk
// loader wrote as a t key (Badger's StreamWriter does not check the 65,000
// bytes its transactions do; its table format holds keys of up to 65,535
// bytes with the 8-byte version, and the space byte). A database written
// by them may hold t keys of maxInlineTerm+1 to maxLegacyTerm bytes of
// term, which lookups and deletes also find (legacyLongTerm).
const maxLegacyTerm = 65535 - 8 - 1

// legacyLongTerm reports whether a term's entry may be a t key written by
// an earlier version although termKey gives its h key.
func legacyLongTerm(term []byte) bool { return len(term) > maxInlineTerm && len(term) <= maxLegacyTerm }

// hashKey is the key of the term -> id entry of a term over maxInlineTerm
// bytes.
func hashKey(term []byte) []byte {
	sum := sha256.Sum256(term)
	return append([]byte{spaceHash}, sum[:]...)
}

// groupKey builds S<a><b><g> or O<a><b><g> (no chunk suffix) into dst.
func groupKey(dst []byte, space byte, a, b, g uint64) []byte {
	dst = append(dst[:0], space)
	dst = binary.BigEndian.AppendUint64(dst, a)
	dst = binary.BigEndian.AppendUint64(dst, b)
	return binary.BigEndian.AppendUint64(dst, g)
}

// predKey builds P<p><g> (no chunk suffix) into dst.
func predKey(dst []byte, p, g uint64) []byte {
	dst = append(dst[:0], spacePred)
	dst = binary.BigEndian.AppendUint64(dst, p)
	return binary.BigEndian.AppendUint64(dst, g)
}

// withChunk appends a chunk number to a group key.
func withChunk(group []byte, chunk uint32) []byte {
	return binary.BigEndian.AppendUint32(group, chunk)
}

// prefix1 returns <space><a>.
func prefix1(space byte, a uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{space}, a)
}

// splitPred decodes a P key.
func splitPred(k []byte) (p, g uint64, chunk uint32, ok bool) {
	if len(k) != predGroup+chunkLen {
		return 0, 0, 0, false
	}
	return getID(k[1:]), getID(k[9:]), binary.BigEndian.Uint32(k[17:]), true
}
