package data

import "testing"

// BenchmarkRowInto decodes a typical stored row: a 5-byte clustering,
// microsecond timestamps, live deletions, no expiry, one 20-byte cell.
func BenchmarkRowInto(b *testing.B) {
	r := Row{Clustering: []byte{0x04, 0x80, 0, 0, 1}, Liveness: LivenessInfo{Timestamp: 1_700_000_000_000_000, ExpiresAt: NoDeletionTime}, Deletion: LiveDeletion,
		Cells: []Cell{{Column: "v", Timestamp: 1_700_000_000_000_000, LocalDeletionTime: NoDeletionTime, Value: []byte("0123456789abcdefghij")}}}
	enc := AppendRow(nil, &r)
	var out Row
	var names ColumnNames
	for b.Loop() {
		d := NewDecoder(enc)
		d.RowInto(&out, &names)
		if d.Err() != nil {
			b.Fatal(d.Err())
		}
	}
}

// BenchmarkAppendRow encodes the row BenchmarkRowInto decodes.
func BenchmarkAppendRow(b *testing.B) {
	r := Row{Clustering: []byte{0x04, 0x80, 0, 0, 1}, Liveness: LivenessInfo{Timestamp: 1_700_000_000_000_000, ExpiresAt: NoDeletionTime}, Deletion: LiveDeletion,
		Cells: []Cell{{Column: "v", Timestamp: 1_700_000_000_000_000, LocalDeletionTime: NoDeletionTime, Value: []byte("0123456789abcdefghij")}}}
	buf := make([]byte, 0, 256)
	for b.Loop() {
		buf = AppendRow(buf[:0], &r)
	}
}

// narrowBenchMutation is BenchmarkPut's narrow mutation: a 10-byte key, one
// row of BenchmarkRowInto's shape.
func narrowBenchMutation() *Mutation {
	return &Mutation{Table: TableID{1, 2, 3}, Key: []byte("key0012345"), PartitionDeletion: LiveDeletion,
		Rows: []Row{{Clustering: []byte{0x04, 0x80, 0, 0, 1}, Liveness: LivenessInfo{Timestamp: 1_700_000_000_000_000, ExpiresAt: NoDeletionTime}, Deletion: LiveDeletion,
			Cells: []Cell{{Column: "v", Timestamp: 1_700_000_000_000_000, LocalDeletionTime: NoDeletionTime, Value: []byte("0123456789abcdefghij")}}}}}
}

// BenchmarkCompactMutationNarrow sizes and encodes a narrow mutation in
// the compact encoding, as every commit-log append of a narrow write does.
func BenchmarkCompactMutationNarrow(b *testing.B) {
	m := narrowBenchMutation()
	buf := make([]byte, 0, 256)
	for b.Loop() {
		n := CompactMutationSize(m)
		buf = AppendCompactMutation(buf[:0:n], m)
	}
}
