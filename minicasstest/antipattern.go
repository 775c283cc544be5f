package minicasstest

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/wire"
)

// Anti-pattern checks: the data-modelling mistakes that work on a laptop
// and break in production ("migrations that break"), made executable. Each
// check reads the query log (the drivers' requests) or the data, and
// reports what it found with the advice a Cassandra data-modelling guide
// gives for it. They are opt-in:
//
//	srv := minicasstest.Start(t)
//	srv.EnableChecks(t, minicasstest.AllChecks()) // fail the test at its end
//
// or, for a report without failing, AllChecks() with Warn set.

// Checks selects the anti-pattern checks and their limits. The zero value
// checks nothing; AllChecks turns every one on with its default limit.
type Checks struct {
	// AllowFiltering fires for a SELECT with ALLOW FILTERING.
	AllowFiltering bool
	// FullScan fires for a SELECT (of a table outside the system
	// keyspaces) that does not give its whole partition key with = or IN:
	// it reads every partition of the cluster (a token() range does not
	// fire: paging through ranges is deliberate).
	FullScan bool
	// MaxINKeys, when positive, fires for a read or write naming more than
	// this many partition keys with IN.
	MaxINKeys int
	// MultiPartitionBatch fires for a logged BATCH that writes more than
	// one partition of one table (one partition in each of several tables,
	// keeping denormalized tables in step, is what logged batches are
	// for).
	MultiPartitionBatch bool
	// MaxPartitionRows and MaxPartitionBytes, when positive, fire for a
	// partition holding more rows, or more bytes of values, when the
	// checks run.
	MaxPartitionRows  int
	MaxPartitionBytes int64
	// HotPartitionShare, when positive, fires for a table that received
	// at least HotPartitionMinWrites writes (default 100) of which one
	// partition took more than this share (0.5: half): a low-cardinality
	// partition key (a status, a type, a date) sends every write to one
	// partition, so to one replica set.
	HotPartitionShare     float64
	HotPartitionMinWrites int
	// ReadOneAfterWriteOne fires when a partition written at ONE (or
	// LOCAL_ONE, ANY) is read at ONE or LOCAL_ONE afterwards.
	ReadOneAfterWriteOne bool
	// Warn logs the findings (t.Logf) instead of failing the test.
	Warn bool
}

// AllChecks returns every check with its default limit: 10 partition keys
// per IN, partitions of 100,000 rows or 100 MB, one partition taking half
// of a table's writes once it has 100.
func AllChecks() Checks {
	return Checks{AllowFiltering: true, FullScan: true, MaxINKeys: 10, MultiPartitionBatch: true,
		MaxPartitionRows: 100_000, MaxPartitionBytes: 100 << 20, HotPartitionShare: 0.5, HotPartitionMinWrites: 100,
		ReadOneAfterWriteOne: true}
}

// Finding is one anti-pattern found.
type Finding struct {
	// Check names the check ("allow-filtering", "full-scan", "in-keys",
	// "multi-partition-batch", "large-partition", "hot-partition",
	// "read-one-after-write-one").
	Check string
	// Query is the statement that showed it ("" for the data checks).
	Query string
	// Message says what was found and what to do instead.
	Message string
}

func (f Finding) String() string {
	if f.Query == "" {
		return fmt.Sprintf("[%s] %s", f.Check, f.Message)
	}
	return fmt.Sprintf("[%s] %s\n    in: %s", f.Check, f.Message, f.Query)
}

// The advice of each check.
const (
	adviceAllowFiltering = "ALLOW FILTERING reads every row it may have to discard: needing it almost always means the table is " +
		"modelled after the entity, not the query. Design one table per query, whose WHERE gives only the partition key and clustering columns, and write to each."
	adviceFullScan = "a query that does not give the partition key scans every partition on every node. Put the query's " +
		"restriction into the partition key of a table made for this query."
	adviceINKeys = "an IN over many partition keys makes the coordinator fan out to many replicas and wait for the slowest: " +
		"latency jitters. Send one query per partition key, concurrently, or remodel so that the rows share a partition."
	adviceBatch = "a logged BATCH is not a cross-partition transaction (no isolation) and costs a batchlog write on the " +
		"coordinator; across many partitions of one table it only adds load. Use logged batches to keep a few denormalized tables in step, and plain concurrent writes for bulk loading."
	adviceLarge = "a partition that grows without bound (over ~100 MB or 100,000 rows) makes reads slow and repairs and compactions " +
		"heavy. Bound it with a time bucket in the partition key, e.g. PRIMARY KEY ((user_id, month), created_at)."
	adviceHot = "a low-cardinality partition key (a status, a type, a date) sends the writes to one partition, so to one " +
		"set of replicas. Choose a high-cardinality key (user_id rather than status), or add a bucket: PRIMARY KEY ((key, bucket)) with bucket = hash(id) % N."
	adviceOne = "writing and reading at ONE can read a stale value (another replica may not have the write yet), which looks " +
		"like a bug in the application. For read-your-writes use QUORUM (or LOCAL_QUORUM) for both: R + W > RF."
)

