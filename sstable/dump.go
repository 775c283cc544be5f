package sstable

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// DumpOptions configures Dump, as sstabledump's flags do.
type DumpOptions struct {
	// Now is the time the "expired" flags of expiring liveness records and
	// cells are computed against. sstabledump reads the wall clock; Dump
	// never does, the caller passes it. The zero Time lies before every
	// expiry, so nothing prints as expired.
	Now time.Time
	// RawTimestamps prints write timestamps (microseconds) and deletion and
	// expiry times (seconds) as integers instead of ISO-8601 instants
	// (sstabledump -t).
	RawTimestamps bool
	// JSONLines prints one partition per line in compact JSON, without the
	// enclosing array (sstabledump -l).
	JSONLines bool
	// KeysOnly prints only the partition keys, an array of key arrays
	// (sstabledump -e); JSONLines does not apply.
	KeysOnly bool
	// Keep, when not nil, selects the partitions dumped by their serialized
	// partition key (sstabledump -k and -x).
	Keep func(key []byte) bool
}

// Dump writes the partitions of r to w in the JSON shape of Cassandra 4.x's
// sstabledump (tools/JsonTransformer.java), using t to decode keys, cells
// and clusterings:
//
//	[
//	  {
//	    "partition" : {
//	      "key" : [ "k1" ],
//	      "position" : 0
//	    },
//	    "rows" : [
//	      {
//	        "type" : "row",
//	        "position" : 29,
//	        "clustering" : [ 1 ],
//	        "liveness_info" : { "tstamp" : "2024-03-15T10:00:00Z" },
//	        "cells" : [
//	          { "name" : "v", "value" : "a" }
//	        ]
//	      }
//	    ]
//	  }
//	]
//
// The layout, the " : " spacing, the places where objects and arrays stay on
// one line, and the missing trailing newline are Jackson's; the field order
// and the rules (a cell's tstamp only when it differs from the row's
// liveness timestamp, ttl/expires_at/expired only when the TTL differs,
// "*" for a missing trailing clustering component of a range-tombstone
// bound, simple columns before collections) are JsonTransformer's.
// Positions are offsets in the uncompressed Data.db stream (where the
// partition, the static row record or the row record starts), as
// sstabledump's are in Cassandra's uncompressed data. Partition keys,
// collection paths and clustering values are printed as Cassandra's
// AbstractType.getString and toJSONString do (cell values through
// types.AppendJSON).
//
// minicass keeps range tombstones as a list per partition; Dump turns them
// into the bound and boundary markers Cassandra stores: overlapping ranges
// are resolved to the superseding deletion, adjacent ranges with different
// deletions meet at a range_tombstone_boundary, and the markers are
// interleaved with the rows in clustering order.
//
// Dump stops at the first error (a read error of r, or a key or clustering
// that does not decode with t, which means t is not the table r was
// written for) after writing the partitions before it.
func Dump(w io.Writer, r *Reader, t *schema.Table, opts DumpOptions) error {
	if t == nil {
		return fmt.Errorf("%w: Dump needs the table schema", ErrInvalidOptions)
	}
	if opts.KeysOnly {
		opts.JSONLines = false
	}
	d := &dumper{t: t, opts: opts, now: nowSeconds(opts.Now), g: &jsonGen{lines: opts.JSONLines}}
	if !opts.JSONLines {
		d.g.startArray()
	}
	it := r.Scan(data.FullRing)
	for {
		src, ok := it.Next()
		if !ok {
			break
		}
		p := src.(*Partition)
		switch {
		case opts.Keep != nil && !opts.Keep(p.Key()):
		case opts.KeysOnly:
			d.partitionKey(p.Key()) // keysToJson
		default:
			if err := d.partition(p); err != nil {
				it.Close()
				return err
			}
		}
		if len(d.g.buf) >= 32<<10 {
			if err := d.flush(w); err != nil {
				it.Close()
				return err
			}
		}
	}
	if err := it.Err(); err != nil {
		it.Close()
		return err
	}
	if err := it.Close(); err != nil {
		return err
	}
	if !opts.JSONLines {
		d.g.endArray()
	}
	return d.flush(w)
}

