package data

import "errors"

// ErrNoRow is returned by MutationBuilder.AddCell when no row was added
// since Reset.
var ErrNoRow = errors.New("data: MutationBuilder.AddCell before AddRow")

// MutationBuilder builds one mutation at a time into storage it keeps and
// reuses: the rows, the cells and one buffer for every byte string (key,
// clusterings, values, paths). A writer that applies each mutation before
// building the next, as engine.Apply allows (it keeps nothing of a mutation
// once it returns), allocates nothing per mutation once that storage has
// grown to its largest mutation. The zero MutationBuilder is ready to use;
// it is not safe for concurrent use.
//
// It covers the common shape of a write: a partition key, rows with a
// clustering, a liveness record and cells, and a static row. Anything else
// (a partition deletion, range tombstones, row or column deletions) is set
// on the mutation Mutation returns, with memory the caller keeps valid
// until the mutation is applied.
type MutationBuilder struct {
	m      Mutation
	rows   []Row
	static Row
	// starts[i] is the index in cells of rows[i]'s first cell. The Cells
	// slices are set from them by Mutation, since cells may move while
	// the mutation is built.
	starts      []int
	cells       []Cell
	staticCells []Cell
	// buf holds the copies of the byte strings. When it grows, strings
	// copied before stay in the old array, which nothing writes again.
	buf []byte
}

// Reset starts a new mutation of table on partition key (copied), with no
// deletion, rows or static row. The storage of the previous mutation is
// reused: that mutation, and anything it references, must no longer be in
// use (applied, or dropped).
func (b *MutationBuilder) Reset(table TableID, key []byte) {
	b.buf = b.buf[:0]
	b.rows = b.rows[:0]
	b.starts = b.starts[:0]
	b.cells = b.cells[:0]
	b.staticCells = b.staticCells[:0]
	b.static = Row{}
	b.m = Mutation{Table: table, Key: b.copyBytes(key), PartitionDeletion: LiveDeletion}
}

// copyBytes copies s into b.buf, keeping nil and empty apart.
func (b *MutationBuilder) copyBytes(s []byte) []byte {
	if s == nil {
		return nil
	}
	if cap(b.buf)-len(b.buf) < len(s) {
		b.buf = make([]byte, 0, max(2*cap(b.buf), len(s), 256))
	}
	start := len(b.buf)
	b.buf = append(b.buf, s...)
	return b.buf[start:len(b.buf):len(b.buf)]
}

// copyCell returns c with its Path and Value copied.
func (b *MutationBuilder) copyCell(c Cell) Cell {
	c.Path = b.copyBytes(c.Path)
	c.Value = b.copyBytes(c.Value)
	return c
}

// AddRow starts a row with the clustering key clustering (copied) and
// liveness record liveness, not deleted; the cells AddCell adds next go to
// it. Rows are kept in the order they are added.
func (b *MutationBuilder) AddRow(clustering []byte, liveness LivenessInfo) {
	b.rows = append(b.rows, Row{Clustering: b.copyBytes(clustering), Liveness: liveness, Deletion: LiveDeletion})
	b.starts = append(b.starts, len(b.cells))
}

// AddCell adds c, its Path and Value copied, to the row AddRow added last.
// A row's cells must be added in CompareID order (engine.Apply refuses
// others). It returns ErrNoRow, adding nothing, if no row was added since
// Reset.
func (b *MutationBuilder) AddCell(c Cell) error {
	if len(b.rows) == 0 {
		return ErrNoRow
	}
	b.cells = append(b.cells, b.copyCell(c))
	return nil
}

// AddStaticCell adds c, its Path and Value copied, to the static row,
// which the mutation then has. Static cells must be added in CompareID
// order.
func (b *MutationBuilder) AddStaticCell(c Cell) {
	b.staticCells = append(b.staticCells, b.copyCell(c))
}

// Mutation returns the mutation built so far. It and everything it
// references are valid until the next Reset.
func (b *MutationBuilder) Mutation() *Mutation {
	b.m.Static = nil
	if len(b.staticCells) > 0 {
		b.static = Row{Liveness: EmptyLiveness, Deletion: LiveDeletion, Cells: b.staticCells}
		b.m.Static = &b.static
	}
	for i := range b.rows {
		end := len(b.cells)
		if i+1 < len(b.rows) {
			end = b.starts[i+1]
		}
		b.rows[i].Cells = nil
		if b.starts[i] < end {
			b.rows[i].Cells = b.cells[b.starts[i]:end:end]
		}
	}
	b.m.Rows = nil
	if len(b.rows) > 0 {
		b.m.Rows = b.rows
	}
	return &b.m
}
