package query

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/storetest"
)

// TestGizmoMatchesKG checks that Cayley's Gizmo, running on the engine,
// returns the same answers as the KG interface.
func TestGizmoMatchesKG(t *testing.T) {
	db := storetest.Film(t)
	ctx := context.Background()
	res, err := Run(ctx, db, "gizmo",
		`g.V("</en/blade_runner>").Out("</film/film/directed_by>").Out("<name>").All()`, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || fmt.Sprint(res[0]) != "map[id:Ridley Scott]" {
		t.Fatalf("gizmo director = %v", res)
	}
	// Every film Ridley Scott directed, both ways.
	res, err = Run(ctx, db, "gizmo",
		`g.V("</en/ridley_scott>").In("</film/film/directed_by>").All()`, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var gizmo []string
	for _, r := range res {
		gizmo = append(gizmo, fmt.Sprint(r.(map[string]any)["id"]))
	}
	edges, err := db.Edges(ctx, []string{"/en/ridley_scott"}, "/film/film/directed_by", store.In, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kg []string
	for _, e := range edges {
		kg = append(kg, "</"+e.Subject.ID[1:]+">")
	}
	sort.Strings(gizmo)
	sort.Strings(kg)
	if len(kg) < 5 || !slices.Equal(gizmo, kg) {
		t.Fatalf("gizmo %v != kg %v", gizmo, kg)
	}
	// Has with a literal, through the object index and the term dictionary.
	res, err = Run(ctx, db, "gizmo", `g.V().Has("<name>", "Blade Runner").All()`, 10)
	if err != nil || len(res) != 1 {
		t.Fatalf("Has = %v, %v", res, err)
	}
}

func TestGraphQLAndMQL(t *testing.T) {
	db := storetest.Film(t)
	ctx := context.Background()
	res, err := Run(ctx, db, "graphql", `{ nodes(id: "</en/blade_runner>") { name: <name> } }`, 10)
	if err != nil || len(res) == 0 {
		t.Fatalf("graphql = %v, %v", res, err)
	}
	if s := fmt.Sprint(res); !slices.Contains([]bool{true}, len(s) > 0) {
		t.Fatal(s)
	}
	res, err = Run(ctx, db, "mql", `[{"id": "</en/blade_runner>", "<name>": null}]`, 10)
	if err != nil || len(res) == 0 {
		t.Fatalf("mql = %v, %v", res, err)
	}
	if _, err := Run(ctx, db, "sparql", "", 1); err == nil {
		t.Fatal("unsupported language accepted")
	}
}
