package studio

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
)

// compactionScenario adds a table ks.events (gc_grace_seconds 0) written in
// two SSTables, the second holding a partition deletion of a partition of
// the first, and compacts them once the deletion is past its grace: the
// deleted partition is purged with its tombstone.
func compactionScenario(t testing.TB, db *minicass.DB, clock *minicass.ManualClock) {
	t.Helper()
	ctx := context.Background()
	exec := func(q string, args ...any) { require.NoError(t, db.Exec(ctx, q, args...), q) }
	exec(`CREATE TABLE ks.events (k text, c int, v text, PRIMARY KEY (k, c)) WITH gc_grace_seconds = 0 AND compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}`)
	for i := 0; i < 5; i++ {
		exec(`INSERT INTO ks.events (k, c, v) VALUES ('old', ?, 'x')`, i)
		exec(`INSERT INTO ks.events (k, c, v) VALUES ('kept', ?, 'x')`, i)
	}
	require.NoError(t, db.Flush(ctx, "ks", "events"))
	exec(`DELETE FROM ks.events WHERE k = 'old'`)
	exec(`INSERT INTO ks.events (k, c, v) VALUES ('new', 1, 'y')`)
	require.NoError(t, db.Flush(ctx, "ks", "events"))
	clock.Advance(10 * time.Second)
	require.NoError(t, db.Compact(ctx, "ks", "events"))
}

func TestCompactionView(t *testing.T) {
	db, clock := scenario(t)
	compactionScenario(t, db, clock)
	h := New(db, Options{}).Handler()

	code, _, body := get(t, h, "/compactions?table=ks.events")
	require.Equal(t, 200, code, body)
	assert.Equal(t, 1, strings.Count(body, `<tr class="compaction"`))
	assert.Equal(t, 2, strings.Count(body, `<g class="sst-in">`), "two inputs drawn")
	assert.Equal(t, 1, strings.Count(body, `<g class="sst-out live">`), "one output, live")
	assert.Contains(t, body, `<td class="src">xa-2-big-Data.db<br>xa-1-big-Data.db</td><td class="src"><a href="/sstable?table=ks.events&amp;name=xa-4-big-Data.db">xa-4-big-Data.db</a></td>`)
	// In: 'old' and 'kept' (5 rows each), then 'old' deleted and 'new'.
	// Out: 'kept' and 'new'; 'old' is purged with its tombstone.
	assert.Contains(t, body, `<td class="num">4, 11, 11, 0, 1</td><td class="num">2, 6, 6, 0, 0</td><td class="num removed">2, 5, 5, 0, 1</td>`)
	assert.Contains(t, body, "{1:2, 2:1}", "'old' came from both inputs")
	assert.Contains(t, body, "live now: gen 4")

	// An SSTable whose data all expired is dropped whole.
	ctx := context.Background()
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.ttl (k text PRIMARY KEY, v text) WITH gc_grace_seconds = 0 AND compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}`))
	require.NoError(t, db.Exec(ctx, `INSERT INTO ks.ttl (k, v) VALUES ('a', 'z') USING TTL 5`))
	require.NoError(t, db.Flush(ctx, "ks", "ttl"))
	clock.Advance(10 * time.Second)
	require.NoError(t, db.Compact(ctx, "ks", "ttl"))
	code, _, body = get(t, h, "/compactions?table=ks.ttl")
	require.Equal(t, 200, code, body)
	assert.Equal(t, 1, strings.Count(body, `<tr class="compaction"`), "only this table's compactions")
	assert.Regexp(t, regexp.MustCompile(`<g class="sst-in expired"><rect[^>]*/><text[^>]*>gen 1</text>`), body)
	assert.Contains(t, body, `xa-1-big-Data.db (expired)</span>`)
	assert.Contains(t, body, "nothing left")

	code, _, body = get(t, h, "/compactions?table=ks.users")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, "no compaction yet")
	assert.Contains(t, body, "live now: gen 1")

	code, hdr, body := get(t, h, "/compactions.svg?table=ks.events")
	require.Equal(t, 200, code, body)
	assert.Equal(t, "image/svg+xml", hdr.Get("Content-Type"))
	code, _, body = get(t, h, "/compactions?table=ks.events&export=1")
	require.Equal(t, 200, code, body)
	assert.NotContains(t, body, "fetch(")
	code, _, _ = get(t, h, "/compactions")
	assert.Equal(t, 400, code)
}
