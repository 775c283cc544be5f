package engine

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/vfs"
)

// valueIndexTable is ks.<name> (v text, e text, PRIMARY KEY (v, e)): the
// derived table of valueIndex, one row per base row whose v is live, keyed
// by the value and "key/clustering" of the base row.
func valueIndexTable(name string, id data.TableID) *schema.Table {
	return schema.NewTable("ks", name, id, []*schema.Column{
		{Name: "v", Type: types.TextType, Kind: schema.PartitionKey, Position: 0},
		{Name: "e", Type: types.TextType, Kind: schema.Clustering, Position: 0},
	}, schema.DefaultOptions())
}

// valueIndex is a test Dependent maintaining idx from the v column of the
// base rows, as a secondary index does: an entry per live value, deleted
// (at the old cell's timestamp) when the value changes or goes.
type valueIndex struct {
	idx *schema.Table
}

func cellOf(r *data.Row, col string) *data.Cell {
	if r == nil {
		return nil
	}
	for i := range r.Cells {
		if r.Cells[i].Column == col {
			return &r.Cells[i]
		}
	}
	return nil
}

func (vi *valueIndex) Derive(_ context.Context, w *BaseWrite) ([]DerivedMutation, error) {
	var out []DerivedMutation
	emit := func(value []byte, entry string, r data.Row) {
		out = append(out, DerivedMutation{Table: vi.idx, Mutation: &data.Mutation{
			Key: bytes.Clone(value), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}})
	}
	seen := map[string]bool{}
	visit := func(c []byte) {
		if seen[string(c)] {
			return
		}
		seen[string(c)] = true
		entry := string(w.Mutation.Key) + "/" + string(c)
		old, nw := cellOf(w.Before.Row(c), "v"), cellOf(w.After.Row(c), "v")
		if old != nil && (nw == nil || !bytes.Equal(old.Value, nw.Value)) {
			r := data.NewRow([]byte(entry))
			r.Deletion = data.DeletionTime{MarkedForDeleteAt: old.Timestamp, LocalDeletionTime: w.Now}
			emit(old.Value, entry, r)
		}
		// A new timestamp, expiry or value is a new entry (an expiring
		// cell wins over a live one of its timestamp, so the same value
		// may gain a TTL).
		if nw != nil && (old == nil || old.Timestamp != nw.Timestamp || old.LocalDeletionTime != nw.LocalDeletionTime ||
			!bytes.Equal(old.Value, nw.Value)) {
			r := data.NewRow([]byte(entry))
			r.Liveness = data.LivenessInfo{Timestamp: nw.Timestamp, TTL: nw.TTL, ExpiresAt: nw.LocalDeletionTime}
			if nw.TTL == 0 {
				r.Liveness.ExpiresAt = data.NoDeletionTime
			}
			emit(nw.Value, entry, r)
		}
	}
	for i := range w.Before.Rows {
		visit(w.Before.Rows[i].Clustering)
	}
	for i := range w.After.Rows {
		visit(w.After.Rows[i].Clustering)
	}
	return out, nil
}

// scanAll returns "partition/clustering" of every live row of t, and the
// value of column col of each as "=value" when col is not empty.
func scanAll(t testing.TB, e *Engine, tbl *schema.Table, col string) []string {
	t.Helper()
	sc, err := e.Scan(context.Background(), tbl, data.FullRing, ReadOptions{})
	require.NoError(t, err)
	defer sc.Close()
	var out []string
	for {
		p, ok := sc.Next()
		if !ok {
			break
		}
		for {
			r, ok := p.Next()
			if !ok {
				break
			}
			s := string(p.Key()) + "|" + string(r.Clustering)
			if col != "" {
				c := cellOf(r, col)
				if c == nil {
					continue
				}
				s = string(c.Value) + "|" + string(p.Key()) + "/" + string(r.Clustering)
			}
			out = append(out, s)
		}
		require.NoError(t, p.Err())
	}
	require.NoError(t, sc.Err())
	sort.Strings(out)
	return out
}

func setupValueIndex(t testing.TB, e *Engine, base *schema.Table) (*schema.Table, *valueIndex) {
	idx, ok := e.Table("ks", "vi")
	if !ok {
		idx = valueIndexTable("vi", data.TableID{2})
		require.NoError(t, e.CreateTable(idx))
	}
	vi := &valueIndex{idx: idx}
	require.NoError(t, e.AddDependent(base, "vi", vi))
	return idx, vi
}

func row(ck string, ts int64, cells ...data.Cell) data.Row {
	r := data.NewRow([]byte(ck))
	r.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
	r.Cells = cells
	return r
}

