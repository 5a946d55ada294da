// Package server is `grove serve`: Grove's HTTP server over one database.
//
// It serves four things from one net/http ServeMux (Go 1.22 patterns):
//
//   - a versioned JSON API under /v1 over the store.KG interface (graphs,
//     stats, search, entity, relations, edges, neighbors, degree, features,
//     sameas), described by the hand-written OpenAPI 3 document embedded
//     from openapi.json and served at /v1/openapi.json;
//   - question answering: POST /v1/ask runs a reasoning method from a
//     reasoner.Registry and returns the answer with its trace, and POST
//     /v1/ask/stream streams the run as Server-Sent Events (every node as
//     the tree grows, every model and KG call, then the result);
//   - Cayley's own HTTP API v2 mounted under /cayley/ (Gizmo, GraphQL and
//     MQL queries, quad reads and, when allowed, writes) over the engine's
//     Cayley QuadStore, routed by a router of the server's own (404 and 405
//     answers in JSON; a trailing slash is served as the path without it
//     rather than redirected); on a backend without a Cayley quad store
//     (the SPARQL one) every /cayley/ route answers why instead
//     (Deps.NoCayley: 501, or 403 for a write), and the server is
//     read-only (read_only in /v1/stats and on the page);
//   - the embedded web page of package server/web at /, plus /healthz,
//     /readyz (503 when the store does not list its graphs within 3 s,
//     readyTimeout) and Prometheus /metrics.
//
// Every route is registered through one wrapper (middleware.go) that gives
// the request an id, recovers panics (logging the stack, never sending it),
// checks the bearer token, bounds the body size, sets the per-request
// timeout (a context deadline plus a write deadline, so streams are not cut
// by a global WriteTimeout), records the latency histogram of the route and
// writes the slog access-log line. Handlers answer errors through
// writeError, which only ever shows clients messages written for them
// (apiError) or store.ErrNotFound messages; anything else becomes a generic
// 500 naming the request id, with the details in the server log. Cayley
// queries need more than the middleware: Gizmo evaluates a program in a
// goroutine of its own, so each query runs over a per-request query.Guard
// (with Gizmo's native functions sandboxed by store/query) and a panic
// recovered there is answered as that same 500 (cayley.go). Cayley's write
// routes (write, delete, node/delete) are served by this package with
// Cayley's request and answer shapes (cayley_write.go): a body in N-Quads,
// N-Triples or Cayley's JSON, by ?format= or Content-Type, is parsed once
// before anything is written, so bad input is a 400 (N-Quads by the parser
// of grove ingest, ingest/rdf, which keeps literals as written, where
// Cayley's turns "07"^^xsd:integer into 7; JSON-LD with no document
// loader, jsonld.go, so a context named by URL or path is refused rather
// than fetched or opened; a panic of Cayley's pquads decoder on malformed
// input is a 400 naming the format); it is applied in one transaction
// if it holds up to 65,536 quads (else one per 65,536), split while the
// store finds one too large, and a node delete is the engine's DeleteNode
// (one transaction up to 65,536 quads, a recorded unfinished delete past
// that); and the store's refusals are classified (507 disk full, 503 out of
// files, 413, 404 for a missing quad or node), each answer saying how many
// quads were applied before it, never the store's own error text.
//
// Security model. A server listening on a non-loopback address must have a
// bearer token (checked in New, again in Serve against the real listener,
// and compared in constant time through SHA-256 digests). With a token,
// every route except the page, its assets, /healthz, /readyz and the
// OpenAPI document requires it. Writes exist only in the Cayley mount and
// are allowed only when the server is not read-only, has a token and has a
// Cayley quad store.
// Query results are capped (Config.MaxResults, also Cayley's query limit),
// ids per request are bounded, the request body is bounded, and Cayley
// reads are cut at a byte budget where their format allows (after a whole
// line or JSON element), ending with an explicit marker and a
// Grove-Truncated trailer, so a client can tell a cut read from a whole one.
//
// Reasoning runs. The server owns the model: clients choose the method and
// its parameters, each numeric parameter only within Config.Ask.ParamCaps,
// and never a model, endpoint or key. A semaphore bounds runs in flight
// (429 with Retry-After beyond it). Each run gets its own model wrapper
// that enforces a call budget and caps samples and max tokens per call
// (and a reply over 16 bytes per max token, at least 64 KiB, is dropped
// with an error before the trace or the metrics see it),
// and the model is observed (llm.Observe) for the Prometheus counters of
// calls, tokens and cache hits. Error texts and traces sent to clients pass
// a redactor that removes URLs, key-shaped strings, the token and the
// database path, any string listed in Deps.Redact (and a listed URL's host
// and host:port), and replaces the text of network errors, which name
// hosts and resolved addresses, by "the model server could not be
// reached"; the model's description shows no endpoint. A run's context is
// the request's, so a client that disconnects cancels its run; the
// streaming handler runs the method in a goroutine, receives trace events
// through a bounded buffer that never blocks the run (node updates
// coalesce per node, call events beyond the bound are dropped and counted
// in a "dropped" event) and is the only writer of the connection.
//
// Shutdown. Serve stops accepting connections when its context ends, lets
// in-flight requests finish within Config.ShutdownTimeout, then cancels
// the rest through the requests' base context, and waits for every run to
// end before returning, so Run can close the database cleanly. Run wires
// this to SIGINT and SIGTERM.
//
// Metrics live in a per-Server prometheus.Registry, never the global one.
package server
