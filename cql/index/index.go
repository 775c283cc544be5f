// Package index holds the data of minicass's built-in secondary indexes,
// as Cassandra 4.1's legacy index (index/internal: CassandraIndex and the
// composites kinds) holds it: one hidden table per index, partitioned by
// the indexed value and clustered by the base partition key in token order
// and then the base clustering, maintained on every base write through the
// engine's derived tables (engine.AddDependent), built for existing data
// when the index is created, and read by the query planner.
//
// # The index table
//
// The index i of table t is the engine table "t.i" (schema.IndexTableName)
// in t's keyspace, left out of the schema tables (engine.Tables). Its
// layout, for a base table with partition key k and clustering c1..cn:
//
//	partition key   0x00 || the indexed value (blob; the prefix lets an
//	                empty value be a key)
//	clustering      partition_key blob: the base token (8 bytes,
//	                big-endian, sign bit flipped, so bytes order as tokens)
//	                then the base partition key bytes: token order, as
//	                Cassandra's index tables order partition_key
//	                c1..cn: the base clustering (all of it for a regular
//	                column, none for a static column, all but the indexed
//	                column for a clustering column)
//	                cell_path blob: for a values() index of a collection,
//	                the element's path (two elements of one row with the
//	                same value are two entries, as in Cassandra)
//
// The indexed value per kind (Cassandra's getIndexedValue): the cell value
// of a regular or static column and of a frozen collection (full); the
// element of a values() index (a list's or map's value, a set's element);
// the map key of keys(); for entries() the key and the value
// (uvarint(len(key)) key value); the component of a partition-key column
// index; the value of a clustering column.
//
// # Liveness and maintenance
//
// For the kinds indexed from a cell (regular, static, full, values, keys,
// entries) an entry is a row whose liveness is the cell's: its timestamp,
// TTL and expiry, so an entry expires with its cell. A write compares the
// entries of the touched rows before and after (engine.BaseWrite): an
// entry that goes gets a row deletion at the timestamp of the cell that
// made it, one that comes or changes is written. A cell that later makes
// the same entry live again has a newer timestamp than the cell that went
// (it had to win over what replaced it), so the deletion never hides it.
//
// For the kinds indexed from the primary key (partition-key component and
// clustering column) the entry mirrors its base row's liveness: it carries
// the row's liveness record and an empty copy of each live cell (same
// column, path, timestamp and TTL), and the deletions a write applies to a
// live row (row deletion, the covering range tombstone or partition
// deletion, cell tombstones, collection deletions) are copied onto it. The
// entry is then live exactly while its base row is. A partition key
// index of a table with clustering columns also gives a new static row an
// entry whose clustering is the partition alone (a bound sorting before the
// partition's row entries, as Cassandra's static clustering does), so that
// a partition holding only static data is found; a read through it selects
// no row and returns the partition's static row. That entry mirrors the
// static row as the row entries mirror their rows.
//
// Readers still check every entry against the base row (the planner keeps
// the indexed restriction as a filter), as Cassandra does: an entry that
// does not match is skipped. Cassandra also deletes such stale entries at
// read time; minicass keeps its index exact at write time and deletes
// nothing at read time.
package index

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// kind is what an index reads from a base row.
type kind uint8

const (
	kindRegular      kind = iota // a regular or static column's cell (simple or full)
	kindValues                   // the elements of a non-frozen collection
	kindKeys                     // the keys of a non-frozen map
	kindEntries                  // the entries of a non-frozen map
	kindClustering               // a clustering column
	kindPartitionKey             // a component of a composite partition key
)

// Index is a built-in index of a base table, resolved against the base
// table's definition.
type Index struct {
	// Def is the index definition.
	Def schema.Index
	// Table is the index table.
	Table *schema.Table
	col   *schema.Column
	kind  kind
	// static is set for an index of a static column.
	static bool
}

// IsBuiltin reports whether ix is a built-in index (kept by this package),
// not a CUSTOM one (SASI, SAI: served by a filtered scan).
func IsBuiltin(ix *schema.Index) bool { return ix.Class == "" }