// EnableChecks turns the query log on and, when the test ends, runs the
// checks c over it and the data, failing the test with each finding (or
// logging them, with c.Warn).
func (s *Server) EnableChecks(t testing.TB, c Checks) {
	t.Helper()
	log := s.StartQueryLog()
	t.Cleanup(func() {
		t.Helper()
		report(t, c, s.antiPatterns(log, c))
	})
}

// CheckAntiPatterns runs the checks c now, over the query log (which
// StartQueryLog or EnableChecks turned on) and the data, failing the test
// with each finding (or logging them, with c.Warn).
func (s *Server) CheckAntiPatterns(t testing.TB, c Checks) {
	t.Helper()
	log := s.db.Executor().QueryLog()
	if log == nil {
		t.Fatalf("minicasstest: CheckAntiPatterns needs the query log: call StartQueryLog or EnableChecks first")
	}
	report(t, c, s.antiPatterns(&QueryLog{l: log}, c))
}

// AntiPatterns returns what the checks c find in the query log and the
// data, without failing anything.
func (s *Server) AntiPatterns(c Checks) []Finding {
	log := s.db.Executor().QueryLog()
	if log == nil {
		log = cql.NewQueryLog(1)
	}
	return s.antiPatterns(&QueryLog{l: log}, c)
}

func report(t testing.TB, c Checks, found []Finding) {
	t.Helper()
	for _, f := range found {
		if c.Warn {
			t.Logf("minicasstest: anti-pattern %s", f)
		} else {
			t.Errorf("minicasstest: anti-pattern %s", f)
		}
	}
}

// antiPatterns runs the checks.
func (s *Server) antiPatterns(log *QueryLog, c Checks) []Finding {
	a := &analysis{c: c, srv: s, writes: map[string]map[string]int{}, atOne: map[string]bool{}}
	for _, e := range log.Client() {
		if e.Err == nil {
			a.entry(&e)
		}
	}
	a.hot()
	a.partitions()
	return a.found
}

type analysis struct {
	c     Checks
	srv   *Server
	found []Finding
	// writes counts the writes per table and partition key.
	writes map[string]map[string]int
	// atOne holds the partitions last written at a level below QUORUM.
	atOne map[string]bool
	// seen dedups findings by check and query text.
	seen map[string]bool
}

func (a *analysis) add(check, q, msg string) {
	if a.seen == nil {
		a.seen = map[string]bool{}
	}
	if a.seen[check+"\x00"+q] {
		return
	}
	a.seen[check+"\x00"+q] = true
	a.found = append(a.found, Finding{Check: check, Query: q, Message: msg})
}

// table returns the table a statement names, in the entry's keyspace.
func (a *analysis) table(e *LogEntry, n parser.TableName) *schema.Table {
	ks := string(n.Keyspace)
	if ks == "" {
		ks = e.Keyspace
	}
	if strings.HasPrefix(ks, "system") {
		return nil
	}
	t, _ := a.srv.db.Engine().Table(ks, string(n.Name))
	return t
}

// stmtIn is one statement of a request with its bound values.
type stmtIn struct {
	stmt   parser.Statement
	values []query.Value
}

func (a *analysis) entry(e *LogEntry) {
	var stmts []stmtIn
	logged := false
	switch st := e.Stmt.(type) {
	case nil:
		logged = e.BatchType == parser.BatchLogged
		for _, b := range e.Batch {
			stmts = append(stmts, stmtIn{b.Stmt, b.Values})
		}
	case *parser.Batch:
		logged = st.Type == parser.BatchLogged
		for _, sub := range st.Statements {
			stmts = append(stmts, stmtIn{sub, e.Values})
		}
	default:
		stmts = []stmtIn{{e.Stmt, e.Values}}
	}
	perTable := map[string]map[string]bool{}
	for _, si := range stmts {
		switch st := si.stmt.(type) {
		case *parser.Select:
			a.read(e, st, si.values)
		case *parser.Insert, *parser.Update, *parser.Delete:
			t, keys := a.writeKeys(e, si)
			if t == nil {
				continue
			}
			name := t.QualifiedName()
			if perTable[name] == nil {
				perTable[name] = map[string]bool{}
			}
			for _, k := range keys {
				perTable[name][k] = true
				if a.writes[name] == nil {
					a.writes[name] = map[string]int{}
				}
				a.writes[name][k]++
				a.atOne[name+"\x00"+k] = weak(e.Consistency)
			}
		}
	}
	if a.c.MultiPartitionBatch && logged {
		for name, keys := range perTable {
			if len(keys) > 1 {
				a.add("multi-partition-batch", e.Query, fmt.Sprintf("a logged BATCH writes %d partitions of %s: %s", len(keys), name, adviceBatch))
			}
		}
	}
}