func textCell(col, val string, ts int64, ttl int32, expires int64) data.Cell {
	c := data.Cell{Column: col, Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: []byte(val)}
	if ttl > 0 {
		c.TTL, c.LocalDeletionTime = ttl, expires
	}
	return c
}

// TestDerivedBeforeAfter checks what a dependent sees of each kind of
// write, and that its mutations are applied with the base write.
func TestDerivedBeforeAfter(t *testing.T) {
	ctx := context.Background()
	e, _, base := newTestEngine(t)
	idx, _ := setupValueIndex(t, e, base)
	var seen []string
	require.NoError(t, e.AddDependent(base, "probe", DependentFunc(func(_ context.Context, w *BaseWrite) ([]DerivedMutation, error) {
		f := func(b BaseRows) string {
			var s []string
			if b.Static != nil {
				s = append(s, "static")
			}
			for _, r := range b.Rows {
				s = append(s, string(r.Clustering))
			}
			return strings.Join(s, ",")
		}
		seen = append(seen, f(w.Before)+" -> "+f(w.After))
		return nil, nil
	})))
	require.ErrorIs(t, e.AddDependent(base, "probe", DependentFunc(nil)), ErrDependentExists)
	apply := func(m *data.Mutation) {
		t.Helper()
		m.Key = []byte("k1")
		if m.PartitionDeletion == (data.DeletionTime{}) {
			m.PartitionDeletion = data.LiveDeletion
		}
		require.NoError(t, e.Apply(ctx, base, m))
	}
	apply(&data.Mutation{Rows: []data.Row{row("a", 10, textCell("v", "x", 10, 0, 0)), row("b", 10, textCell("v", "y", 10, 0, 0))}})
	require.Equal(t, []string{"x|k1/a", "y|k1/b"}, scanAll(t, e, idx, ""))
	apply(&data.Mutation{Rows: []data.Row{row("a", 11, textCell("v", "z", 11, 0, 0))}})
	require.Equal(t, []string{"y|k1/b", "z|k1/a"}, scanAll(t, e, idx, ""))
	// An older write loses to the newer value: nothing changes.
	apply(&data.Mutation{Rows: []data.Row{row("a", 5, textCell("v", "old", 5, 0, 0))}})
	require.Equal(t, []string{"y|k1/b", "z|k1/a"}, scanAll(t, e, idx, ""))
	apply(&data.Mutation{Rows: []data.Row{row("c", 12, textCell("v", "x", 12, 0, 0))}})
	// A range tombstone [a, b] deletes a and b.
	apply(&data.Mutation{RangeTombstones: []data.RangeTombstone{{Start: []byte("a"), End: []byte("b\x00"),
		Deletion: data.DeletionTime{MarkedForDeleteAt: 13, LocalDeletionTime: 1}}}})
	require.Equal(t, []string{"x|k1/c"}, scanAll(t, e, idx, ""))
	st := data.NewRow(nil)
	st.Cells = []data.Cell{textCell("s", "S", 14, 0, 0)}
	apply(&data.Mutation{Static: &st})
	apply(&data.Mutation{PartitionDeletion: data.DeletionTime{MarkedForDeleteAt: 20, LocalDeletionTime: 1}})
	require.Empty(t, scanAll(t, e, idx, ""))
	require.Equal(t, []string{
		" -> a,b", "a -> a", "a -> a", " -> c", "a,b -> ", " -> static", "static,c -> "}, seen)
	e.RemoveDependent(base, "probe")
	e.RemoveDependent(base, "vi")
	require.False(t, e.HasDependents(base))
	apply(&data.Mutation{Rows: []data.Row{row("d", 30, textCell("v", "w", 30, 0, 0))}})
	require.Empty(t, scanAll(t, e, idx, ""))
}

// TestDerivedApplyLocked checks that a caller holding the partition lock
// (a lightweight transaction) applies with ApplyLocked without deadlock,
// and that Apply on a table with dependents takes the lock.
func TestDerivedApplyLocked(t *testing.T) {
	ctx := context.Background()
	e, _, base := newTestEngine(t)
	idx, _ := setupValueIndex(t, e, base)
	m := func(v string, ts int64) *data.Mutation {
		return &data.Mutation{Key: []byte("k"), PartitionDeletion: data.LiveDeletion,
			Rows: []data.Row{row("a", ts, textCell("v", v, ts, 0, 0))}}
	}
	done := make(chan error, 1)
	go func() {
		unlock := e.LockPartition(base, []byte("k"))
		defer unlock()
		done <- e.ApplyLocked(ctx, base, m("x", 1))
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("ApplyLocked under LockPartition did not return")
	}
	unlock := e.LockPartition(base, []byte("k"))
	applied := make(chan error, 1)
	go func() { applied <- e.Apply(ctx, base, m("y", 2)) }()
	select {
	case <-applied:
		t.Fatal("Apply of a table with dependents did not wait for the partition lock")
	case <-time.After(50 * time.Millisecond):
	}
	unlock()
	require.NoError(t, <-applied)
	require.Equal(t, []string{"y|k/a"}, scanAll(t, e, idx, ""))
}

