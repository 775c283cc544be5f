package commitlog

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"testing"
	"time"

	"github.com/minicass/minicass/vfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// record is one replayed record.
type record struct {
	pos     Position
	payload string
}

func replayAll(t *testing.T, fsys vfs.FS, dir string) ([]record, error) {
	t.Helper()
	var out []record
	err := Replay(fsys, dir, func(pos Position, p []byte) error {
		out = append(out, record{pos, string(p)})
		return nil
	})
	return out, err
}

func payloads(rs []record) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.payload)
	}
	return out
}

// manualTicker lets a test drive periodic syncs. Its channel is unbuffered,
// so a second Tick returns only after the first tick's sync has finished.
type manualTicker struct{ c chan time.Time }

func newManualTicker() *manualTicker                 { return &manualTicker{c: make(chan time.Time)} }
func (m *manualTicker) C() <-chan time.Time          { return m.c }
func (m *manualTicker) Stop()                        {}
func (m *manualTicker) Tick()                        { m.c <- time.Time{} }
func (m *manualTicker) factory(time.Duration) Ticker { return m }

func TestFormatWorkedExample(t *testing.T) {
	mem := vfs.NewMem()
	l, err := Open(mem, "cl", Options{SyncMode: SyncNone})
	require.NoError(t, err)
	pos, err := l.Append([]byte("hi"))
	require.NoError(t, err)
	assert.Equal(t, Position{Segment: 1, Offset: 20}, pos)
	require.NoError(t, l.Close())
	data, err := readAll(mem, "cl/CommitLog-1.log")
	require.NoError(t, err)
	// The bytes documented in doc.go.
	assert.Equal(t, "4d43434c"+"02000000"+"0100000000000000"+"67c7914e"+"02000000"+"59725a88"+"6869"+"ffffffff"+"4c87db78",
		hex.EncodeToString(data))
}

func TestAppendReplayReopen(t *testing.T) {
	mem := vfs.NewMem()
	l, err := Open(mem, "cl", Options{SyncMode: SyncBatch})
	require.NoError(t, err)
	var want []record
	for i := 0; i < 50; i++ {
		p := fmt.Sprintf("mutation-%d", i)
		pos, err := l.Append([]byte(p))
		require.NoError(t, err)
		want = append(want, record{pos, p})
	}
	_, err = l.Append(nil) // empty payloads are allowed
	require.NoError(t, err)
	// Under SyncBatch each record is followed by the sync marker of its
	// fsync.
	want = append(want, record{Position{1, want[len(want)-1].pos.Offset + 8 + int64(len(want[len(want)-1].payload)) + syncMarkerSize}, ""})
	require.NoError(t, l.Close())
	require.ErrorIs(t, l.Close(), ErrClosed)
	_, err = l.Append([]byte("x"))
	require.ErrorIs(t, err, ErrClosed)

	l2, err := Open(mem, "cl", Options{SyncMode: SyncBatch})
	require.NoError(t, err)
	var got []record
	require.NoError(t, l2.Replay(func(pos Position, p []byte) error {
		got = append(got, record{pos, string(p)})
		return nil
	}))
	assert.Equal(t, want, got)
	segs := l2.Segments()
	require.Len(t, segs, 2)
	assert.Equal(t, uint64(2), segs[1].ID)
	assert.True(t, segs[1].Active)

	// Records appended after reopening go to the new segment and are not
	// part of this Log's Replay.
	pos, err := l2.Append([]byte("after"))
	require.NoError(t, err)
	assert.Equal(t, Position{2, headerSize}, pos)
	require.NoError(t, l2.Close())
	all, err := replayAll(t, mem, "cl")
	require.NoError(t, err)
	assert.Len(t, all, 52)
	assert.Equal(t, "after", all[51].payload)

	// A reopen without appends leaves no empty segment behind.
	l3, err := Open(mem, "cl", Options{SyncMode: SyncBatch})
	require.NoError(t, err)
	require.NoError(t, l3.Close())
	names, err := mem.List("cl")
	require.NoError(t, err)
	assert.Equal(t, []string{"CommitLog-1.log", "CommitLog-2.log"}, names)
}