// weak reports whether a level is satisfied by one replica.
func weak(c wire.Consistency) bool {
	return c == wire.One || c == wire.LocalOne || c == wire.Any
}

func (a *analysis) read(e *LogEntry, st *parser.Select, values []query.Value) {
	if a.c.AllowFiltering && st.AllowFiltering {
		a.add("allow-filtering", e.Query, adviceAllowFiltering)
	}
	t := a.table(e, st.Table)
	if t == nil {
		return
	}
	keys, full, token := partitionKeys(t, st.Where, values)
	if a.c.FullScan && !full && !token {
		a.add("full-scan", e.Query, fmt.Sprintf("SELECT from %s without its whole partition key (%s): %s", t.QualifiedName(), pkNames(t), adviceFullScan))
	}
	if a.c.MaxINKeys > 0 && full && len(keys) > a.c.MaxINKeys {
		a.add("in-keys", e.Query, fmt.Sprintf("IN names %d partition keys of %s (limit %d): %s", len(keys), t.QualifiedName(), a.c.MaxINKeys, adviceINKeys))
	}
	if a.c.ReadOneAfterWriteOne && (e.Consistency == wire.One || e.Consistency == wire.LocalOne) {
		for _, k := range keys {
			if a.atOne[t.QualifiedName()+"\x00"+k] {
				a.add("read-one-after-write-one", e.Query, fmt.Sprintf("a partition of %s written at ONE is read at %s: %s", t.QualifiedName(), e.Consistency, adviceOne))
				break
			}
		}
	}
}

// writeKeys returns the table of a write and the partition keys it writes.
func (a *analysis) writeKeys(e *LogEntry, si stmtIn) (*schema.Table, []string) {
	switch st := si.stmt.(type) {
	case *parser.Insert:
		t := a.table(e, st.Table)
		if t == nil || st.JSON != nil {
			return t, nil
		}
		var rels []parser.Relation
		for i, c := range st.Columns {
			if i < len(st.Values) {
				rels = append(rels, &parser.ColumnRelation{Column: c, Op: parser.OpEq, Value: st.Values[i]})
			}
		}
		keys, _, _ := partitionKeys(t, rels, si.values)
		return t, keys
	case *parser.Update:
		t := a.table(e, st.Table)
		if t == nil {
			return nil, nil
		}
		keys, _, _ := partitionKeys(t, st.Where, si.values)
		a.checkIN(e, t, keys)
		return t, keys
	case *parser.Delete:
		t := a.table(e, st.Table)
		if t == nil {
			return nil, nil
		}
		keys, _, _ := partitionKeys(t, st.Where, si.values)
		a.checkIN(e, t, keys)
		return t, keys
	}
	return nil, nil
}

func (a *analysis) checkIN(e *LogEntry, t *schema.Table, keys []string) {
	if a.c.MaxINKeys > 0 && len(keys) > a.c.MaxINKeys {
		a.add("in-keys", e.Query, fmt.Sprintf("IN names %d partition keys of %s (limit %d): %s", len(keys), t.QualifiedName(), a.c.MaxINKeys, adviceINKeys))
	}
}

func pkNames(t *schema.Table) string {
	var n []string
	for _, c := range t.PartitionKey() {
		n = append(n, c.Name)
	}
	return strings.Join(n, ", ")
}

// partitionKeys returns the partition keys the relations name (each an
// opaque string), whether they give the whole partition key with = or IN,
// and whether a token() relation restricts them.
func partitionKeys(t *schema.Table, where []parser.Relation, values []query.Value) (keys []string, full, token bool) {
	pk := t.PartitionKey()
	choices := make([][]string, len(pk))
	for _, r := range where {
		switch r := r.(type) {
		case *parser.TokenRelation:
			token = true
		case *parser.ColumnRelation:
			if r.MapKey != nil {
				continue
			}
			for i, c := range pk {
				if string(r.Column) != c.Name {
					continue
				}
				switch r.Op {
				case parser.OpEq:
					choices[i] = []string{termKey(r.Value, values)}
				case parser.OpIn:
					choices[i] = inKeys(r.Value, values)
				}
			}
		}
	}
	keys = []string{""}
	for _, ch := range choices {
		if ch == nil {
			return nil, false, token
		}
		var next []string
		for _, k := range keys {
			for _, c := range ch {
				next = append(next, k+"\x00"+c)
			}
		}
		keys = next
	}
	return keys, true, token
}

