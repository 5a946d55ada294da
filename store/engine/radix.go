package engine

// radixSortQuads sorts qs in the given order with an LSD radix sort on
// 16-bit digits, using tmp (len(qs) records) and dig (len(qs) digits) as
// scratch; it returns the sorted slice, which is qs or tmp. Passes whose
// digit is the same for every record (high bits of small ids, a single
// graph) are skipped, so a load with fewer than 2^32 terms costs at most
// two passes per field. It is several times faster than a comparison sort
// on these 32-byte records.
func radixSortQuads(qs, tmp []qids, dig []uint16, order quadOrder) []qids {
	n := len(qs)
	if n < 256 {
		sortSmall(qs, order)
		return qs
	}
	tmp, dig = tmp[:n], dig[:n]
	var fields [4]int // most significant first: 0=s 1=p 2=o 3=g
	switch order {
	case orderOPS:
		fields = [4]int{2, 1, 3, 0}
	case orderPGS:
		fields = [4]int{1, 3, 0, 2}
	default:
		fields = [4]int{0, 1, 3, 2}
	}
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
	for fi := 3; fi >= 0; fi-- {
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
