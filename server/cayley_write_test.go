package server

import (
	"net/url"
	"strings"
	"testing"
)

// TestCayleyWriteFormats writes through /cayley/api/v2/write in each
// supported format, chosen by Content-Type or ?format=, and reads every
// write back; unsupported formats are refused with the list of usable ones.
func TestCayleyWriteFormats(t *testing.T) {
	const token = "write-token-2"
	cases := []struct {
		name, query, ctype, body string
		status                   int
		subject                  string // read back when status is 200
		want                     string
	}{
		{"n-quads by content type", "", "application/n-quads", "<w1> <directed_by> <p1> <movies> .\n", 200, "<w1>", `"count":1`},
		{"n-triples by content type", "", "application/n-triples", "<w2> <directed_by> <p1> .\n", 200, "<w2>", `"count":1`},
		{"n-triples by format", "?format=ntriples", "application/x-www-form-urlencoded", "<w3> <directed_by> <p1> .\n", 200, "<w3>", `"count":1`},
		{"json by content type", "", "application/json; charset=utf-8",
			`[{"subject":"<w4>","predicate":"<directed_by>","object":"<p1>","label":"<movies>"}]`, 200, "<w4>", `"count":1`},
		{"json by format", "?format=json", "",
			`[{"subject":"<w5>","predicate":"<directed_by>","object":"<p1>"},{"subject":"<w5>","predicate":"<name>","object":"\"W5\""}]`, 200, "<w5>", `"count":2`},
		{"no content type", "", "", "<w6> <directed_by> <p1> .\n", 200, "<w6>", `"count":1`},
		{"unknown format", "?format=turtle", "", "<w7> <directed_by> <p1> .\n", 400, "", `format \"turtle\" cannot be written`},
		{"write-only format", "?format=graphviz", "", "x", 400, "", "cannot be written"},
		{"unknown content type", "", "text/turtle", "<w8> <directed_by> <p1> .\n", 415, "", `Content-Type \"text/turtle\" cannot be written`},
		{"bad n-quads", "", "application/n-quads", "<w9> <directed_by> <p1> .\n<w9> <directed_by .\n", 400, "", "nquads body, quad 2: "},
	}
	ts := cayleyServer(t, Config{Token: token})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hdr := map[string]string{"Content-Type": c.ctype}
			st, _, body := ts.do("POST", "/cayley/api/v2/write"+c.query, c.body, hdr)
			if st != c.status || !strings.Contains(string(body), c.want) {
				t.Fatalf("write: status %d body %s", st, body)
			}
			if c.status != 200 {
				// Nothing of a refused body is written.
				if st, _, b := ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape("<w9>"), "", nil); st != 200 || strings.Contains(string(b), "<w9>") {
					t.Fatalf("refused write left quads: %d %s", st, b)
				}
				if c.status != 400 || c.name != "bad n-quads" {
					if !strings.Contains(string(body), "nquads") || !strings.Contains(string(body), "json") {
						t.Errorf("refusal does not list the usable formats: %s", body)
					}
				}
				return
			}
			st, _, body = ts.do("GET", "/cayley/api/v2/read?sub="+url.QueryEscape(c.subject), "", nil)
			if st != 200 || !strings.Contains(string(body), c.subject+" <directed_by> <p1>") {
				t.Fatalf("read back %s: %d %s", c.subject, st, body)
			}
		})
	}
}
