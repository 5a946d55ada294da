package synth

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"testing"
	"time"
)

type wdEntity struct {
	Type      string                       `json:"type"`
	ID        string                       `json:"id"`
	Labels    map[string]json.RawMessage   `json:"labels"`
	Claims    map[string][]json.RawMessage `json:"claims"`
	Sitelinks map[string]json.RawMessage   `json:"sitelinks"`
}

// TestWikidataShape checks that the output is a valid dump array and that
// its distributions match the calibration in the package comment.
func TestWikidataShape(t *testing.T) {
	const n = 6000
	var buf bytes.Buffer
	st, err := WriteWikidata(&buf, WikidataConfig{Entities: n, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if st.Entities != n || st.Bytes != int64(buf.Len()) {
		t.Fatalf("stats %+v for %d bytes", st, buf.Len())
	}
	var all []wdEntity
	if err := json.Unmarshal(buf.Bytes(), &all); err != nil {
		t.Fatalf("not a JSON array: %v", err)
	}
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) != n+2 || string(lines[0]) != "[" || string(lines[n+1]) != "]" {
		t.Fatalf("want [, one entity per line, ]: %d lines", len(lines))
	}
	var items, noSitelinks, stmts int
	var sizes []int
	for i, e := range all {
		if e.Type != "item" {
			continue
		}
		items++
		c := 0
		for _, s := range e.Claims {
			c += len(s)
		}
		stmts += c
		if len(e.Sitelinks) == 0 {
			noSitelinks++
		}
		sizes = append(sizes, len(lines[i+1]))
	}
	mean := float64(stmts) / float64(items)
	if mean < 11 || mean > 20 {
		t.Errorf("mean statements per item %.1f, want about 15", mean)
	}
	if f := float64(noSitelinks) / float64(items); f < 0.7 || f > 0.82 {
		t.Errorf("%.2f of items without sitelinks, want about 0.76", f)
	}
	slices.Sort(sizes)
	var total int
	for _, s := range sizes {
		total += s
	}
	meanSize := total / len(sizes)
	if meanSize < 6000 || meanSize > 20000 {
		t.Errorf("mean entity %d bytes, want 10-14 KB", meanSize)
	}
	// The largest 2% are the size of the real sample's entities (median
	// 45 KB there).
	if top := sizes[len(sizes)*99/100]; top < 30000 {
		t.Errorf("99th percentile entity %d bytes, want the real sample's size (tens of KB)", top)
	}
	t.Logf("%+v; mean item %d B, median %d B, p99 %d B, max %d B, %.1f statements/item",
		st, meanSize, sizes[len(sizes)/2], sizes[len(sizes)*99/100], sizes[len(sizes)-1], mean)
}

func TestWikidataDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	WriteWikidata(&a, WikidataConfig{Entities: 500, Seed: 3})
	WriteWikidata(&b, WikidataConfig{Entities: 500, Seed: 3})
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("same seed, different output")
	}
}

// TestWikidataFewEntities: a file of a few entities (one property) is
// written, and quickly: a snak group asked more distinct properties than
// exist once looped forever.
func TestWikidataFewEntities(t *testing.T) {
	for _, n := range []int64{1, 2, 10, 25} {
		done := make(chan error, 1)
		var st WikidataStats
		go func() {
			var err error
			st, err = WriteWikidata(io.Discard, WikidataConfig{Entities: n, Seed: 3})
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil || st.Entities != n {
				t.Fatalf("%d entities: wrote %d, %v", n, st.Entities, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%d entities: still writing after 20 s", n)
		}
	}
}