// nowSeconds converts Now to Unix seconds; the zero Time gives the smallest
// value, before every expiry.
func nowSeconds(t time.Time) int64 {
	if t.IsZero() {
		return math.MinInt64
	}
	return t.Unix()
}

type dumper struct {
	t    *schema.Table
	opts DumpOptions
	now  int64
	g    *jsonGen
	cols []colRef // scratch for row
}

func (d *dumper) flush(w io.Writer) error {
	_, err := w.Write(d.g.buf)
	d.g.buf = d.g.buf[:0]
	if err != nil {
		return fmt.Errorf("sstable: dump: %w", err)
	}
	return nil
}

// partition mirrors JsonTransformer.serializePartition.
func (d *dumper) partition(p *Partition) error {
	g := d.g
	g.startObject()
	g.field("partition")
	g.startObject()
	g.field("key")
	d.partitionKey(p.Key())
	g.field("position")
	g.int(int64(p.Position()))
	if del := p.Deletion(); !del.IsLive() {
		d.deletion(del)
	}
	g.endObject()
	g.field("rows")
	g.startArray()
	if st := p.Static(); st != nil && !st.IsEmpty() {
		if err := d.row(st, true, p.staticPos); err != nil {
			return err
		}
	}
	markers, err := d.markers(p.RangeTombstones(nil))
	if err != nil {
		return err
	}
	it := p.Rows(nil, false).(*rowIter)
	for {
		row, ok := it.Next()
		if !ok {
			break
		}
		for len(markers) > 0 && markers[0].before(row.Clustering) {
			d.marker(&markers[0])
			markers = markers[1:]
		}
		if err := d.row(row, false, it.rowPos); err != nil {
			it.Close()
			return err
		}
	}
	err = it.Err()
	it.Close()
	if err != nil {
		return err
	}
	for i := range markers {
		d.marker(&markers[i])
	}
	g.endArray()
	g.endObject()
	return nil
}

// partitionKey mirrors serializePartitionKey: the components of a
// composite key, or the single key, as AbstractType.getString prints them.
func (d *dumper) partitionKey(key []byte) {
	g := d.g
	g.objCompact, g.arrCompact = true, true
	g.startArray()
	pk := d.t.PartitionKey()
	var parts [][]byte
	if len(pk) > 1 {
		var err error
		if parts, err = partitioner.SplitCompositeKey(key); err != nil {
			parts = nil
		}
	}
	switch {
	case len(pk) == 1:
		g.str(typeString(pk[0].Type, key))
	case parts == nil:
		g.str(hex.EncodeToString(key))
	default:
		for i, part := range parts {
			if i >= len(pk) {
				break
			}
			g.str(typeString(pk[i].Type, part))
		}
	}
	g.endArray()
	g.objCompact, g.arrCompact = false, false
}

// row mirrors serializeRow.
func (d *dumper) row(row *data.Row, static bool, pos uint64) error {
	g := d.g
	g.startObject()
	g.field("type")
	if static {
		g.str("static_block")
	} else {
		g.str("row")
	}
	g.field("position")
	g.int(int64(pos))
	if !static {
		values, _, err := d.decodeClustering(row.Clustering)
		if err != nil {
			return err
		}
		d.clustering(values)
	}
	li := row.Liveness
	if !li.IsEmpty() {
		g.objCompact = false
		g.field("liveness_info")
		g.objCompact = true
		g.startObject()
		g.field("tstamp")
		g.str(d.micros(li.Timestamp))
		if li.IsExpiring() {
			g.field("ttl")
			g.int(int64(li.TTL))
			g.field("expires_at")
			g.str(d.seconds(li.ExpiresAt))
			g.field("expired")
			g.bool(li.ExpiresAt < d.now)
		}
		g.endObject()
		g.objCompact = false
	}
	if !row.Deletion.IsLive() {
		d.deletion(row.Deletion)
	}
	g.field("cells")
	g.startArray()
	for _, c := range d.columns(row) {
		if c.complex {
			if del := row.ColumnDeletion(c.name); !del.IsLive() {
				g.objCompact = true
				g.startObject()
				g.field("name")
				g.str(cqlName(c.name))
				d.deletion(del)
				g.objCompact = true
				g.endObject()
				g.objCompact = false
			}
		}
		for i := c.first; i < c.end; i++ {
			d.cell(&row.Cells[i], c.typ, li)
		}
	}
	g.endArray()
	g.endObject()
	return nil
}

