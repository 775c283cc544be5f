package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
)

// SourceVersions is what one source of a table holds for a partition,
// before any merge: its partition deletion, static row, range tombstones
// and rows, every cell version as written, shadowed or not. The teaching
// views (the studio's partition view) show where each version lives.
type SourceVersions struct {
	// Name and Kind identify the source (Source.Name, Source.Kind).
	Name string
	Kind SourceKind
	// Skip says why the source holds nothing for the partition ("not
	// present", "bloom filter", ...); empty when it does.
	Skip string
	// Deletion, Static, RangeTombstones and Rows are the source's data,
	// rows in clustering order; the caller owns them.
	Deletion        data.DeletionTime
	Static          *data.Row
	RangeTombstones []data.RangeTombstone
	Rows            []data.Row
}

// maxVersionRows bounds the rows PartitionVersions copies from one source.
const maxVersionRows = 10_000

// PartitionVersions returns, for each source of table t in read order
// (active memtable, memtables being flushed, SSTables newest first), what
// it holds for the partition key, unmerged; at most maxVersionRows rows per
// source.
func (e *Engine) PartitionVersions(ctx context.Context, t *schema.Table, key []byte) ([]SourceVersions, error) {
	s, err := e.storeFor(t)
	if err != nil {
		return nil, err
	}
	rs := s.sources()
	defer rs.release()
	tok := e.Token(key)
	var out []SourceVersions
	for _, src := range rs.list {
		sv := SourceVersions{Name: src.Name(), Kind: src.Kind(), Deletion: data.LiveDeletion}
		ps, skip, err := src.Partition(ctx, tok, key)
		if err != nil {
			return nil, fmt.Errorf("engine: reading %s of %s: %w", src.Name(), t.QualifiedName(), err)
		}
		if ps == nil {
			sv.Skip = skip
			out = append(out, sv)
			continue
		}
		sv.Deletion = ps.Deletion()
		if st := ps.Static(); st != nil {
			cp := cloneRow(st)
			sv.Static = &cp
		}
		sv.RangeTombstones = append([]data.RangeTombstone(nil), ps.RangeTombstones(nil)...)
		it := ps.Rows(nil, false)
		for len(sv.Rows) < maxVersionRows {
			r, ok := it.Next()
			if !ok {
				break
			}
			sv.Rows = append(sv.Rows, cloneRow(r))
		}
		if err := errors.Join(it.Err(), it.Close()); err != nil {
			return nil, err
		}
		out = append(out, sv)
	}
	return out, nil
}

// cloneRow deep-copies r.
func cloneRow(r *data.Row) data.Row {
	out := *r
	out.Clustering = append([]byte(nil), r.Clustering...)
	out.Cells = make([]data.Cell, len(r.Cells))
	for i, c := range r.Cells {
		c.Path = append([]byte(nil), c.Path...)
		c.Value = append([]byte(nil), c.Value...)
		out.Cells[i] = c
	}
	out.ColumnDeletions = append([]data.ColumnDeletion(nil), r.ColumnDeletions...)
	return out
}
