// Package vspebble holds the Go benchmarks that run pebble
// (github.com/cockroachdb/pebble v1.1.5) and minicass's storage engine side
// by side on the same logical rows: a text partition key, an int clustering
// key and a 20-byte value, written, flushed to SSTables, the store closed and
// reopened, then read hot (both block caches 32 MiB).
//
// It is a module of its own so that pebble and its dependencies stay out of
// minicass's go.mod: nothing in minicass imports it. Run it from this
// directory (bench/RESULTS.md gives the commands):
//
//	go test -run '^$' -bench . -benchtime 20000x -count 6
package vspebble
