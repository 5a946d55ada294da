package store

import (
	"slices"
	"testing"
)

func TestSortQualifiers(t *testing.T) {
	fs := []Feature{
		{Statement: "s2", Relation: "P580", Value: "1990"},
		{Statement: "s1", Relation: "P582", Value: "2001"},
		{Statement: "s2", Relation: "P39", ValueID: "Q2", Value: "b"},
		{Statement: "s1", Relation: "P580", Value: "1999"},
		{Statement: "s2", Relation: "P39", ValueID: "Q1", Value: "z"},
		{Relation: "P1", Value: "x"},
	}
	SortQualifiers(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Statement+"/"+f.Relation+"/"+f.ValueID+"/"+f.Value)
	}
	want := []string{"/P1//x", "s1/P580//1999", "s1/P582//2001", "s2/P39/Q1/z", "s2/P39/Q2/b", "s2/P580//1990"}
	if !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
	if n := len(GroupQualifiers(fs)); n != 3 {
		t.Errorf("%d statement groups after sorting, want 3 (each statement's qualifiers consecutive)", n)
	}
}
