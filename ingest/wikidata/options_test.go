package wikidata

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseClaimFilter(t *testing.T) {
	tests := []struct {
		in      string
		want    ClaimFilter
		wantErr string
	}{
		{"", nil, ""},
		{"P31", ClaimFilter{{Property: "P31"}}, ""},
		{"P31:Q5", ClaimFilter{{Property: "P31", Values: []string{"Q5"}}}, ""},
		{" P31 : Q5 , Q6 & ~P570 ", ClaimFilter{
			{Property: "P31", Values: []string{"Q5", "Q6"}},
			{Property: "P570", Negate: true}}, ""},
		{"P434:5b11f4ce-a62d-471e-81fc-a69a8278c7da", ClaimFilter{
			{Property: "P434", Values: []string{"5b11f4ce-a62d-471e-81fc-a69a8278c7da"}}}, ""},
		{"Q31", nil, `"Q31" is not a property id`},
		{"P31:", nil, "empty value"},
		{"P31&&P17", nil, `"" is not a property id`},
		{"P031", nil, "not a property id"},
		{"P31:Q5,,Q6", nil, "empty value"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseClaimFilter(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestParseIDs(t *testing.T) {
	got, err := ParseIDs("Q64, Q183 P17\nL7")
	want := map[string]bool{"Q64": true, "Q183": true, "P17": true, "L7": true}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, bad := range []string{"Q64,X1", "Q", "Q0", "Qx", "M5"} {
		if _, err := ParseIDs(bad); err == nil {
			t.Errorf("ParseIDs(%q): want error", bad)
		}
	}
}

func TestIsEntityID(t *testing.T) {
	tests := []struct {
		s    string
		kind byte
		want bool
	}{
		{"Q64", 'Q', true}, {"Q64", 'P', false}, {"P17", 0, true}, {"L7", 0, true},
		{"Q", 0, false}, {"Q01", 0, false}, {"Q6a", 0, false}, {"E1", 0, false}, {"", 0, false},
	}
	for _, tt := range tests {
		if got := isEntityID(tt.s, tt.kind); got != tt.want {
			t.Errorf("isEntityID(%q, %q) = %v", tt.s, tt.kind, got)
		}
	}
}

func TestWithDefaults(t *testing.T) {
	o := Options{}.withDefaults()
	if !reflect.DeepEqual(o.Languages, []string{"en"}) || o.Workers < 1 || o.BatchBytes != DefaultBatchBytes ||
		o.MaxLineBytes != DefaultMaxLineBytes || o.Logger == nil {
		t.Fatalf("defaults: %+v", o)
	}
}

func FuzzParseClaimFilter(f *testing.F) {
	for _, s := range []string{"P31:Q5,Q6&~P570", "P31", "~", "P1:&", ":::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cf, err := ParseClaimFilter(s)
		if err != nil {
			return
		}
		for _, c := range cf {
			if !isEntityID(c.Property, 'P') {
				t.Fatalf("%q: accepted property %q", s, c.Property)
			}
			for _, v := range c.Values {
				if v == "" {
					t.Fatalf("%q: accepted empty value", s)
				}
			}
		}
	})
}
