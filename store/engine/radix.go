package engine

import "slices"

// fields gives the fields of the order, most significant first (0=s 1=p
// 2=o 3=g).
func (o quadOrder) fields() [4]int {
	switch o {
	case orderOPS:
		return [4]int{2, 1, 3, 0}
	case orderPGS:
		return [4]int{1, 3, 0, 2}
	}
	return [4]int{0, 1, 3, 2}
}

// field returns field f of q (0=s 1=p 2=o 3=g).
func (q *qids) field(f int) uint64 {
	switch f {
	case 0:
		return q.s
	case 1:
		return q.p
	case 2:
		return q.o
	}
	return q.g
}

// sortQuads sorts a sorter's buffer qs in the given order, using tmp
// (len(qs) records) and dig (len(qs) digits) as scratch, and returns the
// sorted slice, which is qs or tmp. A radix pass moves every 32-byte
// record, so the sort makes as few as the order needs:
//
//   - tailSorted says qs is already in the order of its last two fields
//     (the P sorter's input comes from the S lists, in subject order):
//     a stable radix sort on the first two fields is enough;
//   - otherwise qs is radix-sorted on its first field only and each run
//     of one first field then sorted by the others (sortRuns): such runs
//     are short (an entity's few dozen quads in the S order; a literal
//     is the object of a single quad in the O order), and a whole radix
//     sort would spend three more passes on them. On the buffers of a
//     200k-entity Wikidata load this took 35% less time than the radix
//     sort of every field (BenchmarkSortQuads).
func sortQuads(qs, tmp []qids, dig []uint16, order quadOrder, tailSorted bool) []qids {
	if tailSorted {
		return radixSortFields(qs, tmp, dig, order, 2)
	}
	sorted := radixSortFields(qs, tmp, dig, order, 1)
	scratch := tmp
	if len(sorted) > 0 && &sorted[0] == &tmp[0] {
		scratch = qs
	}
	sortRuns(sorted, scratch, dig, order)
	return sorted
}

// sortRuns sorts every run of records sharing the order's first field by
// the whole order: a run shorter than runRadixMin with a comparison sort,
// a longer one (a hub) with the radix sort, using scratch and dig at the
// run's offset.
func sortRuns(qs, scratch []qids, dig []uint16, order quadOrder) {
	f := order.fields()[0]
	cmp := order.cmp
	for i := 0; i < len(qs); {
		v := qs[i].field(f)
		j := i + 1
		for j < len(qs) && qs[j].field(f) == v {
			j++
		}
		switch n := j - i; {
		case n == 1:
		case n < runRadixMin:
			slices.SortFunc(qs[i:j], cmp)
		default:
			if r := radixSortQuads(qs[i:j], scratch[i:j], dig[i:j], order); &r[0] != &qs[i] {
				copy(qs[i:j], r)
			}
		}
		i = j
	}
}

// radixMinRun is the shortest slice radixSortFields radix-sorts. A run
// (sortRuns) is radix-sorted from runRadixMin records: each pass clears and
// sums 65,536 counts, and below that a comparison sort of a run (in input
// order, often nearly sorted) was faster on the buffers of a Wikidata
// load (thresholds 256, 1024, 2048, 4096, 16384 and none tried; 4096 best).
const (
	radixMinRun = 256
	runRadixMin = 4096
)

// radixSortQuads sorts qs in the given order with an LSD radix sort on
// 16-bit digits, using tmp (len(qs) records) and dig (len(qs) digits) as
// scratch; it returns the sorted slice, which is qs or tmp. Passes whose
// digit is the same for every record (high bits of small ids, a single
// graph) are skipped, so a load with fewer than 2^32 terms costs at most
// two passes per field. It is several times faster than a comparison sort
// on these 32-byte records.
func radixSortQuads(qs, tmp []qids, dig []uint16, order quadOrder) []qids {
	return radixSortFields(qs, tmp, dig, order, 4)
}

// radixSortFields sorts qs stably by the first k fields of the order
// (radixSortQuads is k = 4). A slice shorter than radixMinRun is sorted
// by the whole order, which is a stable sort by any first fields only
// when the records are distinct or in order by the rest (as sortQuads's
// callers' are).
func radixSortFields(qs, tmp []qids, dig []uint16, order quadOrder, k int) []qids {
	n := len(qs)
	if n < radixMinRun {
		sortSmall(qs, order)
		return qs
	}
	tmp, dig = tmp[:n], dig[:n]
	fields := order.fields()
	var maxv [4]uint64
	for i := range qs {
		q := &qs[i]
		maxv[0] |= q.s
		maxv[1] |= q.p
		maxv[2] |= q.o
		maxv[3] |= q.g
	}
	src, dst := qs, tmp
	var count [1 << 16]int
	for fi := k - 1; fi >= 0; fi-- {
		f := fields[fi]
		for shift := uint(0); shift < 64 && maxv[f]>>shift != 0; shift += 16 {
			quadDigits(src, f, shift, dig)
			clear(count[:])
			for _, d := range dig {
				count[d]++
			}
			if count[dig[0]] == n {
				continue // one digit value: nothing to reorder
			}
			sum := 0
			for i, c := range count {
				count[i] = sum
				sum += c
			}
			for i, d := range dig {
				dst[count[d]] = src[i]
				count[d]++
			}
			src, dst = dst, src
		}
	}
	return src
}

// quadDigits extracts the 16-bit digit at shift of field f of every quad.
func quadDigits(qs []qids, f int, shift uint, dig []uint16) {
	switch f {
	case 0:
		for i := range qs {
			dig[i] = uint16(qs[i].s >> shift)
		}
	case 1:
		for i := range qs {
			dig[i] = uint16(qs[i].p >> shift)
		}
	case 2:
		for i := range qs {
			dig[i] = uint16(qs[i].o >> shift)
		}
	default:
		for i := range qs {
			dig[i] = uint16(qs[i].g >> shift)
		}
	}
}

// sortSmall is an insertion sort for short runs.
func sortSmall(qs []qids, order quadOrder) {
	for i := 1; i < len(qs); i++ {
		for j := i; j > 0 && order.cmp(qs[j], qs[j-1]) < 0; j-- {
			qs[j], qs[j-1] = qs[j-1], qs[j]
		}
	}
}
