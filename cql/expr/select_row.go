package expr

import (
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// SelRow is one CQL row as the selection and the filters see it: the
// partition key components, the clustering values (nil for a partition's
// static-only row), the partition's static row and the clustered row. now
// is the read time in seconds, against which TTLs are judged.
type SelRow struct {
	Pk     [][]byte
	Ck     [][]byte
	Static *data.Row
	Row    *data.Row
	Now    int64
}

// cells returns the cells of column col in the row that holds it (static
// or clustered), with their paths; they are contiguous because a row's
// cells are sorted by column then path.
func (r *SelRow) cells(col *schema.Column) []data.Cell {
	src := r.Row
	if col.Kind == schema.Static {
		src = r.Static
	}
	if src == nil {
		return nil
	}
	cs := src.Cells
	i := firstCell(cs, col.Name)
	j := i
	for j < len(cs) && cs[j].Column == col.Name {
		j++
	}
	return cs[i:j]
}

// firstCell returns the index of the first of cs (sorted by column) whose
// column is not before name: sort.Search by hand, without its closure call
// per probe, as this runs for every value of every row a SELECT returns.
func firstCell(cs []data.Cell, name string) int {
	i, j := 0, len(cs)
	for i < j {
		h := int(uint(i+j) >> 1)
		if cs[h].Column < name {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// cell returns the live cell of a simple (non-collection or frozen) column,
// or nil.
func (r *SelRow) cell(col *schema.Column) *data.Cell {
	cs := r.cells(col)
	for i := range cs {
		if cs[i].Path == nil && cs[i].IsLive(r.Now) {
			return &cs[i]
		}
	}
	return nil
}

// CellValue is Value for a regular column stored as one cell (neither a
// key, static nor multi-cell column), without telling the kinds apart.
func (r *SelRow) CellValue(col *schema.Column) []byte {
	if r.Row == nil {
		return nil
	}
	return LiveCellValue(r.Row.Cells, col.Name, r.Now)
}

// LiveCellValue returns the value of the live cell without a path of the
// column named name among cs (a row's cells, sorted by column then path)
// at time now (seconds), or nil when there is none.
func LiveCellValue(cs []data.Cell, name string, now int64) []byte {
	for i := firstCell(cs, name); i < len(cs) && cs[i].Column == name; i++ {
		if c := &cs[i]; c.Path == nil && c.IsLive(now) {
			return c.Value
		}
	}
	return nil
}

// Value returns the serialized value of col in this row, nil for null. A
// non-frozen collection is assembled from its live element cells (list
// values in path order, set elements and map keys decoded from their
// paths); a collection without live elements is null.
func (r *SelRow) Value(col *schema.Column) []byte {
	switch col.Kind {
	case schema.PartitionKey:
		return r.Pk[col.Position]
	case schema.Clustering:
		if r.Ck == nil {
			return nil
		}
		return r.Ck[col.Position]
	}
	if !col.Type.IsMultiCell() {
		c := r.cell(col)
		if c == nil {
			return nil
		}
		return c.Value
	}
	return CollectionValue(col.Type, r.cells(col), r.Now)
}

// collectionValue assembles a non-frozen collection or user type from its
// cells.
func udtValue(t types.Type, cs []data.Cell, now int64) []byte {
	fields := make([][]byte, len(t.Params))
	live := false
	for i := range cs {
		c := &cs[i]
		f := types.FieldOfPath(c.Path)
		if f < 0 || f >= len(fields) || !c.IsLive(now) {
			continue
		}
		fields[f], live = c.Value, true
	}
	if !live {
		return nil
	}
	return types.EncodeTuple(fields)
}

func CollectionValue(t types.Type, cs []data.Cell, now int64) []byte {
	if t.UDT != nil {
		return udtValue(t, cs, now)
	}
	var keys, vals [][]byte
	for i := range cs {
		c := &cs[i]
		if c.Path == nil || !c.IsLive(now) {
			continue
		}
		switch t.Kind {
		case types.List:
			vals = append(vals, c.Value)
		case types.Set:
			k, err := types.DecodeKey(t.Params[0], c.Path)
			if err != nil {
				continue
			}
			keys = append(keys, k)
		case types.Map:
			k, err := types.DecodeKey(t.Params[0], c.Path)
			if err != nil {
				continue
			}
			keys, vals = append(keys, k), append(vals, c.Value)
		}
	}
	switch t.Kind {
	case types.List:
		if len(vals) == 0 {
			return nil
		}
		return types.EncodeList(vals)
	case types.Set:
		if len(keys) == 0 {
			return nil
		}
		b, err := types.EncodeSet(t, keys)
		if err != nil {
			return nil
		}
		return b
	case types.Map:
		if len(keys) == 0 {
			return nil
		}
		b, err := types.EncodeMap(t, keys, vals)
		if err != nil {
			return nil
		}
		return b
	}
	return nil
}
