package sstable

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/vfs"
	"github.com/stretchr/testify/require"
)

// TestScripts runs the datadriven scripts in testdata/scripts (regenerate
// with -rewrite and review the diff). Commands:
//
//	schema     input: one column a line, "pk|ck|ck-desc|static|col NAME TYPE";
//	           builds the table the other commands use
//	build      [codec=none|s2|snappy|zstd] [column-index-size=N] [chunk=N]
//	           input: the table's content, one statement a line (below);
//	           writes generation 1 and opens it
//	layout     prints Layout of the built table
//	dump       [raw] [lines] [keys] [now=TIME]: prints Dump
//	read       key=LIT[,LIT...] [reverse] [slice=FROM..TO]: prints the rows
//	           of one partition; FROM and TO are clustering literals of the
//	           first clustering column (either may be empty), FROM
//	           inclusive, TO exclusive
//
// Content statements (NAME=VALUE pairs; values are CQL literals, parsed with
// the column's type; TIME is micros or an RFC 3339 instant):
//
//	partition PK=LIT... [deleted=TIME]      start a partition (the table
//	                                        sorts partitions by token)
//	static [ts=TIME] COL=CELL...            the static row
//	row CK=LIT... [ts=TIME] [ttl=N] [insert] [deleted=TIME] COL=CELL...
//	rows CK=FROM..TO ...                    one row per int value, same
//	                                        arguments as row
//	range CK(>=|>|<=|<|=)LIT... @TIME       a range tombstone
//
// A CELL is LIT[@TIME][+TTL]; null is a tombstone. A non-frozen collection
// takes COL={...}/[...] (deletes the column at ts-1, then writes the
// elements), COL+={...} (elements only), COL[KEY]=LIT (one element,
// null deletes it) and COL=null (deletes the column at ts). Local deletion
// and expiry times derive from timestamps: ts/1e6 (+ttl).
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata/scripts", func(t *testing.T, path string) {
		s := &script{t: t}
		defer s.close()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			out, err := s.run(d)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			return out
		})
	})
}

type script struct {
	t     *testing.T
	table *schema.Table
	fs    vfs.FS
	r     *Reader
}

func (s *script) close() {
	if s.r != nil {
		require.NoError(s.t, s.r.Close())
		s.r = nil
	}
}

func (s *script) run(d *datadriven.TestData) (string, error) {
	switch d.Cmd {
	case "schema":
		tbl, err := parseSchema(d.Input)
		if err != nil {
			return "", err
		}
		s.table = tbl
		return "ok\n", nil
	case "build":
		return s.build(d)
	case "layout":
		var b strings.Builder
		if err := Layout(&b, s.r); err != nil {
			return "", err
		}
		return b.String(), nil
	case "dump":
		opts := DumpOptions{RawTimestamps: d.HasArg("raw"), JSONLines: d.HasArg("lines"), KeysOnly: d.HasArg("keys")}
		if arg, ok := d.Arg("now"); ok {
			us, err := parseTime(arg.Vals[0])
			if err != nil {
				return "", err
			}
			opts.Now = time.UnixMicro(us)
		}
		var b bytes.Buffer
		if err := Dump(&b, s.r, s.table, opts); err != nil {
			return "", err
		}
		return b.String() + "\n", nil
	case "read":
		return s.read(d)
	}
	return "", fmt.Errorf("unknown command %q", d.Cmd)
}

func parseSchema(input string) (*schema.Table, error) {
	var cols []*schema.Column
	npk, nck := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			return nil, fmt.Errorf("bad column line %q", line)
		}
		typ, err := types.ParseType(strings.Join(f[2:], " "))
		if err != nil {
			return nil, err
		}
		c := &schema.Column{Name: f[1], Type: typ, Position: -1}
		switch f[0] {
		case "pk":
			c.Kind, c.Position = schema.PartitionKey, npk
			npk++
		case "ck", "ck-desc":
			c.Kind, c.Position, c.Desc = schema.Clustering, nck, f[0] == "ck-desc"
			nck++
		case "static":
			c.Kind = schema.Static
		case "col":
			c.Kind = schema.Regular
		default:
			return nil, fmt.Errorf("bad column kind %q", f[0])
		}
		cols = append(cols, c)
	}
	return schema.NewTable("ks", "t", data.TableID{}, cols, schema.DefaultOptions()), nil
}

