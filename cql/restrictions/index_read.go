package restrictions

import (
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/schema"
)

// IndexRead is a filtered restriction a built-in secondary index can serve:
// the planner may read the index for the value instead of scanning. The
// restriction stays among the filters, so every row read through the
// index is checked again (Cassandra's check of index entries against the
// base row).
type IndexRead struct {
	// Index is the index.
	Index *schema.Index
	// EntryValue says, for an entries() index, that the value is the map
	// entry (key and value) and must be encoded as the index keys it.
	EntryValue bool
	value      func(q *query.Execution) ([]byte, []byte, error)
}

// Value returns the indexed value to look up (for an entries() index the
// map key and value: see EntryValue), or ok false when a bound value makes
// the lookup meaningless (null, unset), which the filter then refuses.
func (r *IndexRead) Value(q *query.Execution) (v, mapValue []byte, ok bool, err error) {
	v, mapValue, err = r.value(q)
	if err != nil || v == nil {
		return nil, nil, false, err
	}
	return v, mapValue, true, nil
}

// IndexReads returns the filtered restrictions of w that a built-in index
// serves, in the order of the filters (the order Cassandra's RowFilter
// holds its expressions in, among which it picks the most selective
// index).
func (w *WhereClause) IndexReads() []IndexRead {
	var out []IndexRead
	for _, f := range w.Filters {
		ix := indexFor(w.Tbl, f, w.custom)
		if ix == nil || ix.Class != "" {
			continue
		}
		ir := IndexRead{Index: ix}
		switch f := f.(type) {
		case *valuesFilter:
			vals := f.vals
			ir.value = func(q *query.Execution) ([]byte, []byte, error) {
				b, err := vals.SingleValue(q)
				return b, nil, err
			}
		case *ckPartFilter:
			if tv := f.part.tuple; tv != nil {
				// A multi-column EQ: the indexed column's component.
				pos := -1
				for i, c := range tv.cols {
					if c.Name == ix.Column {
						pos = i
					}
				}
				ir.value = func(q *query.Execution) ([]byte, []byte, error) {
					tuples, err := tv.Eval(q)
					if err != nil || len(tuples) != 1 || pos < 0 {
						return nil, nil, err
					}
					return tuples[0][pos], nil, nil
				}
				break
			}
			vals := f.part.Single
			ir.value = func(q *query.Execution) ([]byte, []byte, error) {
				b, err := vals.SingleValue(q)
				return b, nil, err
			}
		case *containsFilter:
			t := f.val
			ir.value = func(q *query.Execution) ([]byte, []byte, error) {
				v, err := t.Eval(q)
				if err != nil || v.Unset {
					return nil, nil, err
				}
				return v.Bytes, nil, nil
			}
		case *mapEntryFilter:
			k, val := f.key, f.val
			ir.EntryValue = true
			ir.value = func(q *query.Execution) ([]byte, []byte, error) {
				kv, err := k.Eval(q)
				if err != nil || kv.Unset {
					return nil, nil, err
				}
				vv, err := val.Eval(q)
				if err != nil || vv.Unset || vv.Bytes == nil {
					return nil, nil, err
				}
				return kv.Bytes, vv.Bytes, nil
			}
		default:
			continue
		}
		out = append(out, ir)
	}
	return out
}
