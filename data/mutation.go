package data

// TableID identifies a table for its whole life: a table dropped and created
// again under the same name gets a new ID, so old commit-log records and
// SSTables never resurface in the new table. It is a UUID's 16 bytes.
type TableID [16]byte

// Mutation is a set of changes to one partition of one table, applied
// atomically (the unit of the commit log and of memtable application).
type Mutation struct {
	// Table is the target table.
	Table TableID
	// Key is the partition key: the serialized value of a single-column key,
	// or the composite encoding of a multi-column key
	// (partitioner.CompositeKey).
	Key []byte
	// PartitionDeletion deletes the whole partition, LiveDeletion if none.
	PartitionDeletion DeletionTime
	// RangeTombstones delete slices of rows.
	RangeTombstones []RangeTombstone
	// Static is the static row update, nil if none.
	Static *Row
	// Rows are the row updates; each row's cells must be sorted by CompareID.
	Rows []Row
}

// IsEmpty reports whether m changes nothing.
func (m *Mutation) IsEmpty() bool {
	return m.PartitionDeletion.IsLive() && len(m.RangeTombstones) == 0 && (m.Static == nil || m.Static.IsEmpty()) && len(m.Rows) == 0
}

// Size returns an estimate of the memory m's data occupies, in bytes, used for
// memtable accounting and the maximum mutation size.
func (m *Mutation) Size() int {
	n := 64 + len(m.Key)
	for _, rt := range m.RangeTombstones {
		n += 48 + len(rt.Start) + len(rt.End)
	}
	if m.Static != nil {
		n += m.Static.Size()
	}
	for i := range m.Rows {
		n += m.Rows[i].Size()
	}
	return n
}

// Size returns an estimate of the memory r occupies, in bytes.
func (r *Row) Size() int {
	n := 96 + len(r.Clustering) + 40*len(r.ColumnDeletions)
	for i := range r.Cells {
		n += r.Cells[i].Size()
	}
	return n
}

// Size returns an estimate of the memory c occupies, in bytes (the struct
// plus its value and path; column names are shared with the schema).
func (c *Cell) Size() int {
	return 88 + len(c.Path) + len(c.Value)
}
