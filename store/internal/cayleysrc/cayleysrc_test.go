package cayleysrc

import (
	"strings"
	"testing"
)

func TestIntegrationQueries(t *testing.T) {
	qs, err := IntegrationQueries()
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 10 {
		t.Fatalf("%d queries", len(qs))
	}
	var netAndSpeed bool
	for _, q := range qs {
		// The co-star queries are built on the suite's "common" constant.
		if strings.Contains(q, "m1_actors.intersect(m2_actors)") && strings.Contains(q, "var m1_actors") {
			netAndSpeed = true
		}
	}
	if !netAndSpeed {
		t.Fatalf("Net and Speed query (with its common prefix) missing from %d queries", len(qs))
	}
}