// parseTime reads micros or an RFC 3339 instant.
func parseTime(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, fmt.Errorf("bad time %q", s)
	}
	return tm.UnixMicro(), nil
}

// splitTokens splits on spaces outside quotes and brackets.
func splitTokens(line string) []string {
	var out []string
	depth, quote, start := 0, false, -1
	for i := 0; i <= len(line); i++ {
		if i == len(line) || (!quote && depth == 0 && line[i] == ' ') {
			if start >= 0 {
				out = append(out, line[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
		switch c := line[i]; {
		case c == '\'':
			quote = !quote
		case quote:
		case c == '[' || c == '{' || c == '(':
			depth++
		case c == ']' || c == '}' || c == ')':
			depth--
		}
	}
	return out
}

// splitAssign splits "name<op>value" at the first operator outside
// brackets, returning name, operator and value.
func splitAssign(tok string) (name, op, value string, ok bool) {
	depth := 0
	for i := 0; i < len(tok); i++ {
		switch tok[i] {
		case '[':
			depth++
		case ']':
			depth--
		}
		if depth > 0 {
			continue
		}
		for _, o := range []string{">=", "<=", "+=", "=", ">", "<"} {
			if strings.HasPrefix(tok[i:], o) {
				return tok[:i], o, tok[i+len(o):], true
			}
		}
	}
	return "", "", "", false
}

type scriptPartition struct {
	token  int64
	key    []byte
	del    data.DeletionTime
	static *data.Row
	rts    []data.RangeTombstone
	rows   []data.Row
}

func (s *script) build(d *datadriven.TestData) (string, error) {
	if s.table == nil {
		return "", fmt.Errorf("no schema")
	}
	opts := WriterOptions{}
	if arg, ok := d.Arg("codec"); ok {
		found := false
		for _, c := range []Codec{CodecNone, CodecS2, CodecSnappy, CodecZstd} {
			if c.String() == arg.Vals[0] {
				opts.Compression.Codec, found = c, true
			}
		}
		if !found {
			return "", fmt.Errorf("unknown codec %q", arg.Vals[0])
		}
	}
	if arg, ok := d.Arg("column-index-size"); ok {
		opts.ColumnIndexSize, _ = strconv.Atoi(arg.Vals[0])
	}
	if arg, ok := d.Arg("chunk"); ok {
		opts.Compression.ChunkLength, _ = strconv.Atoi(arg.Vals[0])
	}
	var parts []*scriptPartition
	var cur *scriptPartition
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		toks := splitTokens(strings.TrimSpace(line))
		if len(toks) == 0 {
			continue
		}
		if toks[0] != "partition" && cur == nil {
			return "", fmt.Errorf("%q before any partition", line)
		}
		var err error
		switch toks[0] {
		case "partition":
			cur, err = s.partition(toks[1:])
			if err == nil {
				parts = append(parts, cur)
			}
		case "static":
			var r data.Row
			if r, err = s.row(nil, toks[1:]); err == nil {
				cur.static = &r
			}
		case "row":
			var r data.Row
			if r, err = s.row(s.table.ClusteringColumns(), toks[1:]); err == nil {
				cur.rows = append(cur.rows, r)
			}
		case "rows":
			// rows CK=FROM..TO rest...: one row per int clustering value.
			name, _, span, ok := splitAssign(toks[1])
			from, to, ok2 := strings.Cut(span, "..")
			lo, err1 := strconv.Atoi(from)
			hi, err2 := strconv.Atoi(to)
			if !ok || !ok2 || err1 != nil || err2 != nil {
				err = fmt.Errorf("bad rows range %q", toks[1])
				break
			}
			for i := lo; i <= hi && err == nil; i++ {
				var r data.Row
				args := append([]string{name + "=" + strconv.Itoa(i)}, toks[2:]...)
				if r, err = s.row(s.table.ClusteringColumns(), args); err == nil {
					cur.rows = append(cur.rows, r)
				}
			}
		case "range":
			var rt data.RangeTombstone
			if rt, err = s.rangeTombstone(toks[1:]); err == nil {
				cur.rts = append(cur.rts, rt)
			}
		default:
			err = fmt.Errorf("unknown statement %q", toks[0])
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", line, err)
		}
	}
	sort.SliceStable(parts, func(i, j int) bool {
		return data.ComparePartitions(parts[i].token, parts[i].key, parts[j].token, parts[j].key) < 0
	})
	s.close()
	s.fs = vfs.NewMem()
	w, err := NewWriter(s.fs, "", 1, opts)
	if err != nil {
		return "", err
	}
	for _, p := range parts {
		sort.SliceStable(p.rows, func(i, j int) bool { return bytes.Compare(p.rows[i].Clustering, p.rows[j].Clustering) < 0 })
		if err := w.BeginPartition(p.token, p.key, p.del, p.static, p.rts); err != nil {
			return "", err
		}
		for i := range p.rows {
			if err := w.AddRow(&p.rows[i]); err != nil {
				return "", err
			}
		}
		if err := w.EndPartition(); err != nil {
			return "", err
		}
	}
	m, err := w.Finish()
	if err != nil {
		return "", err
	}
	if s.r, err = Open(s.fs, "", 1, ReaderOptions{VerifyData: true}); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d partitions, %d rows, %d cells, stream %d bytes, Data.db %d bytes\n",
		m.Stats.Partitions, m.Stats.Rows, m.Stats.Cells, m.Stats.DataSize, m.Stats.CompressedSize), nil
}

func (s *script) partitionKey(lits []string) ([]byte, error) {
	pk := s.table.PartitionKey()
	if len(lits) != len(pk) {
		return nil, fmt.Errorf("%d key values for %d key columns", len(lits), len(pk))
	}
	vals := make([][]byte, len(pk))
	for i, c := range pk {
		v, err := types.ParseLiteral(c.Type, lits[i])
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	if len(vals) == 1 {
		return vals[0], nil
	}
	return partitioner.CompositeKey(vals)
}

func (s *script) partition(toks []string) (*scriptPartition, error) {
	p := &scriptPartition{del: data.LiveDeletion}
	var lits []string
	for _, tok := range toks {
		name, _, val, ok := splitAssign(tok)
		if !ok {
			return nil, fmt.Errorf("bad token %q", tok)
		}
		if name == "deleted" {
			ts, err := parseTime(val)
			if err != nil {
				return nil, err
			}
			p.del = data.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: ts / 1e6}
			continue
		}
		lits = append(lits, val)
	}
	key, err := s.partitionKey(lits)
	if err != nil {
		return nil, err
	}
	p.key, p.token = key, int64(partitioner.Murmur3(key))
	return p, nil
}

// row parses a static row (ckCols nil) or a row.
func (s *script) row(ckCols []*schema.Column, toks []string) (data.Row, error) {
	r := data.NewRow(nil)
	var ts int64
	var ttl int32
	insert := false
	ckVals := map[string][]byte{}
	type pending struct{ name, op, val string }
	var cells []pending
	for _, tok := range toks {
		if tok == "insert" {
			insert = true
			continue
		}
		name, op, val, ok := splitAssign(tok)
		if !ok {
			return r, fmt.Errorf("bad token %q", tok)
		}
		switch name {
		case "ts":
			t, err := parseTime(val)
			if err != nil {
				return r, err
			}
			ts = t
		case "ttl":
			n, err := strconv.Atoi(val)
			if err != nil {
				return r, err
			}
			ttl = int32(n)
		case "deleted":
			t, err := parseTime(val)
			if err != nil {
				return r, err
			}
			r.Deletion = data.DeletionTime{MarkedForDeleteAt: t, LocalDeletionTime: t / 1e6}
		default:
			if c := s.table.Column(name); c != nil && c.Kind == schema.Clustering {
				v, err := types.ParseLiteral(c.Type, val)
				if err != nil {
					return r, err
				}
				ckVals[name] = v
				continue
			}
			cells = append(cells, pending{name, op, val})
		}
	}
	if ckCols != nil {
		vals := make([][]byte, len(ckCols))
		for i, c := range ckCols {
			if vals[i] = ckVals[c.Name]; vals[i] == nil {
				return r, fmt.Errorf("missing clustering value %s", c.Name)
			}
		}
		ck, err := types.EncodeClustering(s.table.ClusteringTypes(), vals)
		if err != nil {
			return r, err
		}
		r.Clustering = ck
	}
	if insert {
		r.Liveness = data.LivenessInfo{Timestamp: ts, TTL: ttl, ExpiresAt: data.NoDeletionTime}
		if ttl > 0 {
			r.Liveness.ExpiresAt = ts/1e6 + int64(ttl)
		}
	}
	for _, pc := range cells {
		if err := s.addCells(&r, pc.name, pc.op, pc.val, ts, ttl); err != nil {
			return r, err
		}
	}
	sort.SliceStable(r.Cells, func(i, j int) bool { return data.CompareID(&r.Cells[i], &r.Cells[j]) < 0 })
	sort.SliceStable(r.ColumnDeletions, func(i, j int) bool { return r.ColumnDeletions[i].Column < r.ColumnDeletions[j].Column })
	return r, nil
}

// cellAttrs splits LIT[@TIME][+TTL].
func cellAttrs(val string, ts int64, ttl int32) (string, int64, int32, error) {
	if i := strings.LastIndexByte(val, '+'); i > 0 && !strings.ContainsAny(val[i:], "'}])") {
		n, err := strconv.Atoi(val[i+1:])
		if err != nil {
			return "", 0, 0, err
		}
		val, ttl = val[:i], int32(n)
	}
	if i := strings.LastIndexByte(val, '@'); i > 0 && !strings.ContainsAny(val[i:], "'}])") {
		t, err := parseTime(val[i+1:])
		if err != nil {
			return "", 0, 0, err
		}
		val, ts = val[:i], t
	}
	return val, ts, ttl, nil
}

func makeCell(name string, path []byte, v []byte, ts int64, ttl int32) data.Cell {
	c := data.Cell{Column: name, Path: path, Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: v}
	switch {
	case v == nil:
		c.Kind, c.LocalDeletionTime = data.CellTombstone, ts/1e6
	case ttl > 0:
		c.TTL, c.LocalDeletionTime = ttl, ts/1e6+int64(ttl)
	}
	return c
}

func (s *script) addCells(r *data.Row, name, op, val string, ts int64, ttl int32) error {
	val, ts, ttl, err := cellAttrs(val, ts, ttl)
	if err != nil {
		return err
	}
	elemKey := ""
	if i := strings.IndexByte(name, '['); i > 0 && strings.HasSuffix(name, "]") {
		name, elemKey = name[:i], name[i+1:len(name)-1]
	}
	c := s.table.Column(name)
	if c == nil {
		return fmt.Errorf("unknown column %q", name)
	}
	if !c.Type.IsMultiCell() {
		v, err := types.ParseLiteral(c.Type, val)
		if err != nil {
			return err
		}
		r.Cells = append(r.Cells, makeCell(name, nil, v, ts, ttl))
		return nil
	}
	keyType := c.Type.Params[0]
	if c.Type.Kind == types.List {
		keyType = types.TimeUUIDType
	}
	valueType := c.Type.Params[len(c.Type.Params)-1]
	if elemKey != "" {
		k, err := types.ParseLiteral(keyType, elemKey)
		if err != nil {
			return err
		}
		v, err := types.ParseLiteral(valueType, val)
		if err != nil {
			return err
		}
		r.Cells = append(r.Cells, makeCell(name, types.EncodeKey(keyType, k), v, ts, ttl))
		return nil
	}
	if val == "null" {
		r.ColumnDeletions = append(r.ColumnDeletions, data.ColumnDeletion{Column: name, Deletion: data.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: ts / 1e6}})
		return nil
	}
	whole, err := types.ParseLiteral(c.Type.Freeze(), val)
	if err != nil {
		return err
	}
	elems, err := types.DecodeCollection(c.Type.Freeze(), whole)
	if err != nil {
		return err
	}
	if op == "=" {
		r.ColumnDeletions = append(r.ColumnDeletions, data.ColumnDeletion{Column: name, Deletion: data.DeletionTime{MarkedForDeleteAt: ts - 1, LocalDeletionTime: ts / 1e6}})
	}
	switch c.Type.Kind {
	case types.Set:
		for _, e := range elems {
			r.Cells = append(r.Cells, makeCell(name, types.EncodeKey(keyType, e), []byte{}, ts, ttl))
		}
	case types.Map:
		for i := 0; i+1 < len(elems); i += 2 {
			r.Cells = append(r.Cells, makeCell(name, types.EncodeKey(keyType, elems[i]), elems[i+1], ts, ttl))
		}
	case types.List:
		for i, e := range elems {
			u := types.MinTimeUUID(time.UnixMicro(ts).Add(time.Duration(i) * time.Millisecond))
			r.Cells = append(r.Cells, makeCell(name, types.EncodeKey(keyType, u[:]), e, ts, ttl))
		}
	}
	return nil
}

// rangeTombstone parses "CK op LIT ... @TIME" into a range tombstone on the
// clustering prefix: equalities on leading columns, then at most one lower
// and one upper bound on the next.
func (s *script) rangeTombstone(toks []string) (data.RangeTombstone, error) {
	rt := data.RangeTombstone{}
	cols := s.table.ClusteringTypes()
	ck := s.table.ClusteringColumns()
	var eq [][]byte
	var lo, hi []byte
	var loKind, hiKind types.BoundKind
	var ts int64
	for _, tok := range toks {
		if strings.HasPrefix(tok, "@") {
			t, err := parseTime(tok[1:])
			if err != nil {
				return rt, err
			}
			ts = t
			continue
		}
		name, op, val, ok := splitAssign(tok)
		if !ok {
			return rt, fmt.Errorf("bad token %q", tok)
		}
		i := len(eq)
		if i >= len(ck) || ck[i].Name != name {
			return rt, fmt.Errorf("restriction on %q out of order", name)
		}
		v, err := types.ParseLiteral(ck[i].Type, val)
		if err != nil {
			return rt, err
		}
		switch op {
		case "=":
			eq = append(eq, v)
		case ">=", ">":
			lo, loKind = v, types.StartInclusive
			if op == ">" {
				loKind = types.StartExclusive
			}
		case "<=", "<":
			hi, hiKind = v, types.EndInclusive
			if op == "<" {
				hiKind = types.EndExclusive
			}
		}
	}
	// A descending column swaps which value bounds which side.
	if len(eq) < len(ck) && ck[len(eq)].Desc {
		lo, hi = hi, lo
		flip := map[types.BoundKind]types.BoundKind{types.EndInclusive: types.StartInclusive, types.EndExclusive: types.StartExclusive,
			types.StartInclusive: types.EndInclusive, types.StartExclusive: types.EndExclusive}
		loKind, hiKind = flip[hiKind], flip[loKind]
	}
	var err error
	switch {
	case lo != nil:
		rt.Start, err = types.EncodeBound(cols, append(append([][]byte{}, eq...), lo), loKind)
	case len(eq) > 0:
		rt.Start, err = types.EncodeBound(cols, eq, types.StartInclusive)
	}
	if err != nil {
		return rt, err
	}
	switch {
	case hi != nil:
		rt.End, err = types.EncodeBound(cols, append(append([][]byte{}, eq...), hi), hiKind)
	case len(eq) > 0:
		rt.End, err = types.EncodeBound(cols, eq, types.EndInclusive)
	}
	rt.Deletion = data.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: ts / 1e6}
	return rt, err
}

