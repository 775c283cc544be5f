package bench

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/pebble"
	pebblevfs "github.com/cockroachdb/pebble/vfs"
	"github.com/gocql/gocql"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/server/cqlbackend"
	"github.com/minicass/minicass/types"
)

// openModelDB opens a database for a model, creates the profile's keyspace
// and the model's table, and returns the table's definition.
func openModelDB(ctx context.Context, pl *plan, m *ModelSpec) (dbStore, *minicass.Session, *schema.Table, error) {
	var s dbStore
	// Nothing is flushed behind the runner's back: it flushes when a
	// state asks for SSTables.
	mo := minicass.Options{MemtableSize: 1 << 40}
	if pl.dir != "" {
		dir, err := os.MkdirTemp(pl.dir, "minicass-model-")
		if err != nil {
			return s, nil, nil, err
		}
		s.dir, mo.Dir = dir, dir
	}
	db, err := minicass.Open(mo)
	if err != nil {
		s.close()
		return s, nil, nil, err
	}
	s.db = db
	ks := pl.prof.Keyspace
	sess := db.Session()
	for _, q := range []string{
		`CREATE KEYSPACE IF NOT EXISTS ` + ks + ` WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`USE ` + ks,
	} {
		if err := sess.Exec(ctx, q); err != nil {
			s.close()
			return s, nil, nil, err
		}
	}
	if err := sess.Exec(ctx, m.Table); err != nil {
		s.close()
		return s, nil, nil, fmt.Errorf("%s:%d: table: %w", pl.prof.File, m.line, err)
	}
	name, _ := tableName(m.Table)
	tbl, ok := db.Engine().Table(ks, name)
	if !ok {
		s.close()
		return s, nil, nil, fmt.Errorf("%s:%d: table %s.%s missing after its CREATE TABLE (is it in another keyspace?)", pl.prof.File, m.line, ks, name)
	}
	// The flushed state is its SSTables side by side: no background
	// compaction may merge them before the compacted state asks for it.
	// The table's own strategy stays, with enabled set to false.
	comp := maps.Clone(tbl.Options.Compaction)
	if comp == nil {
		comp = map[string]string{}
	}
	if comp["class"] == "" {
		comp["class"] = "SizeTieredCompactionStrategy"
	}
	comp["enabled"] = "false"
	var opts []string
	for _, k := range slices.Sorted(maps.Keys(comp)) {
		opts = append(opts, fmt.Sprintf("'%s': '%s'", strings.ReplaceAll(k, "'", "''"), strings.ReplaceAll(comp[k], "'", "''")))
	}
	if err := sess.Exec(ctx, fmt.Sprintf(`ALTER TABLE %s.%s WITH compaction = {%s}`, ks, name, strings.Join(opts, ", "))); err != nil {
		s.close()
		return s, nil, nil, fmt.Errorf("%s:%d: turning background compaction off: %w", pl.prof.File, m.line, err)
	}
	if tbl, ok = db.Engine().Table(ks, name); !ok {
		s.close()
		return s, nil, nil, fmt.Errorf("table %s.%s missing after ALTER TABLE", ks, name)
	}
	return s, sess, tbl, nil
}

// minicassTarget runs a model on minicass, through the Go API (in process)
// or, for the gocql peer, through gocql to a server on the loopback
// interface serving the same kind of database.
type minicassTarget struct {
	dbStore
	pl     *plan
	tbl    *schema.Table
	insSt  *minicass.Stmt
	qSts   []*minicass.Stmt
	qCQL   []string
	insCQL string
	// The gocql peer's server and session; nil for the Go API.
	srv  *server.Server
	done chan error
	cs   *gocql.Session
}

func openMinicassTarget(ctx context.Context, pl *plan, m *ModelSpec, overGocql bool) (*minicassTarget, error) {
	d, sess, tbl, err := openModelDB(ctx, pl, m)
	if err != nil {
		return nil, err
	}
	t := &minicassTarget{dbStore: d, pl: pl, tbl: tbl, insCQL: m.Insert.CQL}
	for _, q := range pl.prof.Queries {
		t.qCQL = append(t.qCQL, m.Queries[q.Name].CQL)
	}
	if overGocql {
		if err := t.serve(); err != nil {
			t.close()
			return nil, err
		}
		return t, nil
	}
	prepare := func(line int, cql string) (*minicass.Stmt, error) {
		st, err := sess.Prepare(ctx, cql)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", pl.prof.File, line, err)
		}
		return st, nil
	}
	if t.insSt, err = prepare(m.Insert.line, m.Insert.CQL); err != nil {
		t.close()
		return nil, err
	}
	for _, q := range pl.prof.Queries {
		st := m.Queries[q.Name]
		p, err := prepare(st.line, st.CQL)
		if err != nil {
			t.close()
			return nil, err
		}
		t.qSts = append(t.qSts, p)
	}
	return t, nil
}

// serve starts a native-protocol server on the database and connects
// gocql to it.
func (t *minicassTarget) serve() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	if err := cqlbackend.Announce(t.db.Executor(), l.Addr()); err != nil {
		l.Close()
		return err
	}
	t.srv = server.New(cqlbackend.New(t.db.Executor()), server.Options{})
	t.done = make(chan error, 1)
	go func() { t.done <- t.srv.Serve(l) }()
	addr := l.Addr().(*net.TCPAddr)
	cluster := gocql.NewCluster(addr.IP.String())
	cluster.Port = addr.Port
	cluster.Keyspace = t.pl.prof.Keyspace
	cluster.Consistency = gocql.One
	cluster.ProtoVersion = 4
	cluster.Timeout = 10 * time.Second
	cluster.NumConns = 1
	cluster.WriteCoalesceWaitTime = 0
	t.cs, err = cluster.CreateSession()
	return err
}

func (t *minicassTarget) insert(ctx context.Context, vals []any) error {
	if t.cs != nil {
		return t.cs.Query(t.insCQL, vals...).WithContext(ctx).Exec()
	}
	return t.insSt.Exec(ctx, vals...)
}

func (t *minicassTarget) query(ctx context.Context, q int, vals []any) (rows, size int, err error) {
	if t.cs != nil {
		it := t.cs.Query(t.qCQL[q], vals...).WithContext(ctx).Iter()
		rows = it.NumRows()
		return rows, 0, it.Close()
	}
	r := t.qSts[q].Query(ctx, vals...)
	for r.Next() {
		row := r.Row()
		for i := range row.Len() {
			size += len(row.Bytes(i))
		}
		rows++
	}
	return rows, size, r.Close()
}

func (t *minicassTarget) sstables(ctx context.Context, q int, vals []any) (touched, rows int, err error) {
	if t.cs != nil {
		return -1, 0, nil
	}
	r := t.qSts[q].Query(ctx, append(slices.Clip(vals), minicass.Tracing())...)
	for r.Next() {
		rows++
	}
	if err := r.Close(); err != nil {
		return 0, rows, err
	}
	for _, line := range r.Trace() {
		if m := sstablesTraceRE.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			touched += n
		}
	}
	return touched, rows, nil
}

func (t *minicassTarget) flush(ctx context.Context) error {
	return t.db.Flush(ctx, t.tbl.Keyspace, t.tbl.Name)
}

func (t *minicassTarget) compact(ctx context.Context) error {
	return t.db.Compact(ctx, t.tbl.Keyspace, t.tbl.Name)
}

func (t *minicassTarget) shape(ctx context.Context, rows int64) (Shape, error) {
	if t.cs != nil {
		return Shape{}, nil
	}
	eng := t.db.Engine()
	st, err := eng.TableStats(t.tbl.Keyspace, t.tbl.Name)
	if err != nil {
		return Shape{}, err
	}
	sh := Shape{Target: TargetMinicass, Rows: rows, SSTables: st.SSTableCount, BytesOnDisk: st.SpaceUsedLive}
	sh.Partitions = st.PartitionsEstimate
	if st.SSTableCount > 0 {
		sh.PartitionBytes = Spread{P50: st.PartitionSize.P50, P99: st.PartitionSize.P99, Max: st.PartitionSize.Max}
		sh.PartitionCells = Spread{P50: st.CellCount.P50, P99: st.CellCount.P99, Max: st.CellCount.Max}
		if st.SSTableCount == 1 {
			// One SSTable holds each partition once: the estimate is exact.
			sh.Partitions = st.PartitionsEstimate
		}
		if ws := eng.WriteStats(); st.DataSize > 0 {
			sh.WriteAmplification = float64(ws.Flushed+ws.Compacted) / float64(st.DataSize)
		}
	} else {
		sh.Partitions = int64(st.MemtablePartitions)
		sh.MemtableBytes = st.MemtableSize
	}
	if rows > 0 && st.SpaceUsedLive > 0 {
		sh.BytesOnDiskPerRow = float64(st.SpaceUsedLive) / float64(rows)
	}
	return sh, nil
}

func (t *minicassTarget) close() error {
	if t.cs != nil {
		t.cs.Close()
	}
	if t.srv != nil {
		t.srv.Close()
		<-t.done
	}
	return t.dbStore.close()
}

// pebbleTarget stores a model's rows in pebble as raw keys and values: the
// key is the partition key's columns (each length-prefixed) followed by the
// clustering key in minicass's byte-comparable form (DESC columns
// inverted), the value the regular columns' serialized values. A query is
// an iterator over the partition's prefix, walked in the table's order or
// backwards for an ORDER BY against it, up to the statement's LIMIT: the
// least work a key-value store can do for the same logical read.
type pebbleTarget struct {
	db    *pebble.DB
	dir   string
	tbl   *schema.Table
	ins   []int // for each column of the table, its index in the insert's values, -1: none
	q     []pebbleQuery
	write *pebble.WriteOptions
}

type pebbleQuery struct {
	pk      []int // for each partition key column, the statement value bound to it
	limit   int
	reverse bool
}

func openPebbleTarget(ctx context.Context, pl *plan, m *ModelSpec) (*pebbleTarget, error) {
	// The table's definition, from minicass's own parse of the CQL.
	d, _, tbl, err := openModelDB(ctx, pl, m)
	if err != nil {
		return nil, err
	}
	d.close()
	t := &pebbleTarget{tbl: tbl, write: pebble.NoSync}
	cols, ok := insertColumns(m.Insert.CQL)
	if !ok || len(cols) != len(m.Insert.Args) {
		return nil, fmt.Errorf("%s:%d: the pebble peer needs INSERT INTO t (columns...) VALUES (?, ...) with one arg per column", pl.prof.File, m.Insert.line)
	}
	for _, c := range tbl.Columns {
		t.ins = append(t.ins, slices.Index(cols, c.Name))
	}
	for _, c := range tbl.PartitionKey() {
		if !slices.Contains(cols, c.Name) {
			return nil, fmt.Errorf("%s:%d: the insert does not set partition key column %s", pl.prof.File, m.Insert.line, c.Name)
		}
	}
	for _, q := range pl.prof.Queries {
		st := m.Queries[q.Name]
		pq, err := t.plan(st.CQL)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: pebble peer: %v", pl.prof.File, st.line, err)
		}
		t.q = append(t.q, pq)
	}
	opts := &pebble.Options{
		// The flushed state wants its SSTables side by side in L0, as
		// minicass keeps them until the compacted state compacts.
		MemTableSize:                1 << 30,
		MemTableStopWritesThreshold: 4,
		L0CompactionThreshold:       1 << 20,
		L0StopWritesThreshold:       1 << 20,
		DisableAutomaticCompactions: true,
		Logger:                      quietLogger{},
	}
	dir := ""
	if pl.dir != "" {
		if dir, err = os.MkdirTemp(pl.dir, "pebble-model-"); err != nil {
			return nil, err
		}
		t.dir = dir
	} else {
		opts.FS = pebblevfs.NewMem()
	}
	if t.db, err = pebble.Open(dir, opts); err != nil {
		return nil, err
	}
	return t, nil
}

type quietLogger struct{}

func (quietLogger) Infof(string, ...any)  {}
func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}

// plan reads what a SELECT asks: the partition key bound by its markers,
// its LIMIT and whether it reads against the clustering order.
func (t *pebbleTarget) plan(cql string) (pebbleQuery, error) {
	var pq pebbleQuery
	where := cql
	if i := strings.Index(strings.ToUpper(cql), "WHERE"); i >= 0 {
		where = cql[i:]
	} else {
		return pq, fmt.Errorf("%q has no WHERE", cql)
	}
	var bound []string
	for _, m := range whereEqRE.FindAllStringSubmatch(where, -1) {
		bound = append(bound, unquote(m[1]))
	}
	for _, c := range t.tbl.PartitionKey() {
		i := slices.Index(bound, c.Name)
		if i < 0 {
			return pq, fmt.Errorf("%q does not restrict partition key column %s by equality", cql, c.Name)
		}
		pq.pk = append(pq.pk, i)
	}
	if len(bound) != len(pq.pk) {
		return pq, fmt.Errorf("%q restricts columns beyond the partition key: the pebble peer reads whole partitions", cql)
	}
	if m := limitRE.FindStringSubmatch(cql); m != nil {
		pq.limit, _ = strconv.Atoi(m[1])
	}
	if m := orderRE.FindStringSubmatch(cql); m != nil {
		desc := strings.EqualFold(m[1], "DESC")
		ck := t.tbl.ClusteringTypes()
		if len(ck) > 0 {
			pq.reverse = desc != (ck[0].Order == types.Desc)
		}
	}
	return pq, nil
}

// partitionPrefix appends the key prefix of a partition: each key column's
// serialized value, length-prefixed.
func (t *pebbleTarget) partitionPrefix(dst []byte, vals func(i int) any) ([]byte, error) {
	for i, c := range t.tbl.PartitionKey() {
		b, err := types.Encode(c.Type, vals(i))
		if err != nil {
			return nil, err
		}
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(b)))
		dst = append(dst, b...)
	}
	return dst, nil
}

func (t *pebbleTarget) insert(_ context.Context, vals []any) error {
	byCol := func(c *schema.Column) any {
		i := t.ins[slices.Index(t.tbl.Columns, c)]
		if i < 0 {
			return nil
		}
		return vals[i]
	}
	pk := t.tbl.PartitionKey()
	key, err := t.partitionPrefix(nil, func(i int) any { return byCol(pk[i]) })
	if err != nil {
		return err
	}
	var ck [][]byte
	for _, c := range t.tbl.ClusteringColumns() {
		b, err := types.Encode(c.Type, byCol(c))
		if err != nil {
			return err
		}
		ck = append(ck, b)
	}
	if len(ck) > 0 {
		if key, err = types.AppendClustering(key, t.tbl.ClusteringTypes(), ck); err != nil {
			return err
		}
	}
	var val []byte
	for i, c := range t.tbl.Columns {
		if c.Kind == schema.PartitionKey || c.Kind == schema.Clustering || t.ins[i] < 0 {
			continue
		}
		b, err := types.Encode(c.Type, vals[t.ins[i]])
		if err != nil {
			return err
		}
		val = binary.AppendUvarint(val, uint64(len(b)))
		val = append(val, b...)
	}
	return t.db.Set(key, val, t.write)
}

func (t *pebbleTarget) query(_ context.Context, q int, vals []any) (rows, size int, err error) {
	pq := &t.q[q]
	prefix, err := t.partitionPrefix(nil, func(i int) any { return vals[pq.pk[i]] })
	if err != nil {
		return 0, 0, err
	}
	it, err := t.db.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return 0, 0, err
	}
	ok := it.First()
	if pq.reverse {
		ok = it.Last()
	}
	for ; ok && (pq.limit == 0 || rows < pq.limit); rows++ {
		size += len(it.Key()) + len(it.Value())
		if pq.reverse {
			ok = it.Prev()
		} else {
			ok = it.Next()
		}
	}
	return rows, size, it.Close()
}

// prefixEnd returns the smallest key above every key with the prefix.
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

func (t *pebbleTarget) sstables(context.Context, int, []any) (int, int, error) { return -1, 0, nil }

func (t *pebbleTarget) flush(context.Context) error { return t.db.Flush() }

func (t *pebbleTarget) compact(context.Context) error {
	return t.db.Compact([]byte{0}, bytes.Repeat([]byte{0xff}, 16), false)
}

func (t *pebbleTarget) shape(_ context.Context, rows int64) (Shape, error) {
	m := t.db.Metrics()
	sh := Shape{Target: TargetPebble, Rows: rows, BytesOnDisk: int64(m.DiskSpaceUsage())}
	for _, l := range m.Levels {
		sh.SSTables += int(l.NumFiles)
	}
	if sh.SSTables == 0 {
		sh.BytesOnDisk = 0
		sh.MemtableBytes = int64(m.MemTable.Size)
	}
	if rows > 0 && sh.BytesOnDisk > 0 {
		sh.BytesOnDiskPerRow = float64(sh.BytesOnDisk) / float64(rows)
	}
	return sh, nil
}

func (t *pebbleTarget) close() error {
	err := t.db.Close()
	if t.dir != "" {
		if rerr := os.RemoveAll(t.dir); err == nil {
			err = rerr
		}
	}
	return err
}
