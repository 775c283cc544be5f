package studio

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
)

// orderScenario adds two tables of readings, ks.readings_asc and ks.readings_desc, the same
// but for their CLUSTERING ORDER BY, each holding readings 1 to 10 of
// sensor 's1' (ks.readings_desc's first five flushed to an SSTable).
func orderScenario(t testing.TB, db *minicass.DB) {
	t.Helper()
	ctx := context.Background()
	exec := func(q string, args ...any) { require.NoError(t, db.Exec(ctx, q, args...), q) }
	exec(`CREATE TABLE ks.readings_asc (sensor text, at int, v int, PRIMARY KEY (sensor, at)) WITH CLUSTERING ORDER BY (at ASC)`)
	exec(`CREATE TABLE ks.readings_desc (sensor text, at int, v int, PRIMARY KEY (sensor, at)) WITH CLUSTERING ORDER BY (at DESC)`)
	for i := 1; i <= 10; i++ {
		if i == 6 {
			require.NoError(t, db.Flush(ctx, "ks", "readings_desc"))
		}
		exec(`INSERT INTO ks.readings_asc (sensor, at, v) VALUES ('s1', ?, ?)`, i, i)
		exec(`INSERT INTO ks.readings_desc (sensor, at, v) VALUES ('s1', ?, ?)`, i, i)
	}
}

func TestOrderView(t *testing.T) {
	db, _ := scenario(t)
	orderScenario(t, db)
	h := New(db, Options{}).Handler()

	code, _, body := get(t, h, "/order?table=ks.readings_asc&other=ks.readings_desc&key=s1&limit=3")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `data-table="ks.readings_asc,ks.readings_desc"`, "the page follows both tables")
	assert.Contains(t, body, "CLUSTERING ORDER BY (at ASC)")
	assert.Contains(t, body, "CLUSTERING ORDER BY (at DESC)")
	assert.Contains(t, body, `<p class="src">SELECT * FROM ks.readings_asc WHERE sensor = &#39;s1&#39; LIMIT 3;</p><p class="first-rows">returns (1), (2), (3)</p>`)
	assert.Contains(t, body, `<p class="src">SELECT * FROM ks.readings_desc WHERE sensor = &#39;s1&#39; LIMIT 3;</p><p class="first-rows">returns (10), (9), (8)</p>`)
	assert.Equal(t, 6, strings.Count(body, `<rect class="orow first"`), "three first rows a side")
	assert.Equal(t, 20, strings.Count(body, `<rect class="orow`))
	assert.Equal(t, 20, strings.Count(body, `</li>`), "ten rows a side listed")

	code, _, body = get(t, h, "/order?table=ks.readings_asc&other=ks.users&key=s1")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `no rows for this key`)
	assert.Contains(t, body, `returns no row`)

	code, _, body = get(t, h, "/order?table=ks.readings_asc")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `<p id="choose"`)
	assert.Contains(t, body, `<option value="ks.readings_desc">ks.readings_desc</option>`)

	code, _, body = get(t, h, "/version?table=ks.readings_asc,ks.readings_desc")
	require.Equal(t, 200, code, body)
	assert.Equal(t, 2, len(strings.Split(strings.TrimSpace(body), ",")), body)

	code, _, body = get(t, h, "/order.svg?table=ks.readings_asc&other=ks.readings_desc&key=s1")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `<svg id="order"`)
	code, _, body = get(t, h, "/order?table=ks.readings_asc&other=ks.readings_desc&key=s1&export=1")
	require.Equal(t, 200, code, body)
	assert.NotContains(t, body, "fetch(")

	for _, tc := range []struct{ url, want string }{
		{"/order?table=ks.readings_asc&other=ks.nosuch&key=s1", "other: table ks.nosuch does not exist"},
		{"/order?table=ks.readings_asc&other=ks.readings_desc&key=s1&limit=0", "limit must be a number from 1 to 100"},
		{"/order?table=ks.readings_asc&other=ks.readings_desc&key=" + strings.Repeat("x", 70000), "at most 65535 bytes"},
		{"/version?table=ks.readings_asc,ks.readings_desc,ks.users", "follow at most two tables"},
		{"/version?table=ks.readings_asc,ks.nosuch", "table ks.nosuch does not exist"},
	} {
		code, _, body := get(t, h, tc.url)
		assert.Equal(t, 400, code, tc.url)
		assert.Contains(t, body, tc.want, tc.url)
	}
}