// TestDerivedError checks that a dependent's error refuses the write.
func TestDerivedError(t *testing.T) {
	e, _, base := newTestEngine(t)
	require.NoError(t, e.AddDependent(base, "bad", DependentFunc(func(context.Context, *BaseWrite) ([]DerivedMutation, error) {
		return nil, fmt.Errorf("refused")
	})))
	err := e.Apply(context.Background(), base, &data.Mutation{Key: []byte("k"), PartitionDeletion: data.LiveDeletion,
		Rows: []data.Row{row("a", 1, textCell("v", "x", 1, 0, 0))}})
	require.ErrorContains(t, err, "refused")
	require.Empty(t, scanAll(t, e, base, ""))
}

// TestDerivedReplay checks that a restart replays a base write and its
// derived mutations from one commit-log record, each table skipping what
// its SSTables hold, deriving nothing again: a derived counter counting
// the base writes ends equal to their number.
func TestDerivedReplay(t *testing.T) {
	ctx := context.Background()
	fsys := vfs.NewMem()
	e, _, base := openDurable(t, fsys, Options{})
	cnt := schema.NewTable("ks", "writes", data.TableID{3}, []*schema.Column{
		{Name: "k", Type: types.TextType, Kind: schema.PartitionKey, Position: 0},
		{Name: "n", Type: types.CounterType, Kind: schema.Regular, Position: -1},
	}, schema.DefaultOptions())
	require.NoError(t, e.CreateTable(cnt))
	counting := DependentFunc(func(_ context.Context, w *BaseWrite) ([]DerivedMutation, error) {
		r := data.NewRow(nil)
		r.Cells = []data.Cell{{Column: "n", Kind: data.CellCounter, Timestamp: 1, LocalDeletionTime: data.NoDeletionTime, Value: data.CounterBytes(1)}}
		return []DerivedMutation{{Table: cnt, Mutation: &data.Mutation{Key: []byte("all"), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}}}, nil
	})
	require.NoError(t, e.AddDependent(base, "count", counting))
	for i := 0; i < 5; i++ {
		put(t, e, base, "k", fmt.Sprint(i), "v", int64(i+1))
	}
	// The counter table is flushed, the base is not: replay must apply
	// the base part of the groups and skip the counter part.
	require.NoError(t, e.Flush(ctx, "ks", "writes"))
	for i := 5; i < 8; i++ {
		put(t, e, base, "k", fmt.Sprint(i), "v", int64(i+1))
	}
	require.NoError(t, e.Close())
	e, _, base = openDurable(t, fsys, Options{})
	defer e.Close()
	cnt, _ = e.Table("ks", "writes")
	require.Len(t, scanAll(t, e, base, ""), 8)
	p, err := e.ReadPartition(ctx, cnt, []byte("all"), ReadOptions{})
	require.NoError(t, err)
	r, ok := p.Next()
	require.True(t, ok)
	require.Equal(t, data.CounterBytes(8), cellOf(r, "n").Value)
	require.NoError(t, p.Close())
}

