package studio

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
)

// readScenario writes the read view's scenario into db: ks.kv's partition
// 'a' flushed into a first SSTable, forty other partitions flushed into a
// second, then one of a's rows overwritten in the memtable; and ks.items,
// forty partitions with a secondary index on their colour.
func readScenario(t testing.TB, db *minicass.DB) {
	t.Helper()
	ctx := context.Background()
	exec := func(q string, args ...any) { require.NoError(t, db.Exec(ctx, q, args...), q) }
	exec(`CREATE TABLE ks.kv (k text, c int, v text, PRIMARY KEY (k, c))`)
	for c := 0; c < 5; c++ {
		exec(`INSERT INTO ks.kv (k, c, v) VALUES ('a', ?, 'old')`, c)
	}
	require.NoError(t, db.Flush(ctx, "ks", "kv"))
	for i := 0; i < 40; i++ {
		exec(`INSERT INTO ks.kv (k, c, v) VALUES (?, 0, 'x')`, fmt.Sprintf("b%02d", i))
	}
	require.NoError(t, db.Flush(ctx, "ks", "kv"))
	exec(`UPDATE ks.kv SET v = 'new' WHERE k = 'a' AND c = 1`)

	exec(`CREATE TABLE ks.items (id int PRIMARY KEY, colour text)`)
	exec(`CREATE INDEX items_colour ON ks.items (colour)`)
	for i := 0; i < 40; i++ {
		colour := "blue"
		if i%10 == 0 {
			colour = "red"
		}
		exec(`INSERT INTO ks.items (id, colour) VALUES (?, ?)`, i, colour)
	}
}

func readURL(stmt string) string { return "/read?table=ks.kv&q=" + url.QueryEscape(stmt) }

func TestReadView(t *testing.T) {
	db, _ := scenario(t)
	readScenario(t, db)
	h := New(db, Options{}).Handler()

	code, _, body := get(t, h, readURL(`SELECT * FROM ks.kv WHERE k = 'a'`))
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `partition read of ks.kv: k = &#39;a&#39;`)
	sources := regexp.MustCompile(`<tr class="source (\w+)" data-source="([^"]+)"><td class="src">[^<]*</td><td>(\w+)</td><td class="num">(\d+)</td><td class="num">(\d+)</td><td class="why">([^<]*)</td>`).FindAllStringSubmatch(body, -1)
	require.Len(t, sources, 3, "the memtable and two SSTables: %s", body)
	assert.Equal(t, []string{"read", "memtable", "1", "1"}, []string{sources[0][1], sources[0][3], sources[0][4], sources[0][5]}, "the overwrite is in the memtable: one row")
	// The newest SSTable first: the forty other partitions, whose token
	// range covers 'a' but whose bloom filter rules it out; then a's.
	assert.Equal(t, []string{"skipped", "sstable", "0", "bloom filter ×1"}, []string{sources[1][1], sources[1][3], sources[1][4], sources[1][6]})
	assert.Equal(t, []string{"read", "sstable", "1", "5"}, []string{sources[2][1], sources[2][3], sources[2][4], sources[2][5]}, "a's 5 rows")
	assert.Regexp(t, `<td class="num">1</td><td class="num">6</td><td class="num">5</td><td class="num">6</td><td class="num">5</td>`, body, "1 partition, 6 row versions read, 5 rows returned, 6 cells read, 5 live")
	assert.Contains(t, body, `<span id="result-count">5</span> rows`)
	assert.Contains(t, body, `<td>new</td>`, "the overwrite wins")
	assert.Contains(t, body, `<pre id="trace">Executing single-partition query on kv`)

	// A range scan, and a filtered one: every partition read.
	_, _, body = get(t, h, readURL(`SELECT * FROM ks.kv`))
	assert.Contains(t, body, `range scan of 41 partitions of ks.kv`)
	_, _, body = get(t, h, readURL(`SELECT * FROM ks.kv WHERE v = 'new' ALLOW FILTERING`))
	assert.Contains(t, body, `filtered scan of 41 partitions of ks.kv — 45 rows tested against the filters, 1 kept`)
	assert.Contains(t, body, `<span id="result-count">1</span> rows`)
	// Over many partitions each source's skips are counted by reason.
	assert.Regexp(t, `<td class="why">[^<]*not present ×\d+`, body)

	// An indexed query reads the index, then only the four partitions its
	// entries name; the same query with ALLOW FILTERING on an unindexed
	// column would read all forty.
	_, _, body = get(t, h, "/read?q="+url.QueryEscape(`SELECT * FROM ks.items WHERE colour = 'red'`))
	assert.Contains(t, body, `index read through items_colour: 4 partitions of ks.items read — 4 rows tested against the filters, 4 kept`)
	assert.Contains(t, body, `data-access="index read"`)
	assert.Contains(t, body, `<span id="result-count">4</span> rows`)
	assert.Contains(t, body, `Executing read on ks.items using index items_colour`)

	// A refused read shows Cassandra's error; a write is not run.
	code, _, body = get(t, h, readURL(`SELECT * FROM ks.kv WHERE v = 'new'`))
	require.Equal(t, 200, code)
	assert.Contains(t, body, `<p id="error" class="tombstone">`)
	assert.Contains(t, body, `ALLOW FILTERING`)
	code, _, body = get(t, h, readURL(`DELETE FROM ks.kv WHERE k = 'a'`))
	assert.Equal(t, 400, code)
	assert.Contains(t, body, "SELECT statements only")
	n := db.Query(context.Background(), `SELECT * FROM ks.kv WHERE k = 'a'`)
	assert.Equal(t, 5, n.Len(), "the partition is still there")
	code, _, _ = get(t, h, readURL(`SELECT * FROM nope.t`))
	assert.Equal(t, 400, code)

	// The default statement reads the table's first partition.
	_, _, body = get(t, h, "/read?table=ks.kv")
	assert.Regexp(t, `<textarea name="q" id="q"[^>]*>SELECT \* FROM ks.kv WHERE k = &#39;[ab0-9]+&#39; LIMIT 10</textarea>`, body)
	// The picture alone, and the export.
	code, hdr, svg := get(t, h, "/read.svg?q="+url.QueryEscape(`SELECT * FROM ks.kv WHERE k = 'a'`))
	require.Equal(t, 200, code, svg)
	assert.Equal(t, "image/svg+xml", hdr.Get("Content-Type"))
	assert.Equal(t, 1, strings.Count(svg, `<g class="source skipped"`))
	_, _, body = get(t, h, readURL(`SELECT * FROM ks.kv WHERE k = 'a'`)+"&export=1")
	assert.NotContains(t, body, "fetch(")
}
