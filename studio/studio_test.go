package studio

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
)

// scenario is the classroom scenario the tests draw: a table of status
// values where 'ACTIVE' is a hot partition (600 rows) among 30 narrow ones,
// on a manual clock, with a TTL, a partition deletion and a flush between
// writes so that a partition's versions sit in a memtable and an SSTable.
func scenario(t testing.TB) (*minicass.DB, *minicass.ManualClock) {
	t.Helper()
	clock := minicass.NewManualClock(time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC))
	db, err := minicass.Open(minicass.Options{Clock: clock})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	exec := func(q string, args ...any) { require.NoError(t, db.Exec(ctx, q, args...), q) }
	exec(`CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`)
	exec(`CREATE TABLE ks.users (status text, at int, name text, PRIMARY KEY (status, at)) WITH CLUSTERING ORDER BY (at DESC)`)
	for i := 0; i < 600; i++ {
		exec(`INSERT INTO ks.users (status, at, name) VALUES ('ACTIVE', ?, ?)`, i, fmt.Sprintf("u%d", i))
	}
	for i := 0; i < 30; i++ {
		exec(`INSERT INTO ks.users (status, at, name) VALUES (?, 1, 'x')`, fmt.Sprintf("S%02d", i))
	}
	exec(`INSERT INTO ks.users (status, at, name) VALUES ('GONE', 1, 'old')`)
	require.NoError(t, db.Flush(ctx, "ks", "users"))
	exec(`UPDATE ks.users USING TTL 3600 SET name = 'new' WHERE status = 'ACTIVE' AND at = 1`)
	exec(`DELETE FROM ks.users WHERE status = 'GONE'`)
	return db, clock
}

func get(t *testing.T, h http.Handler, url string) (int, http.Header, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, rec.Result().Header, string(body)
}