// NewTable returns the definition of the table holding index ix of base.
func NewTable(base *schema.Table, ix *schema.Index) (*schema.Table, error) {
	col := base.Column(ix.Column)
	if col == nil {
		return nil, fmt.Errorf("index: %s has no column %s", base.QualifiedName(), ix.Column)
	}
	cols := []*schema.Column{
		{Name: ix.Column, Type: types.BlobType, Kind: schema.PartitionKey, Position: 0},
		{Name: "partition_key", Type: types.BlobType, Kind: schema.Clustering, Position: 0},
	}
	k := kindOf(col, ix)
	if col.Kind != schema.Static {
		for _, c := range base.ClusteringColumns() {
			if k == kindClustering && c.Name == col.Name {
				continue
			}
			cols = append(cols, &schema.Column{Name: c.Name, Type: c.Type, Kind: schema.Clustering, Position: len(cols) - 1, Desc: c.Desc})
		}
	}
	if k == kindValues {
		cols = append(cols, &schema.Column{Name: "cell_path", Type: types.BlobType, Kind: schema.Clustering, Position: len(cols) - 1})
	}
	// A random ID, as for any table: an index dropped and created again
	// must not see the commit-log records of its predecessor.
	id := data.TableID(types.NewRandomUUID())
	return schema.NewTable(base.Keyspace, schema.IndexTableName(base.Name, ix.Name), id, cols, base.Options), nil
}

func kindOf(col *schema.Column, ix *schema.Index) kind {
	switch {
	case col.Kind == schema.PartitionKey:
		return kindPartitionKey
	case col.Kind == schema.Clustering:
		return kindClustering
	case ix.Target == schema.IndexValues:
		return kindValues
	case ix.Target == schema.IndexKeys:
		return kindKeys
	case ix.Target == schema.IndexEntries:
		return kindEntries
	}
	return kindRegular
}

// Resolve returns the index ix of base, whose table is tbl.
func Resolve(base *schema.Table, ix *schema.Index, tbl *schema.Table) (*Index, error) {
	col := base.Column(ix.Column)
	if col == nil {
		return nil, fmt.Errorf("index: %s has no column %s", base.QualifiedName(), ix.Column)
	}
	return &Index{Def: *ix, Table: tbl, col: col, kind: kindOf(col, ix), static: col.Kind == schema.Static}, nil
}

// Key returns the index partition key of the indexed value v.
func Key(v []byte) []byte {
	out := make([]byte, 0, 1+len(v))
	return append(append(out, 0), v...)
}

// EntryValue returns the indexed value of an entries() index for the map
// entry (key, value), both serialized.
func EntryValue(key, value []byte) []byte {
	out := binary.AppendUvarint(make([]byte, 0, len(key)+len(value)+2), uint64(len(key)))
	return append(append(out, key...), value...)
}

// tokenKey returns the partition_key clustering value of base key key:
// its token, sign bit flipped, big-endian, then the key.
func tokenKey(token int64, key []byte) []byte {
	out := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(key)), uint64(token)^1<<63)
	return append(out, key...)
}

// tokenPrefix returns the partition_key prefix of token: it sorts before
// every key of the token.
func tokenPrefix(token int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(token)^1<<63)
}

// entryClustering returns the index clustering of the entry of base row
// clustering ck (nil for the static row) of partition (token, key), with
// path the cell path of a values() entry.
func (x *Index) entryClustering(base *schema.Table, token int64, key, ck, path []byte) ([]byte, error) {
	vals := [][]byte{tokenKey(token, key)}
	if !x.static && len(base.ClusteringColumns()) > 0 {
		cvals, _, err := types.DecodeClustering(base.ClusteringTypes(), ck)
		if err != nil {
			return nil, fmt.Errorf("index %s: base clustering: %w", x.Def.Name, err)
		}
		for i, v := range cvals {
			if x.kind == kindClustering && i == x.col.Position {
				continue
			}
			vals = append(vals, v)
		}
	}
	if x.kind == kindValues {
		vals = append(vals, path)
	}
	return types.EncodeClustering(x.Table.ClusteringTypes(), vals)
}

// Hit is one base location an index entry names.
type Hit struct {
	// Key is the base partition key.
	Key []byte
	// Clustering is the base row's clustering key; nil for an index of a
	// static column or of a table without clustering columns (the entry
	// names the partition).
	Clustering []byte
	// Static says the entry names the partition's static row: a partition
	// key index's entry of a static row (Clustering is nil).
	Static bool
}

// decodeEntry returns the base location of index entry clustering ck,
// found under indexed value value (needed by a clustering-column index,
// whose entries leave the indexed column out).
func (x *Index) decodeEntry(base *schema.Table, value, ck []byte) (Hit, error) {
	vals, _, err := types.DecodeClustering(x.Table.ClusteringTypes(), ck)
	if err != nil || len(vals) == 0 || len(vals[0]) < 8 {
		return Hit{}, fmt.Errorf("index %s: bad entry clustering %x: %v", x.Def.Name, ck, err)
	}
	h := Hit{Key: vals[0][8:]}
	if x.static || len(base.ClusteringColumns()) == 0 {
		return h, nil
	}
	if x.kind == kindPartitionKey && len(vals) == 1 {
		// A static row's entry (deriveStaticEntry).
		h.Static = true
		return h, nil
	}
	rest := vals[1:]
	if x.kind == kindValues {
		rest = rest[:len(rest)-1]
	}
	if x.kind == kindClustering {
		full := make([][]byte, 0, len(rest)+1)
		full = append(full, rest[:x.col.Position]...)
		full = append(full, value)
		full = append(full, rest[x.col.Position:]...)
		rest = full
	}
	if h.Clustering, err = types.EncodeClustering(base.ClusteringTypes(), rest); err != nil {
		return Hit{}, fmt.Errorf("index %s: entry clustering: %w", x.Def.Name, err)
	}
	return h, nil
}