func (s *script) read(d *datadriven.TestData) (string, error) {
	arg, ok := d.Arg("key")
	if !ok {
		return "", fmt.Errorf("read needs key=")
	}
	key, err := s.partitionKey(arg.Vals)
	if err != nil {
		return "", err
	}
	p, found, err := s.r.GetPartition(int64(partitioner.Murmur3(key)), key)
	if err != nil {
		return "", err
	}
	if !found {
		return "not found\n", nil
	}
	var slices data.Slices
	if arg, ok := d.Arg("slice"); ok {
		from, to, _ := strings.Cut(arg.Vals[0], "..")
		ck := s.table.ClusteringColumns()
		var sl data.Slice
		if from != "" {
			v, err := types.ParseLiteral(ck[0].Type, from)
			if err != nil {
				return "", err
			}
			if sl.Start, err = types.EncodeBound(s.table.ClusteringTypes(), [][]byte{v}, types.StartInclusive); err != nil {
				return "", err
			}
		}
		if to != "" {
			v, err := types.ParseLiteral(ck[0].Type, to)
			if err != nil {
				return "", err
			}
			if sl.End, err = types.EncodeBound(s.table.ClusteringTypes(), [][]byte{v}, types.EndExclusive); err != nil {
				return "", err
			}
		}
		if ck[0].Desc {
			// Byte order is reversed value order: from is the end, to the
			// (exclusive) start.
			sl.Start, sl.End = nil, nil
			if to != "" {
				v, _ := types.ParseLiteral(ck[0].Type, to)
				sl.Start, _ = types.EncodeBound(s.table.ClusteringTypes(), [][]byte{v}, types.StartExclusive)
			}
			if from != "" {
				v, _ := types.ParseLiteral(ck[0].Type, from)
				sl.End, _ = types.EncodeBound(s.table.ClusteringTypes(), [][]byte{v}, types.EndInclusive)
			}
		}
		slices = data.Slices{sl}
	}
	var b strings.Builder
	if st := p.Static(); st != nil {
		fmt.Fprintf(&b, "static: %s\n", s.cells(st))
	}
	it := p.Rows(slices, d.HasArg("reverse"))
	for {
		row, ok := it.Next()
		if !ok {
			break
		}
		vals, _, err := types.DecodeClustering(s.table.ClusteringTypes(), row.Clustering)
		if err != nil {
			return "", err
		}
		var ck []string
		for i, v := range vals {
			ck = append(ck, types.Format(s.table.ClusteringColumns()[i].Type, v))
		}
		fmt.Fprintf(&b, "row (%s): %s\n", strings.Join(ck, ", "), s.cells(row))
	}
	if err := it.Err(); err != nil {
		return "", err
	}
	require.NoError(s.t, it.Close())
	st := p.ReadStats()
	fmt.Fprintf(&b, "blocks %d, rows decoded %d, index blocks %d\n", st.Blocks, st.Rows, p.IndexBlocks())
	return b.String(), nil
}

func (s *script) cells(r *data.Row) string {
	var parts []string
	for _, c := range r.Cells {
		col := s.table.Column(c.Column)
		switch {
		case c.Kind == data.CellTombstone:
			parts = append(parts, c.Column+"=null")
		case col != nil && !col.Type.IsMultiCell():
			parts = append(parts, c.Column+"="+types.Format(col.Type, c.Value))
		default:
			parts = append(parts, fmt.Sprintf("%s[%x]=%x", c.Column, c.Path, c.Value))
		}
	}
	return strings.Join(parts, " ")
}