func TestViews(t *testing.T) {
	db, _ := scenario(t)
	h := New(db, Options{}).Handler()

	code, hdr, body := get(t, h, "/")
	require.Equal(t, 200, code, body)
	assert.Contains(t, hdr.Get("Content-Security-Policy"), "default-src 'none'")
	assert.Contains(t, body, `<a href="/ring?table=ks.users">ring</a>`)

	code, _, body = get(t, h, "/ring?table=ks.users&key=ACTIVE&nodes=4&vnodes=8&rf=3")
	require.Equal(t, 200, code, body)
	assert.Equal(t, 31, strings.Count(body, `<circle class="partition`), "a dot per live partition ('GONE' is deleted)")
	assert.Equal(t, 1, strings.Count(body, `class="partition hot"`))
	assert.Contains(t, body, `<p id="hot">Largest partition: <b>&#39;ACTIVE&#39;</b>, 600 rows`)
	assert.Equal(t, 32, strings.Count(body, `class="vnode"`), "4 nodes x 8 vnodes")
	replicas := regexp.MustCompile(`<span id="replicas">([^<]*)</span>`).FindStringSubmatch(body)
	require.Len(t, replicas, 2, body)
	maxLoad := regexp.MustCompile(`<tr class="max-load" data-node="(node\d)">`).FindAllStringSubmatch(body, -1)
	require.NotEmpty(t, maxLoad)
	for _, m := range maxLoad {
		assert.Contains(t, strings.Split(replicas[1], ", "), m[1], "the most loaded nodes hold the hot partition")
	}
	assert.Contains(t, body, `<line id="key-token"`)

	code, _, body = get(t, h, "/partition?table=ks.users&key=ACTIVE")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `Partition <b id="pkey">status = &#39;ACTIVE&#39;</b>`)
	assert.Equal(t, 600, strings.Count(body, `<tr class="row"`))
	assert.Contains(t, body, "CLUSTERING ORDER BY (at DESC)")
	// DESC: the stored order starts at the latest row, the reverse read at
	// the first.
	rows := regexp.MustCompile(`data-clustering="\(([0-9]+)\)"`).FindAllStringSubmatch(body, 2)
	assert.Equal(t, "599", rows[0][1])
	assert.Contains(t, body, `<ol id="reverse"><li>(0)</li><li>(1)</li>`)
	// Row 1: the flushed version in the SSTable is shadowed by the newer
	// memtable one, which expires in an hour.
	row1 := body[strings.Index(body, `data-clustering="(1)"`):]
	row1 = row1[:strings.Index(row1, "</tr>")]
	assert.Regexp(t, `memtable-\d+</span>: <span class="cell expiring" title="expiring">name=&#39;new&#39;@\d+ \(ttl 3600, 3600s left\)`, row1)
	assert.Regexp(t, `xa-1-big-Data.db</span>: <span class="live">row marker @\d+</span> <span class="cell shadowed"`, row1)

	code, _, body = get(t, h, "/partition?table=ks.users&key=GONE")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `<td class="expired">no live data</td>`)
	assert.Contains(t, body, `partition deletion @`)
	assert.Regexp(t, `<span class="cell shadowed" title="shadowed">name=&#39;old&#39;`, body)

	code, _, body = get(t, h, "/partition?table=ks.users")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `<a href="/partition?table=ks.users&amp;key=ACTIVE">&#39;ACTIVE&#39;</a> (600 rows)`)

	code, _, body = get(t, h, "/histograms?table=ks.users")
	require.Equal(t, 200, code, body)
	assert.Equal(t, 2, strings.Count(body, `class="limit"`), "both limits drawn")
	assert.Contains(t, body, "100,000 rows")
	assert.Contains(t, body, `<p id="over">Partitions past a limit: 0.</p>`)

	code, hdr, body = get(t, h, "/ring.svg?table=ks.users")
	require.Equal(t, 200, code, body)
	assert.Equal(t, "image/svg+xml", hdr.Get("Content-Type"))
	assert.True(t, strings.HasPrefix(body, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<svg id="ring" xmlns="http://www.w3.org/2000/svg"`))

	code, hdr, body = get(t, h, "/histograms?table=ks.users&export=1")
	require.Equal(t, 200, code, body)
	assert.Equal(t, `attachment; filename="histograms-ks.users.html"`, hdr.Get("Content-Disposition"))
	assert.NotContains(t, body, "fetch(", "an export is static")
	assert.Contains(t, body, "Exported from minicass studio")

	for _, tc := range []struct{ url, want string }{
		{"/ring", "name a table"},
		{"/ring?table=ks.nosuch", "table ks.nosuch does not exist"},
		{"/ring?table=ks.users&nodes=99", "nodes must be a number from 1 to 10"},
		{"/ring?table=ks.users&nodes=2&rf=3", "rf must be a number from 1 to 2"},
		{"/partition?table=ks.users&key=" + strings.Repeat("x", 70000), "key: a partition key is at most 65535 bytes, this one 70000"},
		{"/ring?table=ks.users&vnodes=0", "vnodes must be a number from 1 to 256"},
	} {
		code, _, body := get(t, h, tc.url)
		assert.Equal(t, 400, code, tc.url)
		assert.Contains(t, body, tc.want, tc.url)
	}
}

// TestEscaping writes keys and values with markup: the pages show them as
// text.
func TestEscaping(t *testing.T) {
	db, err := minicass.Open(minicass.Options{})
	require.NoError(t, err)
	defer db.Close()
	ctx := context.Background()
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.t (k text, c text, v text, PRIMARY KEY (k, c))`))
	require.NoError(t, db.Exec(ctx, `INSERT INTO ks.t (k, c, v) VALUES ('<script>x</script>', '<b>', '"&')`))
	require.NoError(t, db.Flush(ctx, "ks", "t"))
	require.NoError(t, db.Exec(ctx, `INSERT INTO ks.t (k, c, v) VALUES ('<script>x</script>', '<b>2', '"&')`))
	require.NoError(t, db.Flush(ctx, "ks", "t"))
	require.NoError(t, db.Compact(ctx, "ks", "t"))
	h := New(db, Options{}).Handler()
	for _, url := range []string{"/ring?table=ks.t", "/partition?table=ks.t", "/partition?table=ks.t&key=%3Cscript%3Ex%3C/script%3E", "/histograms?table=ks.t",
		"/sstable?table=ks.t", "/sstable?table=ks.t&key=%3Cscript%3Ex%3C/script%3E", "/compactions?table=ks.t",
		"/order?table=ks.t&other=ks.t&key=%3Cscript%3Ex%3C/script%3E"} {
		code, _, body := get(t, h, url)
		require.Equal(t, 200, code, body)
		assert.NotContains(t, body, "<script>x", url)
		assert.NotContains(t, body, "<b>&#39;", url)
	}
}

// TestServeLoopbackOnly refuses an address other machines could reach.
func TestServeLoopbackOnly(t *testing.T) {
	db, err := minicass.Open(minicass.Options{})
	require.NoError(t, err)
	defer db.Close()
	for _, addr := range []string{"0.0.0.0:0", ":0", "10.0.0.1:0", "example.com:80", "nonsense"} {
		_, err := Serve(db, addr, Options{})
		assert.Error(t, err, addr)
	}
	srv, err := Serve(db, "127.0.0.1:0", Options{})
	require.NoError(t, err)
	resp, err := http.Get(srv.URL())
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	require.NoError(t, srv.Close())
}
