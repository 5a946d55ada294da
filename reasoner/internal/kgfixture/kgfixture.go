// Package kgfixture writes the small film graph the reasoners' tests of
// "what the model sees" share. It is shaped like the Freebase film sample
// (names through <name>, performances as unlabelled CVT nodes) and built
// so that fixed caps fail:
//
//   - Ridley Scott directed 60 films whose ids sort before the one a
//     question needs ("</m/zz_gladiator>", Gladiator), so the needed edge
//     is the last of a long alphabetical list;
//   - Blade Runner has 133 performances (CVTs); the one a question needs
//     (Harrison Ford as Rick Deckard) is the last;
//   - Jerry Lewis directed 13 films, more than a cap of 10;
//   - two entities are named "Blade Runner": the film and a video game
//     (on three platforms), so a link can go wrong.
package kgfixture

import (
	"fmt"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store/engine"
	"github.com/grove-kg/grove/store/storetest"
)

// Open returns an in-memory database holding the fixture in Graph.
func Open(t testing.TB) *engine.DB {
	t.Helper()
	return storetest.Open(t, map[string]string{Graph: Film()})
}

// Graph is the fixture's graph name.
const Graph = "film"

// Ids of the fixture's entities.
const (
	BladeRunner     = "/m/blade_runner"
	BladeRunnerGame = "/m/blade_runner_game"
	RidleyScott     = "/m/ridley_scott"
	Gladiator       = "/m/zz_gladiator"
	HarrisonFord    = "/m/zz_harrison_ford"
	JerryLewis      = "/m/jerry_lewis"
)

// Counts built into the fixture.
const (
	ScottFilms   = 61
	Performances = 133
	LewisFilms   = 13
)

// Relation ids.
const (
	DirectedBy = "/film/film/directed_by"
	Starring   = "/film/film/starring"
	Actor      = "/film/performance/actor"
	Character  = "/film/performance/character"
	Released   = "/film/film/initial_release_date"
)

// Film returns the fixture as N-Triples.
func Film() string {
	var b strings.Builder
	t := func(s, p, o string) { fmt.Fprintf(&b, "%s <%s> %s .\n", s, p, o) }
	iri := func(id string) string { return "<" + id + ">" }
	lit := func(s string) string { return fmt.Sprintf("%q", s) }
	t(iri(BladeRunnerGame), "name", lit("Blade Runner"))
	for i := range 3 {
		t(iri(fmt.Sprintf("/m/game_platform_%d", i)), "name", lit(fmt.Sprintf("Platform %d", i)))
		t(iri(BladeRunnerGame), "/cvg/game/platforms", iri(fmt.Sprintf("/m/game_platform_%d", i)))
	}
	t(iri(BladeRunner), "name", lit("Blade Runner"))
	t(iri(BladeRunner), DirectedBy, iri(RidleyScott))
	t(iri(RidleyScott), "name", lit("Ridley Scott"))
	for i := range ScottFilms - 2 {
		id := fmt.Sprintf("/m/a_scott_film_%02d", i)
		t(iri(id), "name", lit(fmt.Sprintf("Scott Picture %02d", i)))
		t(iri(id), DirectedBy, iri(RidleyScott))
	}
	t(iri(Gladiator), "name", lit("Gladiator"))
	t(iri(Gladiator), DirectedBy, iri(RidleyScott))
	t(iri(Gladiator), Released, lit("2000-05-01"))
	for i := range Performances {
		p := fmt.Sprintf("_:perf%03d", i)
		actor, name, char := fmt.Sprintf("/m/actor_%03d", i), fmt.Sprintf("Actor %03d", i), fmt.Sprintf("Extra %03d", i)
		if i == Performances-1 {
			actor, name, char = HarrisonFord, "Harrison Ford", "Rick Deckard"
		}
		t(iri(BladeRunner), Starring, p)
		t(p, Actor, iri(actor))
		t(p, Character, lit(char))
		t(iri(actor), "name", lit(name))
	}
	t(iri(JerryLewis), "name", lit("Jerry Lewis"))
	for i := range LewisFilms {
		id := fmt.Sprintf("/m/lewis_film_%02d", i)
		t(iri(id), "name", lit(fmt.Sprintf("Lewis Comedy %02d", i)))
		t(iri(id), DirectedBy, iri(JerryLewis))
	}
	return b.String()
}