func TestReplayCallbackError(t *testing.T) {
	mem := vfs.NewMem()
	l, err := Open(mem, "cl", Options{SyncMode: SyncNone})
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		_, err := l.Append([]byte{byte(i)})
		require.NoError(t, err)
	}
	require.NoError(t, l.Close())
	stop := errors.New("stop")
	n := 0
	err = Replay(mem, "cl", func(Position, []byte) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	require.ErrorIs(t, err, stop)
	assert.Equal(t, 2, n)

	// A missing directory replays nothing.
	rs, err := replayAll(t, mem, "nope")
	require.NoError(t, err)
	assert.Empty(t, rs)
}

func TestPositionCompare(t *testing.T) {
	a, b, c := Position{1, 20}, Position{1, 40}, Position{2, 20}
	assert.Equal(t, -1, a.Compare(b))
	assert.Equal(t, 1, b.Compare(a))
	assert.Equal(t, -1, b.Compare(c))
	assert.Equal(t, 1, c.Compare(b))
	assert.Equal(t, 0, c.Compare(c))
	assert.Equal(t, "2:20", c.String())
}

func TestSegmentFileName(t *testing.T) {
	assert.Equal(t, "CommitLog-42.log", SegmentFileName(42))
	id, ok := ParseSegmentFileName("CommitLog-42.log")
	assert.True(t, ok)
	assert.Equal(t, uint64(42), id)
	for _, bad := range []string{"CommitLog-.log", "CommitLog-042.log", "CommitLog-x.log",
		"CommitLog-1.log.tmp", "commitlog-1.log", "CommitLog-99999999999999999999.log"} {
		_, ok := ParseSegmentFileName(bad)
		assert.False(t, ok, bad)
	}
}

func TestOptions(t *testing.T) {
	var o Options
	o.EnsureDefaults()
	require.NoError(t, o.Validate())
	assert.Equal(t, SyncPeriodic, o.SyncMode)
	assert.Equal(t, 10*time.Second, o.SyncPeriod)
	assert.EqualValues(t, 32<<20, o.SegmentSize)
	assert.Equal(t, 16<<20, o.MaxRecordSize)
	assert.Equal(t, "periodic", o.SyncMode.String())

	for _, bad := range []Options{
		{SegmentSize: 100, MaxRecordSize: 80},
		{SyncMode: SyncMode(7)},
		{SyncPeriod: -time.Second},
		{MaxRecordSize: -1},
	} {
		_, err := Open(vfs.NewMem(), "cl", bad)
		require.ErrorIs(t, err, ErrInvalidOptions, "%+v", bad)
	}
}

func TestRecordTooLarge(t *testing.T) {
	l, err := Open(vfs.NewMem(), "cl", Options{SyncMode: SyncNone, SegmentSize: 1024})
	require.NoError(t, err)
	defer l.Close()
	_, err = l.Append(make([]byte, 513))
	require.ErrorIs(t, err, ErrRecordTooLarge)
	_, err = l.Append(make([]byte, 512))
	require.NoError(t, err)
}

func TestRotationAndRelease(t *testing.T) {
	mem := vfs.NewMem()
	// SyncNone: no fsync, so no sync marker between records; each segment
	// ends with the marker written when it is closed.
	l, err := Open(mem, "cl", Options{SyncMode: SyncNone, SegmentSize: 128})
	require.NoError(t, err)
	var positions []Position
	for i := 0; i < 20; i++ {
		// 8-byte header + 22-byte payload: 3 records and the closing
		// 8-byte sync marker fit after the 20-byte header.
		pos, err := l.Append([]byte(fmt.Sprintf("record-number-%08d", i)))
		require.NoError(t, err)
		positions = append(positions, pos)
	}
	for i := 1; i < len(positions); i++ {
		require.Equal(t, -1, positions[i-1].Compare(positions[i]))
	}
	segs := l.Segments()
	require.Len(t, segs, 7)
	for _, s := range segs {
		assert.LessOrEqual(t, s.Size, int64(128), s.Name)
	}
	assert.Equal(t, Position{7, 20 + 2*30}, l.Tail())

	// Release everything before record 7 (segment 3, second record).
	require.Equal(t, Position{3, 50}, positions[7])
	require.NoError(t, l.ReleaseBefore(positions[7]))
	names, err := mem.List("cl")
	require.NoError(t, err)
	assert.Equal(t, []string{"CommitLog-3.log", "CommitLog-4.log", "CommitLog-5.log",
		"CommitLog-6.log", "CommitLog-7.log"}, names)

	// A position at the end of a full segment's records (before its
	// closing sync marker) releases that segment too.
	require.NoError(t, l.ReleaseBefore(Position{4, 110}))
	assert.Len(t, l.Segments(), 3)

	// The active segment is never released.
	require.NoError(t, l.ReleaseBefore(Position{100, 0}))
	segs = l.Segments()
	require.Len(t, segs, 1)
	assert.True(t, segs[0].Active)
	require.NoError(t, l.Close())

	rs, err := replayAll(t, mem, "cl")
	require.NoError(t, err)
	require.Len(t, rs, 2)
	assert.Equal(t, "record-number-00000018", rs[0].payload)
}

