package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// testStart is the manual clock's start: 2001-09-09T01:46:40Z.
var testStart = time.Unix(1_000_000_000, 0).UTC()

// newTestEngine returns an engine on a manual clock with keyspace ks and
// table ks.t (k text, c text, s text static, v text, w text,
// m map<text,text>, n counter, PRIMARY KEY (k, c)). Clustering keys in tests
// are raw strings: their bytes order as the keys do.
func newTestEngine(t testing.TB) (*Engine, *ManualClock, *schema.Table) {
	return newTestEngineOpts(t, Options{})
}

// newTestEngineOpts is newTestEngine with options (the clock is set here).
func newTestEngineOpts(t testing.TB, opts Options) (*Engine, *ManualClock, *schema.Table) {
	clock := NewManualClock(testStart)
	opts.Clock = clock
	e, err := Open(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	require.NoError(t, e.CreateKeyspace(&schema.Keyspace{Name: "ks", DurableWrites: true,
		Replication: map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}}))
	tbl := testTable("t", data.TableID{1})
	require.NoError(t, e.CreateTable(tbl))
	return e, clock, tbl
}

func testTable(name string, id data.TableID) *schema.Table {
	return schema.NewTable("ks", name, id, []*schema.Column{
		{Name: "k", Type: types.TextType, Kind: schema.PartitionKey, Position: 0},
		{Name: "c", Type: types.TextType, Kind: schema.Clustering, Position: 0},
		{Name: "s", Type: types.TextType, Kind: schema.Static, Position: -1},
		{Name: "v", Type: types.TextType, Kind: schema.Regular, Position: -1},
		{Name: "w", Type: types.TextType, Kind: schema.Regular, Position: -1},
		{Name: "m", Type: types.MapOf(types.TextType, types.TextType, false), Kind: schema.Regular, Position: -1},
		{Name: "n", Type: types.CounterType, Kind: schema.Regular, Position: -1},
	}, schema.DefaultOptions())
}

// parseSlice parses "a..c" ([a, c)), "a..=c" ([a, c]), "a.." and "..c".
// A leading "!" makes the start exclusive: "!a..c".
func parseSlice(s string) (data.Slice, error) {
	lo, hi, ok := strings.Cut(s, "..")
	if !ok {
		return data.Slice{}, fmt.Errorf("bad slice %q", s)
	}
	var sl data.Slice
	if excl := strings.HasPrefix(lo, "!"); excl || lo != "" {
		lo = strings.TrimPrefix(lo, "!")
		sl.Start = []byte(lo)
		if excl {
			sl.Start = append(sl.Start, 0)
		}
	}
	if incl := strings.HasPrefix(hi, "="); incl || hi != "" {
		hi = strings.TrimPrefix(hi, "=")
		sl.End = []byte(hi)
		if incl {
			sl.End = append(sl.End, 0)
		}
	}
	return sl, nil
}

// formatRow prints a row's clustering, liveness and cells; ttl shows the
// remaining seconds at now and the original TTL.
func formatRow(b *strings.Builder, r *data.Row, now int64) {
	ck := string(r.Clustering)
	if ck == "" {
		ck = "static"
	}
	fmt.Fprintf(b, "%s:", ck)
	if !r.Liveness.IsEmpty() {
		fmt.Fprintf(b, " [pk@%d", r.Liveness.Timestamp)
		if r.Liveness.IsExpiring() {
			fmt.Fprintf(b, " ttl=%d/%d", r.Liveness.ExpiresAt-now, r.Liveness.TTL)
		}
		b.WriteString("]")
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		b.WriteString(" " + c.Column)
		if c.Path != nil {
			fmt.Fprintf(b, "[%s]", c.Path)
		}
		if c.Kind == data.CellCounter {
			fmt.Fprintf(b, "=%d", data.CounterValue(c.Value))
		} else {
			fmt.Fprintf(b, "=%s", c.Value)
		}
		fmt.Fprintf(b, "@%d", c.Timestamp)
		if c.TTL > 0 {
			fmt.Fprintf(b, " ttl=%d/%d", c.LocalDeletionTime-now, c.TTL)
		}
	}
	b.WriteString("\n")
}

// drain reads a partition to the end and prints it.
func drain(t testing.TB, b *strings.Builder, p *Partition, now int64) {
	t.Helper()
	if s := p.Static(); s != nil {
		formatRow(b, s, now)
	}
	for {
		r, ok := p.Next()
		if !ok {
			break
		}
		formatRow(b, r, now)
	}
	require.NoError(t, p.Close())
	if p.StaticOnly() {
		b.WriteString("(static only)\n")
	}
}

// readAll reads a partition into copies of its rows, statics first (nil
// static: no entry).
func readAll(t testing.TB, e *Engine, tbl *schema.Table, key string, opts ReadOptions) (static *data.Row, rows []data.Row) {
	t.Helper()
	p, err := e.ReadPartition(context.Background(), tbl, []byte(key), opts)
	require.NoError(t, err)
	for {
		r, ok := p.Next()
		if !ok {
			break
		}
		c := *r
		c.Clustering = slices.Clone(r.Clustering)
		c.Cells = slices.Clone(r.Cells)
		rows = append(rows, c)
	}
	require.NoError(t, p.Close())
	return p.Static(), rows
}
