package dataset

import "math/bits"

// pyRandom is CPython's random.Random: the MT19937 Mersenne Twister seeded
// the way random.seed(int) seeds it. Only what shuffle needs is implemented.
type pyRandom struct {
	mt  [mtN]uint32
	idx int
}

const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

// newPyRandom seeds like random.seed(seed): the absolute value of the seed
// is split into 32-bit words, least significant first (one zero word for 0),
// and fed to init_by_array.
func newPyRandom(seed int64) *pyRandom {
	abs := uint64(seed)
	if seed < 0 {
		abs = uint64(-(seed + 1)) + 1
	}
	key := []uint32{uint32(abs)}
	if hi := uint32(abs >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := &pyRandom{}
	r.initByArray(key)
	return r
}

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < mtN; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = mtN
}

func (r *pyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	for k := max(mtN, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := mtN - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// uint32 is genrand_uint32.
func (r *pyRandom) uint32() uint32 {
	if r.idx >= mtN {
		r.twist()
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

func (r *pyRandom) twist() {
	for k := 0; k < mtN; k++ {
		y := (r.mt[k] & mtUpperMask) | (r.mt[(k+1)%mtN] & mtLowerMask)
		next := r.mt[(k+mtM)%mtN] ^ (y >> 1)
		if y&1 != 0 {
			next ^= mtMatrixA
		}
		r.mt[k] = next
	}
	r.idx = 0
}

// getrandbits returns k random bits for 0 < k <= 32, as Python's
// getrandbits does (the top k bits of one 32-bit output).
func (r *pyRandom) getrandbits(k int) uint32 {
	return r.uint32() >> (32 - k)
}

// randbelow is Random._randbelow_with_getrandbits: draw bit_length(n) bits
// and reject values >= n. n must be in [1, 2^32).
func (r *pyRandom) randbelow(n int) int {
	k := bits.Len(uint(n))
	v := r.getrandbits(k)
	for int(v) >= n {
		v = r.getrandbits(k)
	}
	return int(v)
}

// shuffle is Random.shuffle: for i from n-1 down to 1, swap i with
// randbelow(i+1).
func (r *pyRandom) shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, r.randbelow(i+1))
	}
}
