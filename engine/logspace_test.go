package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/vfs"
)

// TestCommitLogTotalSpace checks Cassandra's commitlog_total_space: a table
// written once and never again is flushed when the log passes its total
// space, so the log does not keep every segment from that write on, and
// the rows survive a restart.
func TestCommitLogTotalSpace(t *testing.T) {
	for _, limit := range []int64{0, 256 << 10} {
		t.Run(fmt.Sprintf("limit=%d", limit), func(t *testing.T) {
			fsys := vfs.NewMem()
			opts := Options{CommitLogSegmentSize: 64 << 10, CommitLogTotalSpace: limit, MemtableSize: 64 << 20}
			e, _, cold := openDurable(t, fsys, opts)
			hot := testTable("hot", data.TableID{2})
			require.NoError(t, e.CreateTable(hot))
			put(t, e, cold, "once", "c", "written once", 1)
			value := strings.Repeat("x", 200)
			logSize := func() (total int64) {
				for _, s := range e.log.Segments() {
					total += s.Size
				}
				return total
			}
			var peak int64
			for i := range 20000 { // about 5 MB of records: some 80 segments
				put(t, e, hot, fmt.Sprintf("k%d", i%50), fmt.Sprintf("c%05d", i), value, int64(i+2))
				peak = max(peak, logSize())
			}
			if limit == 0 {
				// The default (8 GiB) is far away: nothing was flushed,
				// and the log holds everything.
				assert.Empty(t, e.SSTables("ks", "t"))
				assert.Greater(t, peak, int64(4<<20))
			} else {
				require.Eventually(t, func() bool { return len(e.SSTables("ks", "t")) == 1 }, 10*time.Second, time.Millisecond,
					"the table written once is flushed")
				assert.NotEmpty(t, e.SSTables("ks", "hot"))
				// Flushes run in the background while the writes go on, so
				// the log passes its limit by what is written meanwhile (the
				// peak depends on the machine's load); once they catch up it
				// is back under the limit, give or take the active segment.
				require.Eventually(t, func() bool {
					e.reclaimLogSpace()
					require.NoError(t, e.releaseLog())
					return logSize() <= limit+opts.CommitLogSegmentSize
				}, 10*time.Second, time.Millisecond, "the log comes back under its total space")
			}
			t.Logf("peak commit-log size %d bytes (limit %d)", peak, limit)
			require.NoError(t, e.Close())

			e, _, cold = openDurable(t, fsys, opts)
			defer e.Close()
			_, rows := readAll(t, e, cold, "once", ReadOptions{})
			require.Len(t, rows, 1)
			hot, _ = e.Table("ks", "hot")
			n := 0
			for i := range 50 {
				_, rows := readAll(t, e, hot, fmt.Sprintf("k%d", i), ReadOptions{})
				n += len(rows)
			}
			assert.Equal(t, 20000, n)
		})
	}
}

// TestCommitLogTotalSpaceOption checks the option's validation.
func TestCommitLogTotalSpaceOption(t *testing.T) {
	_, err := Open(Options{CommitLogTotalSpace: -1})
	require.ErrorIs(t, err, ErrInvalidOptions)
	assert.Equal(t, int64(DefaultCommitLogTotalSpace), Options{}.EnsureDefaults().CommitLogTotalSpace)
}
