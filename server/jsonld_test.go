package server

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
)

// FuzzJSONLDQuads: no JSON-LD body makes the reader panic, and every
// refusal is a client error (400) naming the jsonld body.
func FuzzJSONLDQuads(f *testing.F) {
	for _, s := range []string{
		`{"@context":{"p":"http://x/p"},"@id":"http://x/a","p":"v"}`,
		`{"@context":"/etc/passwd","@id":"http://x/a","p":"v"}`,
		`{"@context":["http://x/c",{"q":"http://x/q"}],"@id":"http://x/a","q":1}`,
		`{"@context":{"@version":1.1,"@import":"http://x/c"}}`,
		`[{"@id":"_:b0","http://x/p":{"@value":"07","@type":"http://www.w3.org/2001/XMLSchema#integer"}}]`,
		`{"@graph":[{"@id":"http://x/a","http://x/p":{"@id":"http://x/b"}}],"@id":"http://x/g"}`,
		`{"@id":"_:g","@graph":[{"@id":"_:x","http://x/p":{"@id":"_:y"}}]}`,
		`"http://x/doc"`, `5`, `null`, ``, `{} {}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		qs, err := jsonldQuads(strings.NewReader(body), "jsonld-fuzz")
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.status != 400 || !strings.HasPrefix(ae.msg, "jsonld body: ") {
				t.Fatalf("error %v is not a 400 about the jsonld body", err)
			}
			return
		}
		for _, q := range qs {
			if q.Subject == nil || q.Predicate == nil || q.Object == nil {
				t.Fatalf("incomplete quad %v", q)
			}
			// Every blank node is named within the body's scope.
			for _, v := range []quad.Value{q.Subject, q.Predicate, q.Object, q.Label} {
				if b, ok := v.(quad.BNode); ok && !strings.HasPrefix(string(b), "jsonld-fuzz-") {
					t.Fatalf("blank node %v of quad %v is not in the body's scope", b, q)
				}
			}
		}
	})
}

// FuzzPQuadsBody: no pquads body or value makes the server's readers
// panic.
func FuzzPQuadsBody(f *testing.F) {
	f.Add([]byte("\x00pq\x00\x01\x00\x00\x00\x02\x10\x01\x02\x0a\x00"))
	f.Add([]byte("xx"))
	f.Add([]byte{})
	pq := quad.FormatByName("pquads")
	if pq == nil {
		f.Fatal("pquads is not registered")
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		qr, err := safeReader(pq.Name, pq.Reader, bytes.NewReader(body))
		if err == nil {
			for range 1000 {
				if _, err := qr.ReadQuad(); err != nil {
					break
				}
			}
			_ = qr.Close()
		}
		_, _ = unmarshalValue(pq, body)
	})
}
