package store

import "testing"

func TestInverseLabel(t *testing.T) {
	for _, c := range []struct{ label, want string }{
		{"directed by", "directed"},
		{"followed by", "followed"},
		{"director", "is director of"},
		{"place of birth", "is place of birth of"},
		{"instance of", "has instance"},
		{"subclass of", "has subclass"},
		{"shares border with", "inverse of shares border with"},
		{"named after", "inverse of named after"},
		{"located in the administrative territorial entity", "inverse of located in the administrative territorial entity"},
		{"follows", "inverse of follows"},
		{"has part(s)", "inverse of has part(s)"},
		{"is followed by", "inverse of is followed by"},
		{"by", "inverse of by"},
		{"P27", "inverse of P27"},
		{"", ""},
	} {
		if got := InverseLabel(c.label); got != c.want {
			t.Errorf("InverseLabel(%q) = %q, want %q", c.label, got, c.want)
		}
	}
}