func TestPeriodicTickerSyncs(t *testing.T) {
	mem := vfs.NewCrashableMem()
	tk := newManualTicker()
	l, err := Open(mem, "cl", Options{NewTicker: tk.factory})
	require.NoError(t, err)
	_, err = l.Append([]byte("one"))
	require.NoError(t, err)

	rs, err := replayAll(t, mem.CrashClone(), "cl")
	require.NoError(t, err)
	assert.Empty(t, rs, "not synced yet")

	tk.Tick()
	tk.Tick() // returns once the first tick's sync is done
	rs, err = replayAll(t, mem.CrashClone(), "cl")
	require.NoError(t, err)
	assert.Equal(t, []string{"one"}, payloads(rs))

	_, err = l.Append([]byte("two"))
	require.NoError(t, err)
	require.NoError(t, l.Sync())
	rs, err = replayAll(t, mem.CrashClone(), "cl")
	require.NoError(t, err)
	assert.Equal(t, []string{"one", "two"}, payloads(rs))
	require.NoError(t, l.Close())
}

// TestPeriodicSyncsEarlyWhenSegmentFills checks that in periodic mode a
// segment three quarters full is synced without waiting for the tick, so
// that the sync its rotation makes under the log's lock has little left to
// write.
func TestPeriodicSyncsEarlyWhenSegmentFills(t *testing.T) {
	mem := vfs.NewCrashableMem()
	l, err := Open(mem, "cl", Options{SyncMode: SyncPeriodic, SegmentSize: 1000, NewTicker: newManualTicker().factory})
	require.NoError(t, err)
	var want []string
	for i := 0; i < 3; i++ { // 3 records of 200 bytes framed: below 750
		p := fmt.Sprintf("%0192d", i)
		_, err = l.Append([]byte(p))
		require.NoError(t, err)
		want = append(want, p)
	}
	rs, err := replayAll(t, mem.CrashClone(), "cl")
	require.NoError(t, err)
	assert.Empty(t, rs, "below three quarters: no sync before the tick")
	p := fmt.Sprintf("%0192d", 3)
	_, err = l.Append([]byte(p)) // the segment passes 750 bytes
	require.NoError(t, err)
	want = append(want, p)
	var got []string
	require.Eventually(t, func() bool {
		rs, err := replayAll(t, mem.CrashClone(), "cl")
		require.NoError(t, err)
		got = payloads(rs)
		return len(got) == len(want)
	}, 10*time.Second, time.Millisecond, "the early sync never came")
	assert.Equal(t, want, got)
	require.NoError(t, l.Close())
}

func TestCloseSyncs(t *testing.T) {
	mem := vfs.NewCrashableMem()
	l, err := Open(mem, "cl", Options{SyncMode: SyncPeriodic, NewTicker: newManualTicker().factory})
	require.NoError(t, err)
	_, err = l.Append([]byte("x"))
	require.NoError(t, err)
	require.NoError(t, l.Close())
	rs, err := replayAll(t, mem.CrashClone(), "cl")
	require.NoError(t, err)
	assert.Equal(t, []string{"x"}, payloads(rs))
}

