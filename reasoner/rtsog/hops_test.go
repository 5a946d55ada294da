package rtsog

import (
	"testing"

	"github.com/grove-kg/grove/reasoner/internal/hood"
	"github.com/grove-kg/grove/store"
)

// TestHopsCountOnlyMediatorsAsOneStep: a hop onto a mediator (a node with
// contents) and the hop out of it are one step; a hop onto an unlabelled
// item that is no mediator (no contents: a city outside a loaded subset,
// an unnamed hub) is a step of its own.
func TestHopsCountOnlyMediatorsAsOneStep(t *testing.T) {
	perf := []hood.Part{{Label: "actor", Value: store.Entity{ID: "/en/harrison_ford", Label: "Harrison Ford"}}}
	for _, tc := range []struct {
		name      string
		mid       store.Entity
		described []hood.Part
		want      int
	}{
		{"labelled", store.Entity{ID: "Q64", Label: "Berlin"}, nil, 2},
		{"mediator", store.Entity{ID: "_:film/perf1"}, perf, 1},
		{"unlabelled item", store.Entity{ID: "Q1486"}, nil, 2},
		{"unlabelled item described by nothing", store.Entity{ID: "Q1486"}, []hood.Part{}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := &node{}
			topic := &node{parent: root, depth: 1, entity: store.Entity{ID: "Q84", Label: "London"}}
			mid := &node{parent: topic, depth: 2, entity: tc.mid, described: tc.described, hop: &hop{}}
			leaf := &node{parent: mid, depth: 3, entity: store.Entity{ID: "Q90", Label: "Paris"}, hop: &hop{}}
			if got := leaf.hops(); got != tc.want {
				t.Errorf("hops() = %d, want %d", got, tc.want)
			}
		})
	}
}
