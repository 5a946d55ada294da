// Package backendbench compares the KG backends (embedded engine, SPARQL
// on Virtuoso, SQL on PostgreSQL) on the same calls over the film sample;
// see backends_test.go and BENCHMARKS.md.
package backendbench
