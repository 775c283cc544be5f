// Package sstable writes and reads minicass SSTables: immutable sorted files
// holding the partitions of one memtable flush or compaction, laid out as
// Cassandra's "big" format components (Data.db, Index.db, Summary.db,
// Filter.db, Statistics.db, CompressionInfo.db, Digest.crc32, TOC.txt) with
// minicass's own encodings. The byte layout of every component is in
// FORMAT.md, with a worked example, and next to the code that writes it.
//
// A Writer takes partitions in token order (BeginPartition, AddRow in
// clustering order, EndPartition) and Finish makes the table durable, TOC
// last, renamed into place so that it is never torn. A Reader, from Open, answers Get (bloom filter, summary, index,
// data), Scan over a token range, and streams rows of a partition over
// clustering slices forward or reverse; inside wide partitions a row index
// lets reads seek to the blocks they need. Everything read is checksummed:
// corruption is reported as an error wrapping ErrCorruption that names the
// file and offset, never served as data. Reads count what they touched in
// ReadStats.
//
// Readers share a Cache (ReaderOptions.Cache; an engine makes one): a
// block cache of decompressed chunks, checked Index.db spans and the record
// positions of reverse reads, and a key cache of index entries, as
// Cassandra's chunk cache and key cache are. A warm read of a hot partition
// touches neither Index.db nor a codec, and allocates nothing once its
// Partition is released (Partition.Release). Forward row reads stream
// records out of the chunks (a LIMIT 10 decodes about 10 rows); reverse
// reads walk one block's record positions (cached) from its end.
//
// Layout prints a table's physical layout (chunks, partitions, row-index
// blocks) and Dump its content in the JSON of Cassandra's sstabledump, given
// the table's schema.
//
// Keys and values are opaque: clustering keys are byte-comparable
// (bytes.Compare order), partitions are ordered by data.ComparePartitions.
package sstable