func TestWriteFailureIsSticky(t *testing.T) {
	efs := vfs.NewErrorFS(vfs.NewMem(), vfs.OnNth(vfs.OpWrite, 3)) // 1: header, 2: first record
	l, err := Open(efs, "cl", Options{SyncMode: SyncNone})
	require.NoError(t, err)
	_, err = l.Append([]byte("ok"))
	require.NoError(t, err)
	_, err = l.Append([]byte("fails"))
	require.ErrorIs(t, err, ErrFailed)
	require.ErrorIs(t, err, vfs.ErrInjected)
	_, err = l.Append([]byte("refused"))
	require.ErrorIs(t, err, ErrFailed)
	require.ErrorIs(t, l.Sync(), ErrFailed)
	require.NoError(t, l.Close())
}

func TestSyncFailureUnderBatch(t *testing.T) {
	efs := vfs.NewErrorFS(vfs.NewMem(), vfs.OnNth(vfs.OpSync, 3)) // 1: header, 2: first record
	l, err := Open(efs, "cl", Options{SyncMode: SyncBatch})
	require.NoError(t, err)
	_, err = l.Append([]byte("ok"))
	require.NoError(t, err)
	_, err = l.Append([]byte("not durable"))
	require.ErrorIs(t, err, ErrFailed)
	_, err = l.Append([]byte("refused"))
	require.ErrorIs(t, err, ErrFailed)
	l.Close()
}

func TestOpenErrors(t *testing.T) {
	efs := vfs.NewErrorFS(vfs.NewMem(), vfs.OnNth(vfs.OpCreate, 1))
	_, err := Open(efs, "cl", Options{SyncMode: SyncNone})
	require.ErrorIs(t, err, vfs.ErrInjected)

	efs = vfs.NewErrorFS(vfs.NewMem(), vfs.OnNth(vfs.OpList, 1))
	_, err = Open(efs, "cl", Options{SyncMode: SyncNone})
	require.ErrorIs(t, err, vfs.ErrInjected)
}

// TestGroupCommit runs 16 concurrent appenders under SyncBatch and checks
// that every append was acknowledged and that fsyncs were shared.
func TestGroupCommit(t *testing.T) {
	var mu sync.Mutex
	nSync, nWrite := 0, 0
	efs := vfs.NewErrorFS(vfs.NewMem(), vfs.InjectorFunc(func(op vfs.Op, _ string) error {
		mu.Lock()
		defer mu.Unlock()
		switch op {
		case vfs.OpSync:
			nSync++
			time.Sleep(50 * time.Microsecond) // an fsync takes time; let appenders queue
		case vfs.OpWrite:
			nWrite++
		}
		return nil
	}))
	l, err := Open(efs, "cl", Options{SyncMode: SyncBatch})
	require.NoError(t, err)
	const workers, each = 16, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := l.Append([]byte(fmt.Sprintf("w%d-%d", w, i))); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, l.Close())
	rs, err := replayAll(t, efs, "cl")
	require.NoError(t, err)
	assert.Len(t, rs, workers*each)
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d records, %d writes, %d syncs", workers*each, nWrite, nSync)
	assert.Less(t, nSync, workers*each, "fsyncs must be shared between appenders")
}

func TestTornLastSegmentRepairedOnOpen(t *testing.T) {
	mem := vfs.NewMem()
	l, err := Open(mem, "cl", Options{SyncMode: SyncNone})
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		_, err := l.Append([]byte(fmt.Sprintf("rec%d", i)))
		require.NoError(t, err)
	}
	require.NoError(t, l.Close())
	// Tear the last record in half (and lose the sync marker Close wrote
	// after it).
	data, err := readAll(mem, "cl/CommitLog-1.log")
	require.NoError(t, err)
	writeRaw(t, mem, "cl/CommitLog-1.log", data[:len(data)-syncMarkerSize-3])

	l, err = Open(mem, "cl", Options{SyncMode: SyncNone})
	require.NoError(t, err)
	rs := []string{}
	require.NoError(t, l.Replay(func(_ Position, p []byte) error { rs = append(rs, string(p)); return nil }))
	assert.Equal(t, []string{"rec0", "rec1"}, rs)
	_, err = l.Append([]byte("rec3"))
	require.NoError(t, err)
	require.NoError(t, l.Close())

	// Segment 1 is no longer last, yet reads cleanly: Open cut its tail.
	all, err := replayAll(t, mem, "cl")
	require.NoError(t, err)
	assert.Equal(t, []string{"rec0", "rec1", "rec3"}, payloads(all))
}

