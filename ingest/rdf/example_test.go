package rdf_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/grove-kg/grove/ingest/rdf"
	"github.com/grove-kg/grove/ingest/source"
)

// Reading a Freebase excerpt: ids are shortened, keys dropped, names kept
// in English only.
func ExampleReader_freebase() {
	dump := `<http://rdf.freebase.com/ns/m.0d3k14>	<http://rdf.freebase.com/ns/type.object.name>	"John F. Kennedy"@en	.
<http://rdf.freebase.com/ns/m.0d3k14>	<http://rdf.freebase.com/ns/type.object.name>	"Джон Кеннеди"@ru	.
<http://rdf.freebase.com/ns/m.0d3k14>	<http://rdf.freebase.com/key/wikipedia.en>	"John_F._Kennedy"	.
<http://rdf.freebase.com/ns/m.0d3k14>	<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>	<http://rdf.freebase.com/ns/people.person>	.
`
	r := rdf.New(rdf.Options{Dialect: rdf.Freebase{}})
	w := source.WriterFunc(func(q quad.Quad) error { fmt.Println(q); return nil })
	if err := r.Read(context.Background(), "fb.nt", strings.NewReader(dump), w); err != nil {
		fmt.Println(err)
	}
	// Output:
	// <m.0d3k14> -- <type.object.name> -> "John F. Kennedy"@en
	// <m.0d3k14> -- <type.object.type> -> <people.person>
}

// Bad lines are errors naming file, line and column, or are skipped and
// reported with SkipInvalid.
func ExampleReader_skipInvalid() {
	text := "<s> <p> <o> .\n<s> <p> \"oops .\n_:b1 <p> \"ok\"@en .\n"
	opts := rdf.Options{Options: source.Options{
		Graph:       "demo",
		SkipInvalid: true,
		OnSkip:      func(err *source.Error) { fmt.Println("skipped:", err) },
	}}
	w := source.WriterFunc(func(q quad.Quad) error { fmt.Println(q); return nil })
	if err := rdf.New(opts).Read(context.Background(), "demo.nt", strings.NewReader(text), w); err != nil {
		fmt.Println(err)
	}
	// Output:
	// <s> -- <p> -> <o>
	// skipped: demo.nt:2: object at column 9: unterminated literal
	// _:demo/b1 -- <p> -> "ok"@en
}