// colRef is one column of a row in Cassandra's order: its cells are
// row.Cells[first:end].
type colRef struct {
	name       string
	typ        types.Type
	known      bool
	complex    bool
	first, end int
}

// columns returns the row's columns in Cassandra's order: simple columns
// by name, then complex (non-frozen collection) columns by name. A column
// the table does not know (dropped) prints its values as blobs.
func (d *dumper) columns(row *data.Row) []colRef {
	cols := d.cols[:0]
	add := func(name string) *colRef {
		if n := len(cols); n > 0 && cols[n-1].name == name {
			return &cols[n-1]
		}
		for i := range cols {
			if cols[i].name == name {
				return &cols[i]
			}
		}
		c := colRef{name: name, typ: types.BlobType}
		if def := d.t.StoredColumn(name); def != nil {
			c.typ, c.known, c.complex = def.Type, true, def.Type.IsMultiCell()
		}
		cols = append(cols, c)
		return &cols[len(cols)-1]
	}
	for i := range row.Cells {
		c := add(row.Cells[i].Column)
		if c.end == 0 {
			c.first = i
		}
		c.end = i + 1
		if !c.known && row.Cells[i].Path != nil {
			c.complex = true
		}
	}
	for _, cd := range row.ColumnDeletions {
		if c := add(cd.Column); !c.known {
			c.complex = true
		}
	}
	sort.SliceStable(cols, func(i, j int) bool {
		if cols[i].complex != cols[j].complex {
			return !cols[i].complex
		}
		return cols[i].name < cols[j].name
	})
	d.cols = cols
	return cols
}

// cell mirrors serializeCell. typ is the column's type.
func (d *dumper) cell(c *data.Cell, typ types.Type, li data.LivenessInfo) {
	g := d.g
	g.startObject()
	g.objCompact = true
	g.field("name")
	g.str(cqlName(c.Column))
	valueType := typ
	if typ.IsMultiCell() {
		g.field("path")
		g.arrCompact = true
		g.startArray()
		keyType := typ.Params[0]
		if typ.Kind == types.List {
			keyType = types.TimeUUIDType
		}
		if f := types.FieldOfPath(c.Path); typ.UDT != nil && f >= 0 && f < len(typ.Params) {
			// A user type field: its name, and its type for the value.
			g.str(typ.UDT.Fields[f])
			valueType = typ.Params[f]
		} else if k, err := types.DecodeKey(keyType, c.Path); err == nil && typ.UDT == nil {
			g.str(typeString(keyType, k))
		} else {
			g.str(hex.EncodeToString(c.Path))
		}
		g.endArray()
		g.arrCompact = false
		switch typ.Kind {
		case types.Map:
			valueType = typ.Params[1]
		case types.List:
			valueType = typ.Params[0]
		}
	}
	if c.Kind == data.CellTombstone {
		g.field("deletion_info")
		g.objCompact = true
		g.startObject()
		g.field("local_delete_time")
		g.str(d.seconds(c.LocalDeletionTime))
		g.endObject()
		g.objCompact = false
	} else {
		g.field("value")
		if typ.IsMultiCell() && typ.Kind == types.Set {
			// A set element's value is empty: Cassandra's EmptyType.
			g.raw([]byte(`""`))
		} else {
			g.raw(types.AppendJSON(nil, valueType, c.Value))
		}
	}
	if li.IsEmpty() || c.Timestamp != li.Timestamp {
		g.field("tstamp")
		g.str(d.micros(c.Timestamp))
	}
	if c.IsExpiring() && (li.IsEmpty() || c.TTL != li.TTL) {
		g.field("ttl")
		g.int(int64(c.TTL))
		g.field("expires_at")
		g.str(d.seconds(c.LocalDeletionTime))
		g.field("expired")
		g.bool(!c.IsLive(d.now))
	}
	g.endObject()
	g.objCompact = false
}