// TestDerivedModel applies random writes, deletions, TTLs, flushes and
// compactions to a base table with a value index and checks after each
// step that the index holds exactly what a recomputation from the base
// table gives; then restarts and checks again.
// Set MINICASS_DERIVED_SEED to replay a seed.
func TestDerivedModel(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("MINICASS_DERIVED_SEED"); s != "" {
		_, err := fmt.Sscan(s, &seed)
		require.NoError(t, err)
	}
	t.Logf("seed %d (MINICASS_DERIVED_SEED replays it)", seed)
	rng := rand.New(rand.NewSource(seed))
	ctx := context.Background()
	fsys := vfs.NewMem()
	e, clock, base := openDurable(t, fsys, Options{})
	idx, _ := setupValueIndex(t, e, base)
	keys := []string{"k1", "k2", "k3"}
	cks := []string{"a", "b", "c", "d"}
	vals := []string{"x", "y", "z"}
	ts := int64(0)
	check := func(step int) {
		t.Helper()
		require.Equal(t, scanAll(t, e, base, "v"), scanAll(t, e, idx, ""), "seed %d step %d", seed, step)
	}
	for step := 0; step < 400; step++ {
		ts++
		now := clock.Now().Unix()
		key := keys[rng.Intn(len(keys))]
		m := &data.Mutation{Key: []byte(key), PartitionDeletion: data.LiveDeletion}
		// A timestamp somewhat in the past now and then: older writes
		// must lose to newer deletions.
		wts := ts
		if rng.Intn(5) == 0 {
			wts = ts - int64(rng.Intn(10))
		}
		switch op := rng.Intn(20); {
		case op < 10:
			var ttl int32
			if rng.Intn(3) == 0 {
				ttl = int32(1 + rng.Intn(5))
			}
			m.Rows = []data.Row{row(cks[rng.Intn(len(cks))], wts, textCell("v", vals[rng.Intn(len(vals))], wts, ttl, now+int64(ttl)))}
		case op < 12:
			r := data.NewRow([]byte(cks[rng.Intn(len(cks))]))
			r.Cells = []data.Cell{{Column: "v", Kind: data.CellTombstone, Timestamp: wts, LocalDeletionTime: now}}
			m.Rows = []data.Row{r}
		case op < 14:
			r := data.NewRow([]byte(cks[rng.Intn(len(cks))]))
			r.Deletion = data.DeletionTime{MarkedForDeleteAt: wts, LocalDeletionTime: now}
			m.Rows = []data.Row{r}
		case op < 16:
			lo, hi := rng.Intn(len(cks)), rng.Intn(len(cks))
			if lo > hi {
				lo, hi = hi, lo
			}
			m.RangeTombstones = []data.RangeTombstone{{Start: []byte(cks[lo]), End: []byte(cks[hi] + "\x00"),
				Deletion: data.DeletionTime{MarkedForDeleteAt: wts, LocalDeletionTime: now}}}
		case op < 17:
			m.PartitionDeletion = data.DeletionTime{MarkedForDeleteAt: wts, LocalDeletionTime: now}
		case op < 18:
			clock.Advance(time.Duration(1+rng.Intn(3)) * time.Second)
			continue
		case op < 19:
			require.NoError(t, e.Flush(ctx, "ks", []string{"t", "vi"}[rng.Intn(2)]))
			continue
		default:
			require.NoError(t, e.Compact(ctx, "ks", []string{"t", "vi"}[rng.Intn(2)]))
			continue
		}
		require.NoError(t, e.Apply(ctx, base, m))
		check(step)
	}
	require.NoError(t, e.Close())
	e, _, base = openDurable(t, fsys, Options{Clock: clock})
	defer e.Close()
	idx, _ = e.Table("ks", "vi")
	check(-1)
}

// TestDerivedConcurrent writes from several goroutines to a few
// partitions of a table with a value index, through Apply and through
// ApplyLocked under LockPartition (as lightweight transactions do), and
// checks that the index ends equal to a recomputation from the table:
// writes to one partition are serialized with their derived mutations.
func TestDerivedConcurrent(t *testing.T) {
	ctx := context.Background()
	e, _, base := newTestEngine(t)
	idx, _ := setupValueIndex(t, e, base)
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func(g int) {
			rng := rand.New(rand.NewSource(seed + int64(g)))
			for i := 0; i < 300; i++ {
				key := []byte(fmt.Sprintf("k%d", rng.Intn(3)))
				ts := e.NewTimestamp()
				m := &data.Mutation{Key: key, PartitionDeletion: data.LiveDeletion}
				if rng.Intn(5) == 0 {
					r := data.NewRow([]byte{byte('a' + rng.Intn(4))})
					r.Deletion = data.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: 1}
					m.Rows = []data.Row{r}
				} else {
					m.Rows = []data.Row{row(string(rune('a'+rng.Intn(4))), ts, textCell("v", fmt.Sprint(rng.Intn(3)), ts, 0, 0))}
				}
				var err error
				if g%2 == 0 {
					unlock := e.LockPartition(base, key)
					err = e.ApplyLocked(ctx, base, m)
					unlock()
				} else {
					err = e.Apply(ctx, base, m)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 4; g++ {
		require.NoError(t, <-errs)
	}
	require.Equal(t, scanAll(t, e, base, "v"), scanAll(t, e, idx, ""), "seed %d", seed)
}

// BenchmarkApplyDerived writes one single-row partition per operation to a
// table with the value index of valueIndex (compare BenchmarkApplyNarrow,
// the same write without dependents).
func BenchmarkApplyDerived(b *testing.B) {
	e, _, tbl := newTestEngine(b)
	setupValueIndex(b, e, tbl)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := e.Apply(ctx, tbl, benchMutation(u64(i), []byte("c"), int64(i))); err != nil {
			b.Fatal(err)
		}
	}
}
