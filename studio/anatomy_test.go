package studio

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
)

// wideScenario adds to the classroom scenario a table ks.wide with a wide
// partition 'big' (150 rows of 1,000 bytes, past the 64 KiB
// column_index_size, so it has a row index) and 10 narrow ones, flushed.
func wideScenario(t testing.TB, db *minicass.DB) {
	t.Helper()
	ctx := context.Background()
	exec := func(q string, args ...any) { require.NoError(t, db.Exec(ctx, q, args...), q) }
	exec(`CREATE TABLE ks.wide (k text, c int, v text, PRIMARY KEY (k, c))`)
	pad := strings.Repeat("x", 1000)
	for i := 0; i < 150; i++ {
		exec(`INSERT INTO ks.wide (k, c, v) VALUES ('big', ?, ?)`, i, fmt.Sprintf("%03d%s", i, pad))
	}
	for i := 0; i < 10; i++ {
		exec(`INSERT INTO ks.wide (k, c, v) VALUES (?, 1, 'x')`, fmt.Sprintf("n%d", i))
	}
	require.NoError(t, db.Flush(ctx, "ks", "wide"))
}

func TestSSTableView(t *testing.T) {
	db, _ := scenario(t)
	wideScenario(t, db)
	h := New(db, Options{}).Handler()

	code, _, body := get(t, h, "/sstable?table=ks.wide")
	require.Equal(t, 200, code, body)
	assert.Equal(t, 8, strings.Count(body, `<tr class="component">`), "the eight component files")
	assert.Contains(t, body, `<td class="src">xa-1-big-Data.db</td>`)
	assert.Positive(t, strings.Count(body, `<rect class="chunk"`))
	assert.Equal(t, strings.Count(body, `<rect class="chunk"`), strings.Count(body, `<tr class="chunk">`))
	assert.Equal(t, 11, strings.Count(body, `<tr class="lp">`), "a row per partition")
	assert.Equal(t, 1, strings.Count(body, `class="stream-partition wide"`), "only 'big' has a row index")
	// The widest partition's row index: 150 KB in 64 KiB blocks.
	assert.Contains(t, body, `Partition &#39;big&#39;: `)
	blocks := strings.Count(body, `<tr class="block">`)
	assert.GreaterOrEqual(t, blocks, 2)
	assert.Equal(t, blocks, strings.Count(body, `<rect class="index-block"`))
	assert.Contains(t, body, `<tr class="block"><td class="num">0</td><td>(0)</td>`)
	assert.Regexp(t, `<p id="bloom">\d+ bits \(\d+ bytes\), \d+ hash functions, \d+ bits set`, body)
	assert.Contains(t, body, `<tr><th>partitions</th><td>11</td></tr>`)
	assert.Contains(t, body, `<tr><th>rows</th><td>160</td></tr>`)

	// A narrow partition has no row index; the filter answers for its key.
	code, _, body = get(t, h, "/sstable?table=ks.wide&key=n3")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `Partition &#39;n3&#39; (`)
	assert.Contains(t, body, "has no row index")
	assert.Contains(t, body, `<p id="bloom-key">For &#39;n3&#39; the filter says maybe`)
	code, _, body = get(t, h, "/sstable?table=ks.wide&key=absent")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `Partition &#39;absent&#39; is not in this SSTable.`)

	// The users table has one SSTable, and a new flush adds one to the list.
	require.NoError(t, db.Flush(context.Background(), "ks", "users"))
	code, _, body = get(t, h, "/sstable?table=ks.users&name=xa-1-big-Data.db")
	require.Equal(t, 200, code, body)
	assert.Regexp(t, regexp.MustCompile(`<p id="sstables">SSTables: <a href="/sstable\?table=ks.users&amp;name=xa-2-big-Data.db">xa-2-big-Data.db</a> · <b>xa-1-big-Data.db</b></p>`), body)

	code, hdr, body := get(t, h, "/sstable.svg?table=ks.wide")
	require.Equal(t, 200, code, body)
	assert.Equal(t, "image/svg+xml", hdr.Get("Content-Type"))
	assert.Contains(t, body, `<svg id="anatomy"`)
	code, _, body = get(t, h, "/sstable?table=ks.wide&export=1")
	require.Equal(t, 200, code, body)
	assert.NotContains(t, body, "fetch(")

	require.NoError(t, db.Exec(context.Background(), `CREATE TABLE ks.empty (k int PRIMARY KEY)`))
	code, _, body = get(t, h, "/sstable?table=ks.empty")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `<p id="no-sstables"`)

	code, _, body = get(t, h, "/sstable?table=ks.wide&name=xa-9-big-Data.db")
	assert.Equal(t, 400, code)
	assert.Contains(t, body, "ks.wide has no live SSTable xa-9-big-Data.db")
}