// deletion mirrors serializeDeletion.
func (d *dumper) deletion(del data.DeletionTime) {
	g := d.g
	g.field("deletion_info")
	g.objCompact = true
	g.startObject()
	g.field("marked_deleted")
	g.str(d.micros(del.MarkedForDeleteAt))
	g.field("local_delete_time")
	g.str(d.seconds(del.LocalDeletionTime))
	g.endObject()
	g.objCompact = false
}

// clustering mirrors serializeClustering: nothing for an empty prefix,
// otherwise one value per clustering column, "*" past the prefix.
func (d *dumper) clustering(values [][]byte) {
	if len(values) == 0 {
		return
	}
	g := d.g
	g.field("clustering")
	g.objCompact = true
	g.startArray()
	g.arrCompact = true
	for i, c := range d.t.ClusteringColumns() {
		if i >= len(values) {
			g.str("*")
		} else {
			g.raw(types.AppendJSON(nil, c.Type, values[i]))
		}
	}
	g.endArray()
	g.objCompact, g.arrCompact = false, false
}

func (d *dumper) decodeClustering(key []byte) ([][]byte, types.KeyKind, error) {
	values, kind, err := types.DecodeClustering(d.t.ClusteringTypes(), key)
	if err != nil {
		return nil, 0, fmt.Errorf("sstable: dump: clustering %x does not decode as the clustering of %s: %w", key, d.t.QualifiedName(), err)
	}
	return values, kind, nil
}

// rtMarker is a range-tombstone bound (open or close set) or boundary
// (both set) at byte position pos in clustering order (nil: before the
// first row for an open bound, after the last for a close bound).
type rtMarker struct {
	pos               []byte
	open, close       bool
	openDel, closeDel data.DeletionTime
	openInclusive     bool
	closeInclusive    bool
	values            [][]byte
}

// before reports whether the marker comes before the row with clustering
// ck.
func (m *rtMarker) before(ck []byte) bool {
	if m.pos == nil {
		return m.open // an unbounded start comes first, an unbounded end last
	}
	return bytes.Compare(m.pos, ck) <= 0
}

// rtRun is a maximal interval [start, end) of one deletion (nil ends are
// unbounded).
type rtRun struct {
	start, end []byte
	del        data.DeletionTime
}

