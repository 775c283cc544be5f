package cql

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// stubIndexClassName is the class of Cassandra's test index StubIndex
// (test/unit/org/apache/cassandra/index/StubIndex.java), which the
// conformance harness registers under that name.
const stubIndexClassName = "org.apache.cassandra.index.StubIndex"

// conformanceIndexClasses are the index classes of Cassandra's test class
// path that the ported scripts name, written in Go: StubIndex.
func conformanceIndexClasses() map[string]engine.IndexClass {
	failInit := new(atomic.Bool)
	return map[string]engine.IndexClass{
		stubIndexClassName: stubIndexClass{},
		secondaryIndexTest + "$IndexBlockingOnInitialization": blockingInitClass{},
		secondaryIndexTest + "$ReadOnlyOnFailureIndex":        loadConstrainedClass{load: engine.IndexLoadRead, failInit: failInit},
		secondaryIndexTest + "$WriteOnlyOnFailureIndex":       loadConstrainedClass{load: engine.IndexLoadWrite, failInit: failInit},
	}
}

// secondaryIndexTest is the Java class whose nested index classes
// SecondaryIndexTest's scripts name.
const secondaryIndexTest = "org.apache.cassandra.cql3.validation.entities.SecondaryIndexTest"

// blockingInitClass is SecondaryIndexTest.IndexBlockingOnInitialization:
// an index whose initialization blocks until the index is dropped
// (getInvalidateTask counts its latch down). The Java class extends
// CustomCassandraIndex, whose index table is never read here: the index
// is never queryable.
type blockingInitClass struct{}

// NewIndex returns a new blockingInitIndex.
func (blockingInitClass) NewIndex(*schema.Table, *schema.Index) engine.CustomIndex {
	return &blockingInitIndex{latch: make(chan struct{})}
}

type blockingInitIndex struct {
	latch chan struct{}
	once  sync.Once
}

// Indexer returns nil: the index keeps nothing.
func (*blockingInitIndex) Indexer([]byte, int64) engine.Indexer { return nil }

// InitializationTask waits for the latch.
func (x *blockingInitIndex) InitializationTask() func() error {
	return func() error { <-x.latch; return nil }
}

// Dropped counts the latch down.
func (x *blockingInitIndex) Dropped() { x.once.Do(func() { close(x.latch) }) }

// loadConstrainedClass is SecondaryIndexTest.LoadTypeConstrainedIndex (its
// ReadOnlyOnFailureIndex and WriteOnlyOnFailureIndex): a StubIndex built
// blocking, whose initialization fails while the class's static failInit
// is set (one flag for both classes, as the Java's static field of their
// common base class), and which serves load after a failed build.
type loadConstrainedClass struct {
	load     engine.IndexLoad
	failInit *atomic.Bool
}

// NewIndex returns a new loadConstrainedIndex.
func (c loadConstrainedClass) NewIndex(*schema.Table, *schema.Index) engine.CustomIndex {
	return &loadConstrainedIndex{stubIndex: &stubIndex{}, class: c}
}

type loadConstrainedIndex struct {
	*stubIndex
	class loadConstrainedClass
}

func (x *loadConstrainedIndex) recorder() *stubIndex { return x.stubIndex }

// reset is LoadTypeConstrainedIndex.reset: StubIndex's, and failInit
// cleared.
func (x *loadConstrainedIndex) reset() {
	x.stubIndex.reset()
	x.class.failInit.Store(false)
}

// SupportedLoadOnFailure returns the class's load.
func (x *loadConstrainedIndex) SupportedLoadOnFailure(bool) engine.IndexLoad { return x.class.load }

// ShouldBuildBlocking is true.
func (x *loadConstrainedIndex) ShouldBuildBlocking() bool { return true }

// InitializationTask fails while failInit is set; otherwise there is none.
func (x *loadConstrainedIndex) InitializationTask() func() error {
	if x.class.failInit.Load() {
		return func() error { return errors.New("Index is configured to fail.") }
	}
	return nil
}

// stubRecorder is an index whose records stub-index reads.
type stubRecorder interface {
	recorder() *stubIndex
	reset()
}

func (x *stubIndex) recorder() *stubIndex { return x }

// stubIndexClass makes stubIndexes.
type stubIndexClass struct{}

// NewIndex returns a new stubIndex for ix.
func (stubIndexClass) NewIndex(*schema.Table, *schema.Index) engine.CustomIndex {
	return &stubIndex{}
}