// entry is one index entry a row yields: its index partition key and
// clustering and the liveness of the cell it comes from.
type entry struct {
	key, ck  []byte
	liveness data.LivenessInfo
}

// cellLiveness is the liveness of an entry made by cell c.
func cellLiveness(c *data.Cell) data.LivenessInfo {
	l := data.LivenessInfo{Timestamp: c.Timestamp, TTL: c.TTL, ExpiresAt: data.NoDeletionTime}
	if c.TTL > 0 {
		l.ExpiresAt = c.LocalDeletionTime
	}
	return l
}

// cellEntries appends the entries of the cell-indexed kinds that row r
// (the static row when static) of partition (token, key) yields.
func (x *Index) cellEntries(out []entry, base *schema.Table, token int64, key []byte, r *data.Row) ([]entry, error) {
	if r == nil {
		return out, nil
	}
	col := base.Column(x.Def.Column)
	if col == nil {
		return out, nil
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Column != col.Name || c.Kind != data.CellRegular {
			continue
		}
		var v []byte
		switch x.kind {
		case kindRegular:
			if c.Path != nil {
				continue
			}
			v = c.Value
		case kindValues:
			if col.Type.Kind == types.Set {
				d, err := types.DecodeKey(col.Type.Params[0], c.Path)
				if err != nil {
					return nil, fmt.Errorf("index %s: set element: %w", x.Def.Name, err)
				}
				v = d
			} else {
				v = c.Value
			}
		case kindKeys, kindEntries:
			d, err := types.DecodeKey(col.Type.Params[0], c.Path)
			if err != nil {
				return nil, fmt.Errorf("index %s: map key: %w", x.Def.Name, err)
			}
			v = d
			if x.kind == kindEntries {
				v = EntryValue(d, c.Value)
			}
		default:
			continue
		}
		ck, err := x.entryClustering(base, token, key, r.Clustering, c.Path)
		if err != nil {
			return nil, err
		}
		out = append(out, entry{key: Key(v), ck: ck, liveness: cellLiveness(c)})
	}
	return out, nil
}

// keyValue returns the indexed value of a primary-key kind for the row
// with clustering ck of partition key.
func (x *Index) keyValue(base *schema.Table, key, ck []byte) ([]byte, error) {
	if x.kind == kindPartitionKey {
		parts, err := partitioner.SplitCompositeKey(key)
		if err != nil || x.col.Position >= len(parts) {
			return nil, fmt.Errorf("index %s: partition key: %v", x.Def.Name, err)
		}
		return parts[x.col.Position], nil
	}
	vals, _, err := types.DecodeClustering(base.ClusteringTypes(), ck)
	if err != nil || x.col.Position >= len(vals) {
		return nil, fmt.Errorf("index %s: clustering: %v", x.Def.Name, err)
	}
	return vals[x.col.Position], nil
}

// out collects the index mutations of one base write, one per index
// partition, rows merged by clustering.
type out struct {
	tbl  *schema.Table
	muts map[string]*data.Mutation
	keys []string
}

func (o *out) add(key []byte, r data.Row) {
	if o.muts == nil {
		o.muts = map[string]*data.Mutation{}
	}
	m := o.muts[string(key)]
	if m == nil {
		m = &data.Mutation{Key: key, PartitionDeletion: data.LiveDeletion}
		o.muts[string(key)] = m
		o.keys = append(o.keys, string(key))
	}
	for i := range m.Rows {
		if bytes.Equal(m.Rows[i].Clustering, r.Clustering) {
			m.Rows[i] = data.MergeRows(&m.Rows[i], &r)
			return
		}
	}
	m.Rows = append(m.Rows, r)
}

func (o *out) mutations() []engine.DerivedMutation {
	res := make([]engine.DerivedMutation, 0, len(o.keys))
	for _, k := range o.keys {
		m := o.muts[k]
		sortRows(m.Rows)
		res = append(res, engine.DerivedMutation{Table: o.tbl, Mutation: m})
	}
	return res
}

func sortRows(rows []data.Row) {
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && bytes.Compare(rows[j-1].Clustering, rows[j].Clustering) > 0; j-- {
			rows[j-1], rows[j] = rows[j], rows[j-1]
		}
	}
}
