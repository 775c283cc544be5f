// Package vspebble holds the Go benchmarks that run pebble
// (github.com/cockroachdb/pebble v1.1.5) and minicass's storage engine side
// by side on the same logical rows: a text partition key, an int clustering
// key and a 20-byte value, written, flushed to SSTables, the store closed and
// reopened, then read hot (both block caches 32 MiB).
//
// pebble is a dependency of the module only for the benchmarks (this
// package and the data-model peers of package bench, which minicass bench
// runs); no package of the storage engine or the CQL layer imports it. Run
// it with (bench/RESULTS.md gives the commands):
//
//	go test ./bench/vspebble -run '^$' -bench . -benchtime 20000x -count 6
package vspebble