func TestTornHeaderSegmentRemovedOnOpen(t *testing.T) {
	mem := vfs.NewMem()
	require.NoError(t, mem.MkdirAll("cl", 0o755))
	writeRaw(t, mem, "cl/CommitLog-5.log", []byte("MCC"))
	rs, err := replayAll(t, mem, "cl")
	require.NoError(t, err)
	assert.Empty(t, rs)
	l, err := Open(mem, "cl", Options{SyncMode: SyncNone})
	require.NoError(t, err)
	pos, err := l.Append([]byte("x"))
	require.NoError(t, err)
	assert.Equal(t, uint64(6), pos.Segment)
	require.NoError(t, l.Close())
	_, err = mem.Stat("cl/CommitLog-5.log")
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func writeRaw(t testing.TB, fsys vfs.FS, name string, data []byte) {
	t.Helper()
	f, err := fsys.Create(name)
	require.NoError(t, err)
	_, err = f.Write(data)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// fakeClock is a manually advanced clock for Options.Now.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestPeriodicSyncBehindBlocksAppend checks that under SyncPeriodic an
// Append syncs by itself when the last sync is more than 1.5 periods old,
// as Cassandra blocks writers on a lagging periodic sync.
func TestPeriodicSyncBehindBlocksAppend(t *testing.T) {
	mem := vfs.NewCrashableMem()
	clock := &fakeClock{now: time.Unix(1000, 0)}
	l, err := Open(mem, "cl", Options{SyncPeriod: 10 * time.Second, Now: clock.Now,
		NewTicker: newManualTicker().factory})
	require.NoError(t, err)
	defer l.Close()

	_, err = l.Append([]byte("a"))
	require.NoError(t, err)
	clock.Advance(15 * time.Second) // exactly 1.5 periods: not yet behind
	_, err = l.Append([]byte("b"))
	require.NoError(t, err)
	rs, err := replayAll(t, mem.CrashClone(), "cl")
	require.NoError(t, err)
	assert.Empty(t, rs)

	clock.Advance(time.Millisecond)
	_, err = l.Append([]byte("c"))
	require.NoError(t, err)
	rs, err = replayAll(t, mem.CrashClone(), "cl")
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, payloads(rs), "the late append synced everything")

	_, err = l.Append([]byte("d")) // the sync just happened: no wait
	require.NoError(t, err)
	rs, err = replayAll(t, mem.CrashClone(), "cl")
	require.NoError(t, err)
	assert.Len(t, rs, 3)
}

// TestPeriodicSyncBehindSystemClock is TestPeriodicSyncBehindBlocksAppend
// with the default clock, which the log reads through time.Since (see
// sinceSync): once more than 1.5 periods have passed since the log opened,
// with no tick, an Append syncs everything by itself.
func TestPeriodicSyncBehindSystemClock(t *testing.T) {
	mem := vfs.NewCrashableMem()
	const period = 10 * time.Millisecond
	l, err := Open(mem, "cl", Options{SyncPeriod: period, NewTicker: newManualTicker().factory})
	require.NoError(t, err)
	defer l.Close()
	require.True(t, l.systemNow)

	_, err = l.Append([]byte("a"))
	require.NoError(t, err)
	time.Sleep(3 * period)
	_, err = l.Append([]byte("b"))
	require.NoError(t, err)
	rs, err := replayAll(t, mem.CrashClone(), "cl")
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, payloads(rs), "the late append synced everything")
}

// TestOnRotate checks that OnRotate is called once per new segment, after
// the log's lock is released (the hook may call Segments).
func TestOnRotate(t *testing.T) {
	mem := vfs.NewMem()
	var calls []int
	var l *Log
	l, err := Open(mem, "log", Options{SegmentSize: 4096, OnRotate: func() { calls = append(calls, len(l.Segments())) }})
	require.NoError(t, err)
	defer l.Close()
	payload := make([]byte, 1000)
	for range 12 {
		_, err := l.Append(payload)
		require.NoError(t, err)
	}
	segs := l.Segments()
	require.Greater(t, len(segs), 2)
	require.Len(t, calls, len(segs)-1, "one call per new segment")
	for i, n := range calls {
		assert.Equal(t, i+2, n, "called once segment %d exists", i+2)
	}
}
