package labelindex

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/blevesearch/vellum"
)

func BenchmarkProbeRegistry(b *testing.B) {
	bld := NewBuilder()
	for i, l := range genLabels(1_000_000, 1) {
		bld.Add(l, uint64(i))
	}
	s := bld.stream()
	var keys [][]byte
	for s.next() {
		keys = append(keys, append([]byte(nil), s.key()...))
	}
	for _, size := range []int{10000, 100000, 1000000} {
		t := time.Now()
		var buf bytes.Buffer
		fb, _ := vellum.New(&buf, &vellum.BuilderOpts{Encoder: 1, RegistryTableSize: size, RegistryMRUSize: 2})
		for i, k := range keys {
			fb.Insert(k, uint64(i*5))
		}
		fb.Close()
		fmt.Println(size, buf.Len(), time.Since(t))
	}
}
