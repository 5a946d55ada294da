package engine

import (
	"testing"
)

func TestZZReadOnlyTwice(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	loadQuads(t, db, "a", synthQuads(5, 20000))
	db.Close()
	r1, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal("ro1", err)
	}
	r2, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal("ro2", err)
	}
	t.Log(len(quadSet(t, r1)), len(quadSet(t, r2)))
	_, err = Open(dir, Options{})
	t.Log("rw while ro:", err)
	r1.Close()
	r2.Close()
	w, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, Options{ReadOnly: true})
	t.Log("ro while rw:", err)
	w.Close()
}