// termKey identifies the value of a term: a constant's text or a bound
// value's bytes. Other terms (function calls) are identified by their text.
func termKey(e parser.Expr, values []query.Value) string {
	if m, ok := e.(*parser.BindMarker); ok {
		if m.Index < len(values) {
			return "b" + hex.EncodeToString(values[m.Index].Bytes)
		}
		return "?"
	}
	if c, ok := e.(*parser.Constant); ok {
		return "c" + c.Value()
	}
	var b strings.Builder
	e.Format(&b)
	return "t" + b.String()
}

// inKeys returns the keys of an IN: a list of terms, or one bound list
// value (its elements).
func inKeys(e parser.Expr, values []query.Value) []string {
	switch e := e.(type) {
	case *parser.InList:
		out := make([]string, len(e.Elems))
		for i, x := range e.Elems {
			out[i] = termKey(x, values)
		}
		return out
	case *parser.BindMarker:
		if e.Index >= len(values) {
			return []string{"?"}
		}
		return listElems(values[e.Index].Bytes)
	}
	return []string{termKey(e, values)}
}

// listElems splits a serialized list (an int32 count, then each element as
// int32 length and bytes) into element keys.
func listElems(b []byte) []string {
	if len(b) < 4 {
		return nil
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	b = b[4:]
	var out []string
	for i := 0; i < n && len(b) >= 4; i++ {
		l := int(int32(binary.BigEndian.Uint32(b)))
		b = b[4:]
		if l < 0 || l > len(b) {
			break
		}
		out = append(out, "b"+hex.EncodeToString(b[:l]))
		b = b[l:]
	}
	return out
}

// hot reports the tables one partition of which took most writes.
func (a *analysis) hot() {
	if a.c.HotPartitionShare <= 0 {
		return
	}
	minWrites := a.c.HotPartitionMinWrites
	if minWrites <= 0 {
		minWrites = 100
	}
	names := make([]string, 0, len(a.writes))
	for n := range a.writes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		total, top := 0, 0
		for _, n := range a.writes[name] {
			total += n
			top = max(top, n)
		}
		if total >= minWrites && float64(top) > a.c.HotPartitionShare*float64(total) {
			a.add("hot-partition", "", fmt.Sprintf("one partition of %s took %d of its %d writes (%d partitions written): %s",
				name, top, total, len(a.writes[name]), adviceHot))
		}
	}
}

// partitions reports the partitions past the row or byte limit, reading
// every table outside the system keyspaces.
func (a *analysis) partitions() {
	if a.c.MaxPartitionRows <= 0 && a.c.MaxPartitionBytes <= 0 {
		return
	}
	eng := a.srv.db.Engine()
	for _, ks := range eng.Keyspaces() {
		if strings.HasPrefix(ks.Name, "system") {
			continue
		}
		for _, t := range eng.Tables(ks.Name) {
			a.partitionsOf(t)
		}
	}
}

func (a *analysis) partitionsOf(t *schema.Table) {
	pk := t.PartitionKey()
	rows := a.srv.db.Query(context.Background(), fmt.Sprintf("SELECT * FROM %q.%q", t.Keyspace, t.Name))
	type size struct {
		rows  int
		bytes int64
	}
	sizes := map[string]*size{}
	var order []string
	for rows.Next() {
		r := rows.Row()
		var key strings.Builder
		var n int64
		for i, c := range r.Columns() {
			b := r.Bytes(i)
			n += int64(len(b))
			for _, p := range pk {
				if p.Name == c.Name {
					key.WriteString(hex.EncodeToString(b) + ":")
				}
			}
		}
		k := key.String()
		if sizes[k] == nil {
			sizes[k] = &size{}
			order = append(order, k)
		}
		sizes[k].rows++
		sizes[k].bytes += n
	}
	_ = rows.Close()
	for _, k := range order {
		sz := sizes[k]
		if (a.c.MaxPartitionRows > 0 && sz.rows > a.c.MaxPartitionRows) || (a.c.MaxPartitionBytes > 0 && sz.bytes > a.c.MaxPartitionBytes) {
			a.found = append(a.found, Finding{Check: "large-partition", Message: fmt.Sprintf("a partition of %s holds %d rows and %d bytes of values (limits %d rows, %d bytes): %s",
				t.QualifiedName(), sz.rows, sz.bytes, a.c.MaxPartitionRows, a.c.MaxPartitionBytes, adviceLarge)})
		}
	}
}
