// Package bench holds minicass's benchmarks: data-model experiments
// described by YAML profiles (Profile, RunProfile, WriteHTML: the same
// logical rows stored by several data models, the same questions timed in
// memtable, flushed and compacted states, beside pebble and gocql peers,
// with sweeps and an HTML report; bench/README.md is the reader's guide),
// the Go benchmarks (go test -bench . ./bench) behind RESULTS.md, and the
// built-in workload runner of `minicass bench`.
//
// # Stores
//
// A workload drives a Store, the same operations at three layers:
//
//	engine  engine.Apply and engine.ReadPartition with mutations built by hand
//	        (the bytes the CQL layer would build for the same row)
//	cql     the Go API (package minicass): prepared INSERT and SELECT, rows
//	        scanned into Go values
//	btree   a plain github.com/google/btree of (k, c) -> v behind a RWMutex,
//	        the peer: the least work an ordered in-memory store can do
//
// Every store holds the table
//
//	CREATE TABLE bench.t (k bigint, c bigint, v blob, PRIMARY KEY (k, c))
//
// # Peers
//
// Absolute times on a shared, noisy machine say little. Each workload runs
// twice in the same process, once on the subject store and once on a peer
// (by default the btree), with the same operations in the same order from the
// same seed, and reports the ratio of their mean times per operation. Ratios
// measured in one run are comparable across machines and runs; the absolute
// numbers are printed only for context.
//
// # Workloads
//
//	narrow-write       Partitions partitions of one row each
//	wide-write         WidePartitions partitions of Rows rows, written round-robin
//	point-read         Ops reads of one random narrow partition out of Partitions
//	latest-n           Ops reads of the first N rows of one partition of Width rows
//	latest-n-reverse   the same, reading the last N rows (a reverse walk)
//	mixed              Ops operations on Partitions narrow partitions, a fraction
//	                   ReadFraction reads and the rest overwrites
//
// Read workloads load their data first (untimed) and, with Config.Flush,
// flush it to SSTables before the timed phase, so the reads measure the
// memtable or the SSTable read path.
package bench