// stubIndex is StubIndex: it records what its indexers are told (the
// rows inserted, updated and deleted, partition deletions, range
// tombstones, the begin and finish calls) for the script to inspect.
type stubIndex struct {
	mu                 sync.Mutex
	begins, finishes   int
	partitionDeletions []data.DeletionTime
	rangeTombstones    []data.RangeTombstone
	inserted, deleted  []data.Row
	updated            [][2]data.Row
}

// reset is StubIndex.reset: the recorded rows and deletions are cleared
// (not the begin and finish counts).
func (x *stubIndex) reset() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.inserted, x.deleted, x.updated, x.partitionDeletions, x.rangeTombstones = nil, nil, nil, nil, nil
}

// SupportsExpression is StubIndex's: '=' only.
func (x *stubIndex) SupportsExpression(_ string, op engine.IndexOperator) bool {
	return op == engine.IndexEQ
}

// CustomExpressionValueType is StubIndex's: text.
func (x *stubIndex) CustomExpressionValueType() types.Type { return types.TextType }

// Indexer returns an indexer recording into x.
func (x *stubIndex) Indexer([]byte, int64) engine.Indexer { return stubIndexer{x} }

type stubIndexer struct{ x *stubIndex }

func (s stubIndexer) Begin() { s.x.mu.Lock(); s.x.begins++; s.x.mu.Unlock() }

func (s stubIndexer) Finish() { s.x.mu.Lock(); s.x.finishes++; s.x.mu.Unlock() }

func (s stubIndexer) PartitionDelete(d data.DeletionTime) {
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	s.x.partitionDeletions = append(s.x.partitionDeletions, d)
}

func (s stubIndexer) RangeTombstone(rt data.RangeTombstone) {
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	s.x.rangeTombstones = append(s.x.rangeTombstones, data.RangeTombstone{Start: clone(rt.Start), End: clone(rt.End), Deletion: rt.Deletion})
}

func (s stubIndexer) InsertRow(r *data.Row) {
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	s.x.inserted = append(s.x.inserted, r.Clone())
}

func (s stubIndexer) UpdateRow(old, new *data.Row) {
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	s.x.updated = append(s.x.updated, [2]data.Row{old.Clone(), new.Clone()})
}

func (s stubIndexer) RemoveRow(r *data.Row) {
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	s.x.deleted = append(s.x.deleted, r.Clone())
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// stubQuery is one line of a stub-index directive: a list and its size,
// or a field of one of its rows.
var stubQuery = regexp.MustCompile(`^(inserted|deleted|updated|partition-deletions|range-tombstones|begins|finishes)(?:\[(\d+)\](?:\.(old|new))?(?:\.([a-z0-9_]+))?(?:\.([a-z]+))?)?$`)

// stubIndexDirective runs a stub-index directive (see cassandra_test.go):
// with reset, StubIndex.reset (nothing printed, nothing counted);
// otherwise each input line reads what the index named recorded, and each
// expected line is one assertion.
func (h *conformanceHarness) stubIndexDirective(t *testing.T, d *datadriven.TestData) string {
	var name string
	d.ScanArgs(t, "name", &name)
	name = h.substitute(name)
	ks, tname, _ := strings.Cut(h.table, ".")
	tbl, ok := h.s.x.env.Engine.Table(ks, tname)
	require.True(t, ok, "%s: no table %s", d.Pos, h.table)
	ci, ok := h.s.x.env.Engine.CustomIndex(tbl, name)
	require.True(t, ok, "%s: no custom index %s on %s", d.Pos, name, h.table)
	rec, ok := ci.(stubRecorder)
	require.True(t, ok, "%s: index %s is not a StubIndex", d.Pos, name)
	if d.HasArg("reset") {
		rec.reset()
		return d.Expected
	}
	x := rec.recorder()
	x.mu.Lock()
	defer x.mu.Unlock()
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		got = append(got, x.query(t, tbl, strings.TrimSpace(line)))
	}
	return h.lineVerdicts(t, d, got)
}

