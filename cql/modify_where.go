package cql

import (
	"strings"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// stmtKind names a modification statement in Cassandra's error texts.
type stmtKind string

const (
	kindInsert stmtKind = "INSERT"
	kindUpdate stmtKind = "UPDATE"
	kindDelete stmtKind = "DELETE"
)

// keySlice is a slice restriction on the last restricted clustering column of
// a DELETE (a range deletion).
type keySlice struct {
	col                  *schema.Column
	lower, upper         term
	lowerIncl, upperIncl bool
}

// modWhere is the compiled WHERE clause of an UPDATE or DELETE: the primary
// key restrictions in key order.
type modWhere struct {
	tbl        *schema.Table
	pk         []*whereValues
	clustering []*whereValues // a prefix of the clustering columns
	slice      *keySlice      // DELETE only
}

func (c *compileCtx) compileModWhere(tbl *schema.Table, where []parser.Relation, kind stmtKind) (*modWhere, error) {
	w := &modWhere{tbl: tbl}
	byCol := map[string]*whereValues{}
	var slice *keySlice
	var nonPK []string
	for _, rel := range where {
		switch r := rel.(type) {
		case *parser.TokenRelation:
			return nil, invalidf("The token function cannot be used in WHERE clauses for %s statements", kind)
		case *parser.TupleRelation:
			return nil, invalidf("Multi-column relations are not supported in %s statements", kind)
		case *parser.ColumnRelation:
			name := string(r.Column)
			col := tbl.Column(name)
			if col == nil {
				return nil, invalidf("Undefined column name %s in table %s", name, tbl.QualifiedName())
			}
			if col.Kind != schema.PartitionKey && col.Kind != schema.Clustering {
				nonPK = append(nonPK, name)
				continue
			}
			if r.MapKey != nil {
				return nil, invalidf("Invalid relation %s", r)
			}
			recv := receiver{ks: tbl.Keyspace, table: tbl.Name, name: name, typ: col.Type}
			switch r.Op {
			case parser.OpEq:
				if byCol[name] != nil {
					return nil, invalidf("%s cannot be restricted by more than one relation if it includes an Equal", name)
				}
				t, err := c.compileTerm(r.Value, recv)
				if err != nil {
					return nil, err
				}
				byCol[name] = &whereValues{col: col, terms: []term{t}}
			case parser.OpIn:
				if byCol[name] != nil {
					return nil, invalidf("%s cannot be restricted by more than one relation if it includes a IN", name)
				}
				kv := &whereValues{col: col, in: true}
				switch v := r.Value.(type) {
				case *parser.BindMarker:
					kv.marker = c.bind(v, receiver{ks: tbl.Keyspace, table: tbl.Name, name: "in(" + name + ")", typ: types.ListOf(col.Type, false)})
				case *parser.InList:
					for _, e := range v.Elems {
						t, err := c.compileTerm(e, recv)
						if err != nil {
							return nil, err
						}
						kv.terms = append(kv.terms, t)
					}
				default:
					return nil, invalidf("Invalid IN relation %s", r)
				}
				byCol[name] = kv
			case parser.OpLt, parser.OpLte, parser.OpGt, parser.OpGte:
				if col.Kind == schema.PartitionKey {
					return nil, invalidf("Only EQ and IN relation are supported on the partition key (unless you use the token() function) for %s statements", kind)
				}
				if kind != kindDelete {
					return nil, invalidf("Slice restrictions are not supported on the clustering columns in %s statements", kind)
				}
				if slice == nil {
					slice = &keySlice{col: col}
				} else if slice.col != col {
					return nil, invalidf("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", name, slice.col.Name)
				}
				t, err := c.compileTerm(r.Value, recv)
				if err != nil {
					return nil, err
				}
				if r.Op == parser.OpGt || r.Op == parser.OpGte {
					if slice.lower != nil {
						return nil, invalidf("More than one restriction was found for the start bound on %s", name)
					}
					slice.lower, slice.lowerIncl = t, r.Op == parser.OpGte
				} else {
					if slice.upper != nil {
						return nil, invalidf("More than one restriction was found for the end bound on %s", name)
					}
					slice.upper, slice.upperIncl = t, r.Op == parser.OpLte
				}
			default:
				if col.Kind == schema.PartitionKey {
					return nil, invalidf("Only EQ and IN relation are supported on the partition key (unless you use the token() function) for %s statements", kind)
				}
				return nil, invalidf("Unsupported \"%s\" relation: %s", r.Op, r)
			}
		}
	}
	if len(nonPK) > 0 {
		return nil, invalidf("Non PRIMARY KEY columns found in where clause: %s ", strings.Join(nonPK, ", "))
	}
	var missing []string
	for _, col := range tbl.PartitionKey() {
		kv := byCol[col.Name]
		if kv == nil {
			missing = append(missing, col.Name)
			continue
		}
		w.pk = append(w.pk, kv)
	}
	if len(missing) > 0 {
		return nil, invalidf("Some partition key parts are missing: %s", strings.Join(missing, ", "))
	}
	// Clustering restrictions must form a prefix; a slice may only follow it.
	gap := ""
	for _, col := range tbl.ClusteringColumns() {
		kv := byCol[col.Name]
		isSlice := slice != nil && slice.col == col
		switch {
		case kv != nil && isSlice:
			return nil, invalidf("Column \"%s\" cannot be restricted by both an equality and an inequality relation", col.Name)
		case kv != nil || isSlice:
			if gap != "" {
				return nil, invalidf("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", col.Name, gap)
			}
			if w.slice != nil {
				return nil, invalidf("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", col.Name, w.slice.col.Name)
			}
			if isSlice {
				w.slice = slice
			} else {
				w.clustering = append(w.clustering, kv)
			}
		default:
			if gap == "" {
				gap = col.Name
			}
		}
	}
	return w, nil
}

// fullClustering reports whether every clustering column is restricted by EQ
// or IN.
func (w *modWhere) fullClustering() bool {
	return w.slice == nil && len(w.clustering) == len(w.tbl.ClusteringColumns())
}

// missingClustering returns the names of unrestricted clustering columns.
func (w *modWhere) missingClustering() string {
	var names []string
	for _, col := range w.tbl.ClusteringColumns()[len(w.clustering):] {
		names = append(names, col.Name)
	}
	return strings.Join(names, ", ")
}

// cartesian returns every combination of one value per column.
func cartesian(sets [][][]byte) [][][]byte {
	out := [][][]byte{{}}
	for _, set := range sets {
		next := make([][][]byte, 0, len(out)*len(set))
		for _, prefix := range out {
			for _, v := range set {
				combo := append(append(make([][]byte, 0, len(prefix)+1), prefix...), v)
				next = append(next, combo)
			}
		}
		out = next
	}
	return out
}

// partitionKeys evaluates the partition key restrictions into serialized
// keys, in IN order, without duplicates.
func (w *modWhere) partitionKeys(q *execution) ([][]byte, error) {
	sets := make([][][]byte, len(w.pk))
	for i, kv := range w.pk {
		vals, err := kv.eval(q)
		if err != nil {
			return nil, err
		}
		sets[i] = vals
	}
	seen := map[string]bool{}
	var keys [][]byte
	for _, combo := range cartesian(sets) {
		k, err := serializePartitionKey(combo)
		if err != nil {
			return nil, err
		}
		if !seen[string(k)] {
			seen[string(k)] = true
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// clusteringPrefixes evaluates the clustering EQ/IN restrictions into value
// tuples (each of len(w.clustering) values), deduplicated by their encoding.
func (w *modWhere) clusteringPrefixes(q *execution) ([][][]byte, error) {
	sets := make([][][]byte, len(w.clustering))
	for i, kv := range w.clustering {
		vals, err := kv.eval(q)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			if len(v) > 0xFFFF {
				return nil, invalidf("Key length of %d is longer than maximum of 65535", len(v))
			}
		}
		sets[i] = vals
	}
	return cartesian(sets), nil
}

// rangeFor returns the byte range [start, end) of a clustering prefix with an
// optional slice on the next column (for range deletions).
func (w *modWhere) rangeFor(q *execution, prefix [][]byte) (start, end []byte, empty bool, err error) {
	cols := w.tbl.ClusteringTypes()
	if w.slice == nil {
		if len(prefix) == 0 {
			return nil, nil, false, nil
		}
		start, err = types.EncodeBound(cols, prefix, types.StartInclusive)
		if err == nil {
			end, err = types.EncodeBound(cols, prefix, types.EndInclusive)
		}
		return start, end, false, err
	}
	// The slice column's order decides which bound is the byte-order start.
	desc := w.slice.col.Desc
	bound := func(t term, incl bool, isLower bool) ([]byte, error) {
		if t == nil {
			if len(prefix) == 0 {
				return nil, nil
			}
			k := types.StartInclusive
			if isLower != !desc { // the open end of a DESC column's lower value is the byte-order end
				k = types.EndInclusive
			}
			return types.EncodeBound(cols, prefix, k)
		}
		v, err := t.eval(q)
		if err != nil {
			return nil, err
		}
		if v.Unset || v.Bytes == nil {
			return nil, invalidf("Invalid null value in condition for column %s", w.slice.col.Name)
		}
		full := append(append([][]byte{}, prefix...), v.Bytes)
		var k types.BoundKind
		switch {
		case isLower != desc && incl: // byte-order start, inclusive
			k = types.StartInclusive
		case isLower != desc:
			k = types.StartExclusive
		case incl:
			k = types.EndInclusive
		default:
			k = types.EndExclusive
		}
		return types.EncodeBound(cols, full, k)
	}
	lo, err := bound(w.slice.lower, w.slice.lowerIncl, true)
	if err != nil {
		return nil, nil, false, err
	}
	hi, err := bound(w.slice.upper, w.slice.upperIncl, false)
	if err != nil {
		return nil, nil, false, err
	}
	if desc {
		lo, hi = hi, lo
	}
	if lo != nil && hi != nil && string(lo) >= string(hi) {
		return nil, nil, true, nil
	}
	return lo, hi, false, nil
}

func rangeTombstone(start, end []byte, del data.DeletionTime) data.RangeTombstone {
	return data.RangeTombstone{Start: start, End: end, Deletion: del}
}
