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
