package data

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func live(ts int64, v ...byte) Cell {
	return Cell{Column: "v", Timestamp: ts, LocalDeletionTime: NoDeletionTime, Value: v}
}

func expiring(ts int64, ttl int32, expires int64, v ...byte) Cell {
	return Cell{Column: "v", Timestamp: ts, TTL: ttl, LocalDeletionTime: expires, Value: v}
}

func tomb(ts, at int64) Cell {
	return Cell{Column: "v", Kind: CellTombstone, Timestamp: ts, LocalDeletionTime: at}
}

// TestReconcile checks each rule of cassandra-facts.md section 2, in both
// argument orders (reconciliation must be commutative).
func TestReconcile(t *testing.T) {
	cases := []struct {
		name string
		a, b Cell
		want Cell
	}{
		{"higher timestamp wins", live(2, 1), live(1, 9), live(2, 1)},
		{"higher timestamp beats tombstone", live(2, 1), tomb(1, 100), live(2, 1)},
		{"tombstone beats live on tie", live(5, 9), tomb(5, 1), tomb(5, 1)},
		{"expiring beats live on tie", live(5, 9), expiring(5, 10, 20, 1), expiring(5, 10, 20, 1)},
		{"tombstone beats expiring on tie", expiring(5, 10, 999, 1), tomb(5, 1), tomb(5, 1)},
		{"later expiry wins between expiring", expiring(5, 10, 20, 9), expiring(5, 10, 30, 1), expiring(5, 10, 30, 1)},
		{"later deletion wins between tombstones", tomb(5, 20), tomb(5, 30), tomb(5, 30)},
		{"larger value wins unsigned", live(5, 0x00, 0x00, 0x00, 0x01), live(5, 0xff, 0xff, 0xff, 0xff), live(5, 0xff, 0xff, 0xff, 0xff)},
		{"equal expiring compares values", expiring(5, 10, 20, 1), expiring(5, 10, 20, 2), expiring(5, 10, 20, 2)},
		{"same expiry and value: the larger TTL wins", expiring(5, 4, 20, 1), expiring(5, 10, 20, 1), expiring(5, 10, 20, 1)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Reconcile(&tc.a, &tc.b))
			assert.Equal(t, tc.want, Reconcile(&tc.b, &tc.a))
		})
	}
}

func TestReconcileCounter(t *testing.T) {
	a := Cell{Column: "c", Kind: CellCounter, Timestamp: 1, LocalDeletionTime: NoDeletionTime, Value: CounterBytes(3)}
	b := Cell{Column: "c", Kind: CellCounter, Timestamp: 7, LocalDeletionTime: NoDeletionTime, Value: CounterBytes(-10)}
	got := Reconcile(&a, &b)
	assert.Equal(t, int64(-7), CounterValue(got.Value))
	assert.Equal(t, int64(7), got.Timestamp)
	d := Cell{Column: "c", Kind: CellTombstone, Timestamp: 0, LocalDeletionTime: 5}
	assert.Equal(t, CellTombstone, Reconcile(&got, &d).Kind, "a counter tombstone always wins")
	assert.Equal(t, CellTombstone, Reconcile(&d, &got).Kind)
}

func TestLivenessSupersedes(t *testing.T) {
	plain := LivenessInfo{Timestamp: 5, ExpiresAt: NoDeletionTime}
	exp := LivenessInfo{Timestamp: 5, TTL: 10, ExpiresAt: 100}
	later := LivenessInfo{Timestamp: 5, TTL: 10, ExpiresAt: 200}
	assert.True(t, exp.Supersedes(plain))
	assert.False(t, plain.Supersedes(exp))
	assert.True(t, later.Supersedes(exp))
	assert.True(t, LivenessInfo{Timestamp: 6, ExpiresAt: NoDeletionTime}.Supersedes(later))
	assert.True(t, exp.IsLive(99))
	assert.False(t, exp.IsLive(100))
	assert.False(t, EmptyLiveness.IsLive(0))
}

func TestDeletionShadowsTies(t *testing.T) {
	d := DeletionTime{MarkedForDeleteAt: 10, LocalDeletionTime: 1}
	assert.True(t, d.Deletes(10))
	assert.False(t, d.Deletes(11))
	assert.False(t, LiveDeletion.Deletes(NoTimestamp+1))
}

func TestMergeRowsPurges(t *testing.T) {
	a := NewRow([]byte{1})
	a.Liveness = LivenessInfo{Timestamp: 3, ExpiresAt: NoDeletionTime}
	a.Cells = []Cell{live(3, 1), {Column: "w", Timestamp: 9, LocalDeletionTime: NoDeletionTime, Value: []byte{2}}}
	b := NewRow([]byte{1})
	b.Deletion = DeletionTime{MarkedForDeleteAt: 5, LocalDeletionTime: 50}
	m := MergeRows(&a, &b)
	require.Len(t, m.Cells, 1)
	assert.Equal(t, "w", m.Cells[0].Column)
	assert.True(t, m.Liveness.IsEmpty(), "liveness at ts 3 is shadowed by the row deletion at 5")
	assert.Equal(t, b.Deletion, m.Deletion)

	// A collection deletion shadows older elements only.
	c := NewRow([]byte{1})
	c.Cells = []Cell{{Column: "m", Path: []byte("a"), Timestamp: 4, LocalDeletionTime: NoDeletionTime}, {Column: "m", Path: []byte("b"), Timestamp: 6, LocalDeletionTime: NoDeletionTime}}
	e := NewRow([]byte{1})
	e.ColumnDeletions = []ColumnDeletion{{Column: "m", Deletion: DeletionTime{MarkedForDeleteAt: 5, LocalDeletionTime: 1}}}
	m = MergeRows(&c, &e)
	require.Len(t, m.Cells, 1)
	assert.Equal(t, []byte("b"), m.Cells[0].Path)
}