// query answers one line of a stub-index directive; x is locked.
//
//	inserted, updated, ...     the list's size (rowsInserted.size())
//	inserted[i].COL            the value of column COL's cell in the row
//	                           (assertColumnValue), "null" if none
//	updated[i].old.COL         the same in the old (or new) row of the
//	                           i-th updateRow call
//	ROW.COL.cell               validateCell: "VALUE @TIMESTAMP"
//	ROW.COL.tombstone          Cell.isTombstone
//	ROW.COL.timestamp          Cell.timestamp
//	ROW.columns                Row.columnCount (columns with cells)
//	ROW.cells                  the number of cells (cells().iterator())
//	ROW.live                   Row.deletion().isLive()
//	ROW.deletion               Row.deletion().time(): "LIVE" or its
//	                           markedForDeleteAt
//	ROW.liveness               primaryKeyLivenessInfo().timestamp()
func (x *stubIndex) query(t *testing.T, tbl *schema.Table, q string) string {
	m := stubQuery.FindStringSubmatch(q)
	require.NotNil(t, m, "stub-index: cannot read %q", q)
	list, idx, side, field, sub := m[1], m[2], m[3], m[4], m[5]
	var rows []data.Row
	switch list {
	case "begins":
		return strconv.Itoa(x.begins)
	case "finishes":
		return strconv.Itoa(x.finishes)
	case "partition-deletions":
		return strconv.Itoa(len(x.partitionDeletions))
	case "range-tombstones":
		return strconv.Itoa(len(x.rangeTombstones))
	case "inserted":
		rows = x.inserted
	case "deleted":
		rows = x.deleted
	case "updated":
		for _, u := range x.updated {
			if side == "new" {
				rows = append(rows, u[1])
			} else {
				rows = append(rows, u[0])
			}
		}
	}
	if idx == "" {
		return strconv.Itoa(len(rows))
	}
	i, _ := strconv.Atoi(idx)
	if i >= len(rows) {
		return fmt.Sprintf("no row %d of %d", i, len(rows))
	}
	r := &rows[i]
	switch field {
	case "columns":
		n := 0
		for j := range r.Cells {
			if j == 0 || r.Cells[j].Column != r.Cells[j-1].Column {
				n++
			}
		}
		return strconv.Itoa(n)
	case "cells":
		return strconv.Itoa(len(r.Cells))
	case "live":
		return strconv.FormatBool(r.Deletion.IsLive())
	case "deletion":
		if r.Deletion.IsLive() {
			return "LIVE"
		}
		return strconv.FormatInt(r.Deletion.MarkedForDeleteAt, 10)
	case "liveness":
		return strconv.FormatInt(r.Liveness.Timestamp, 10)
	}
	col := tbl.Column(field)
	require.NotNil(t, col, "stub-index: no column %q", field)
	var cell *data.Cell
	for j := range r.Cells {
		if r.Cells[j].Column == field {
			cell = &r.Cells[j]
			break
		}
	}
	if cell == nil {
		return "null"
	}
	value := types.Format(col.Type, cell.Value)
	if cell.IsTombstone() {
		value = "tombstone"
	}
	switch sub {
	case "":
		return value
	case "cell":
		return fmt.Sprintf("%s @%d", value, cell.Timestamp)
	case "tombstone":
		return strconv.FormatBool(cell.IsTombstone())
	case "timestamp":
		return strconv.FormatInt(cell.Timestamp, 10)
	}
	t.Fatalf("stub-index: unknown field %q of %q", sub, q)
	return ""
}

// indexDirective runs the harness's index-management directives (see
// cassandra_test.go): fail-init, rebuild-index and wait-index-builds.
func (h *conformanceHarness) indexDirective(t *testing.T, d *datadriven.TestData) string {
	eng := h.s.x.env.Engine
	switch d.Cmd {
	case "fail-init":
		// LoadTypeConstrainedIndex.failInit = true.
		c, ok := eng.IndexClass(secondaryIndexTest + "$ReadOnlyOnFailureIndex")
		require.True(t, ok)
		c.(loadConstrainedClass).failInit.Store(true)
		return d.Expected
	}
	var name string
	d.ScanArgs(t, "name", &name)
	name = h.substitute(name)
	ks, tname, _ := strings.Cut(h.table, ".")
	tbl, ok := eng.Table(ks, tname)
	require.True(t, ok, "%s: no table %s", d.Pos, h.table)
	switch d.Cmd {
	case "rebuild-index":
		// indexManager.rebuildIndexesBlocking(ImmutableSet.of(name)).
		require.NoError(t, eng.RebuildCustomIndexes(context.Background(), tbl, name))
	case "wait-index-builds":
		// CQLTester.waitForIndexBuilds: no build of the index runs.
		deadline := time.Now().Add(60 * time.Second)
		for eng.CustomIndexBuilding(tbl, name) {
			require.True(t, time.Now().Before(deadline), "%s: index %s still building", d.Pos, name)
			time.Sleep(time.Millisecond)
		}
	}
	return d.Expected
}
