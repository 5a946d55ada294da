package urlsafe

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	secret := func(k string) bool { return strings.Contains(strings.ToLower(k), "password") }
	for _, c := range []struct {
		raw      string
		hideUser bool
		secret   func(string) bool
		want     string
		ok       bool
	}{
		{"http://u:pw@h:8890/sparql?apikey=K&x=1#f", true, nil, "http://***@h:8890/sparql?apikey=***&x=***", true},
		{"postgres://grove:pw@h/db?sslmode=disable&password=s3", false, secret, "postgres://grove@h/db?sslmode=disable&password=***", true},
		{"http://h/sparql", true, nil, "http://h/sparql", true},
		{"postgres://grove:s3cret%zzpw@h/db", false, secret, "", false},
	} {
		got, ok := Redact(c.raw, c.hideUser, c.secret)
		if got != c.want || ok != c.ok {
			t.Errorf("Redact(%q) = %q, %v; want %q, %v", c.raw, got, ok, c.want, c.ok)
		}
		if strings.Contains(got, "pw") || strings.Contains(got, "s3") || strings.Contains(got, "=K") {
			t.Errorf("Redact(%q) = %q shows a secret", c.raw, got)
		}
	}
}