// markers turns a partition's range tombstones into the markers Cassandra
// would have written: the clustering space is cut at every bound, each
// piece takes the superseding deletion of the ranges covering it, equal
// neighbours merge, and every change between deleted pieces is a boundary.
func (d *dumper) markers(rts []data.RangeTombstone) ([]rtMarker, error) {
	if len(rts) == 0 {
		return nil, nil
	}
	var points [][]byte
	for _, rt := range rts {
		if rt.Start != nil {
			points = append(points, rt.Start)
		}
		if rt.End != nil {
			points = append(points, rt.End)
		}
	}
	sort.Slice(points, func(i, j int) bool { return bytes.Compare(points[i], points[j]) < 0 })
	uniq := points[:0]
	for _, p := range points {
		if len(uniq) == 0 || !bytes.Equal(uniq[len(uniq)-1], p) {
			uniq = append(uniq, p)
		}
	}
	// Piece i is [bound(i-1), bound(i)) with bound(-1) and bound(len) nil.
	var runs []rtRun
	for i := 0; i <= len(uniq); i++ {
		var lo, hi []byte
		if i > 0 {
			lo = uniq[i-1]
		}
		if i < len(uniq) {
			hi = uniq[i]
		}
		del := data.LiveDeletion
		for _, rt := range rts {
			startsBefore := rt.Start == nil || (lo != nil && bytes.Compare(rt.Start, lo) <= 0)
			endsAfter := rt.End == nil || (hi != nil && bytes.Compare(rt.End, hi) >= 0)
			if startsBefore && endsAfter {
				del = data.MaxDeletion(del, rt.Deletion)
			}
		}
		if n := len(runs); n > 0 && runs[n-1].del == del {
			runs[n-1].end = hi
			continue
		}
		runs = append(runs, rtRun{start: lo, end: hi, del: del})
	}
	var out []rtMarker
	for i := 0; i < len(runs); i++ {
		if runs[i].del.IsLive() {
			continue
		}
		m, err := d.openMarker(runs[i].start, runs[i].del)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
		// Deleted runs follow each other through boundaries until a live
		// run or the end closes them.
		for ; i+1 < len(runs) && !runs[i+1].del.IsLive(); i++ {
			if m, err = d.boundaryMarker(runs[i].end, runs[i].del, runs[i+1].del); err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		if m, err = d.closeMarker(runs[i].end, runs[i].del); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// boundKind decodes a bound's position: its prefix values and whether, as
// a start (or as an end), it includes the prefix.
func (d *dumper) boundKind(pos []byte) (values [][]byte, startInclusive bool, err error) {
	if pos == nil {
		return nil, true, nil
	}
	values, kind, err := d.decodeClustering(pos)
	if err != nil {
		return nil, false, err
	}
	// BeforePrefix (and a full key) starts inclusive and ends exclusive;
	// AfterPrefix starts exclusive and ends inclusive.
	return values, kind != types.AfterPrefix, nil
}

func (d *dumper) openMarker(pos []byte, del data.DeletionTime) (rtMarker, error) {
	values, incl, err := d.boundKind(pos)
	return rtMarker{pos: pos, open: true, openDel: del, openInclusive: incl, values: values}, err
}

func (d *dumper) closeMarker(pos []byte, del data.DeletionTime) (rtMarker, error) {
	values, startIncl, err := d.boundKind(pos)
	return rtMarker{pos: pos, close: true, closeDel: del, closeInclusive: pos == nil || !startIncl, values: values}, err
}

func (d *dumper) boundaryMarker(pos []byte, closeDel, openDel data.DeletionTime) (rtMarker, error) {
	values, startIncl, err := d.boundKind(pos)
	return rtMarker{pos: pos, open: true, close: true, openDel: openDel, closeDel: closeDel,
		openInclusive: startIncl, closeInclusive: !startIncl, values: values}, err
}

// marker mirrors serializeTombstone.
func (d *dumper) marker(m *rtMarker) {
	g := d.g
	g.startObject()
	g.field("type")
	if m.open && m.close {
		g.str("range_tombstone_boundary")
	} else {
		g.str("range_tombstone_bound")
	}
	// A boundary prints its open (start) bound first, as
	// RangeTombstoneBoundaryMarker.openBound then closeBound.
	if m.open {
		d.bound("start", m.openInclusive, m.values, m.openDel)
	}
	if m.close {
		d.bound("end", m.closeInclusive, m.values, m.closeDel)
	}
	g.endObject()
	g.objCompact = false
}

// bound mirrors serializeBound.
func (d *dumper) bound(side string, inclusive bool, values [][]byte, del data.DeletionTime) {
	g := d.g
	g.field(side)
	g.startObject()
	g.field("type")
	if inclusive {
		g.str("inclusive")
	} else {
		g.str("exclusive")
	}
	d.clustering(values)
	d.deletion(del)
	g.endObject()
}

// micros prints a write timestamp (microseconds) as JsonTransformer's
// dateString(MICROSECONDS, t).
func (d *dumper) micros(t int64) string {
	if d.opts.RawTimestamps {
		return strconv.FormatInt(t, 10)
	}
	return javaInstant(t/1e6, floorMod(satMul(t, 1e3), 1e9))
}

// seconds prints a local deletion or expiry time (seconds) as
// dateString(SECONDS, t).
func (d *dumper) seconds(t int64) string {
	if d.opts.RawTimestamps {
		return strconv.FormatInt(t, 10)
	}
	return javaInstant(t, floorMod(satMul(t, 1e9), 1e9))
}

// satMul multiplies as Java's TimeUnit conversions do: saturating at the
// int64 limits.
func satMul(v, m int64) int64 {
	if v > math.MaxInt64/m {
		return math.MaxInt64
	}
	if v < math.MinInt64/m {
		return math.MinInt64
	}
	return v * m
}

func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// maxInstantSeconds is java.time.Instant.MAX's epoch second.
const maxInstantSeconds = 31556889864403199

// javaInstant formats as java.time.Instant.toString (ISO_INSTANT): UTC,
// the fraction in groups of three digits and omitted when zero, years past
// 9999 with a '+'. Seconds beyond Instant's range print as the number.
func javaInstant(sec, nanos int64) string {
	if sec > maxInstantSeconds || sec < -maxInstantSeconds-1 {
		return strconv.FormatInt(sec, 10)
	}
	t := time.Unix(sec, nanos).UTC()
	var sb strings.Builder
	y := t.Year()
	switch {
	case y > 9999:
		sb.WriteByte('+')
	case y < 0:
		sb.WriteByte('-')
		y = -y
	}
	fmt.Fprintf(&sb, "%04d-%02d-%02dT%02d:%02d:%02d", y, int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second())
	switch ns := t.Nanosecond(); {
	case ns == 0:
	case ns%1e6 == 0:
		fmt.Fprintf(&sb, ".%03d", ns/1e6)
	case ns%1e3 == 0:
		fmt.Fprintf(&sb, ".%06d", ns/1e3)
	default:
		fmt.Fprintf(&sb, ".%09d", ns)
	}
	sb.WriteByte('Z')
	return sb.String()
}

// cqlName returns a column name as ColumnIdentifier.toCQLString does:
// unquoted when it is lower-case letters, digits and underscores starting
// with a letter, else double-quoted with '"' doubled. (Cassandra also
// quotes reserved keywords; minicass's names cannot collide with them
// unless created quoted, and those print unquoted here.)
func cqlName(name string) string {
	ok := name != ""
	for i := 0; i < len(name) && ok; i++ {
		c := name[i]
		ok = c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '_')
	}
	if ok {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// typeString returns v as Cassandra's AbstractType.getString prints it,
// which sstabledump uses for partition keys and collection paths: text
// as is, blobs in hex without 0x, timestamps as 2024-03-15T10:00:00.000Z,
// booleans true/false, floats as Java's Float/Double.toString, IPv6
// addresses uncompressed, and the rest as cqlsh formats them. Bytes that
// are not a valid value print in hex.
func typeString(t types.Type, v []byte) string {
	if len(v) == 0 {
		return ""
	}
	if types.Validate(t, v) != nil {
		return hex.EncodeToString(v)
	}
	switch t.Kind {
	case types.Ascii, types.Text:
		return string(v)
	case types.Blob:
		return hex.EncodeToString(v)
	case types.Int, types.Bigint, types.Smallint, types.Tinyint, types.Varint, types.Decimal, types.Counter:
		return string(types.AppendJSON(nil, t, v))
	case types.Boolean:
		return strconv.FormatBool(v[0] != 0)
	case types.Float:
		return types.JavaFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(v))), 32)
	case types.Double:
		return types.JavaFloat(math.Float64frombits(binary.BigEndian.Uint64(v)), 64)
	case types.Timestamp:
		ms := int64(binary.BigEndian.Uint64(v))
		return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
	case types.Inet:
		addr, ok := netip.AddrFromSlice(v)
		if !ok {
			return hex.EncodeToString(v)
		}
		if addr.Is4() {
			return addr.String()
		}
		a := addr.As16()
		parts := make([]string, 8)
		for i := range parts {
			parts[i] = strconv.FormatUint(uint64(binary.BigEndian.Uint16(a[2*i:])), 16)
		}
		return strings.Join(parts, ":")
	}
	return types.Format(t, v)
}
