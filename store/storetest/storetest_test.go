package storetest

import (
	"context"
	"testing"

	"github.com/grove-kg/grove/store"
)

func TestOpenInMemory(t *testing.T) {
	db := Open(t, map[string]string{"g": `<a> <http://www.w3.org/2000/01/rdf-schema#label> "Alpha" .
<a> <knows> <b> .
<b> <http://www.w3.org/2000/01/rdf-schema#label> "Beta" .
_:x <knows> <a> .
`})
	ctx := context.Background()
	c, err := db.Search(ctx, "g", "alpha", 3)
	if err != nil || len(c) != 1 || c[0].ID != "a" {
		t.Fatalf("search = %+v, %v", c, err)
	}
	n, err := db.Neighbors(ctx, "a", "", store.Both, 0)
	if err != nil || len(n) != 2 {
		t.Fatalf("neighbors = %+v, %v", n, err)
	}
	if _, err := db.Entity(ctx, "_:g/x"); err != nil {
		t.Fatalf("scoped blank node: %v", err)
	}
}
