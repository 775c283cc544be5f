package studio

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/minicass/minicass/internal/browsertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStudioInBrowser opens every view of the classroom scenario in
// headless chromium: each loads with no console error, its script runs,
// it shows the expected elements (the hot partition's dot, the most loaded
// node among the hot key's replicas, the partition's rows, the limits), and
// the ring redraws by itself after a write. With MINICASS_STUDIO_SCREENSHOTS
// set to a directory, it saves a screenshot of each view there (docs/studio
// holds them).
func TestStudioInBrowser(t *testing.T) {
	db, clock := scenario(t)
	wideScenario(t, db)
	compactionScenario(t, db, clock)
	orderScenario(t, db)
	readScenario(t, db)
	srv, err := Serve(db, "127.0.0.1:0", Options{})
	require.NoError(t, err)
	defer srv.Close()

	browser := browsertest.Start(t, 90*time.Second, chromedp.WindowSize(1200, 900))
	bctx := browser.Ctx
	shots := os.Getenv("MINICASS_STUDIO_SCREENSHOTS")
	open := func(name, url string) {
		t.Helper()
		require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(srv.URL()+url), chromedp.WaitReady("body")))
		ready, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.documentElement.getAttribute("data-ready")`))
		require.NoError(t, err)
		assert.Equal(t, "true", ready, "%s: the page's script ran", url)
		if shots != "" {
			png, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644))
		}
	}
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Evaluate[string](expr))
		require.NoError(t, err, expr)
		return v
	}
	visible := func(sel string) bool {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`(function(){var e=document.querySelector(`+"`"+sel+"`"+`);if(!e)return false;var r=e.getBoundingClientRect();return r.width>0&&r.height>0})()`))
		require.NoError(t, err, sel)
		return v
	}

	open("index", "/")
	assert.True(t, visible(`#tables a[href="/ring?table=ks.users"]`))

	open("ring", "/ring?table=ks.users&key=ACTIVE")
	assert.True(t, visible("svg#ring circle.hot"), "the hot partition's dot is drawn")
	assert.Equal(t, "31", eval(`String(document.querySelectorAll("svg#ring circle.partition").length)`))
	hotR := eval(`document.querySelector("circle.hot").getAttribute("r")`)
	otherR := eval(`document.querySelector("circle.partition:not(.hot)").getAttribute("r")`)
	assert.NotEqual(t, hotR, otherR, "the hot partition's dot is larger")
	replicas := eval(`document.getElementById("replicas").textContent`)
	maxNode := eval(`document.querySelector("#load tr.max-load").getAttribute("data-node")`)
	assert.Contains(t, replicas, maxNode, "the most loaded node holds the hot partition")

	// A write redraws the ring: the page polls the table's version.
	require.NoError(t, db.Exec(context.Background(), `INSERT INTO ks.users (status, at, name) VALUES ('NEW', 1, 'n')`))
	deadline := time.Now().Add(30 * time.Second)
	n := ""
	for time.Now().Before(deadline) {
		v, err := chromedp.Run(bctx, chromedp.Evaluate[string](`String(document.querySelectorAll("svg#ring circle.partition").length)`))
		if err == nil && v == "32" {
			n = v
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	assert.Equal(t, "32", n, "the ring shows the new partition after the write")

	open("partition", "/partition?table=ks.users&key=ACTIVE")
	assert.True(t, visible(`#rows tr.row`))
	assert.Equal(t, "600", eval(`String(document.querySelectorAll("#rows tr.row").length)`))
	assert.True(t, visible(`#rows .cell.expiring`), "the TTL'd version is shown")
	assert.True(t, visible(`#rows .cell.shadowed`), "the shadowed version is shown")

	open("partition-deleted", "/partition?table=ks.users&key=GONE")
	assert.True(t, visible(`#deletions li.tombstone`))

	open("histograms", "/histograms?table=ks.users")
	assert.Equal(t, "2", eval(`String(document.querySelectorAll("svg#histograms line.limit").length)`))
	assert.True(t, visible(`svg#histograms rect.hbar`))

	open("sstable", "/sstable?table=ks.wide")
	assert.True(t, visible(`svg#anatomy rect.stream-partition.wide`), "the wide partition stands out in the stream")
	assert.True(t, visible(`#row-index-svg rect.index-block`), "its row index is drawn")
	assert.True(t, visible(`#components tr.component`))
	assert.True(t, visible(`#bloom-fill`))

	open("compactions", "/compactions?table=ks.events")
	assert.True(t, visible(`svg#compactions g.sst-out.live`), "the compaction's output is drawn")
	assert.Equal(t, "2", eval(`String(document.querySelectorAll("svg#compactions g.sst-in").length)`))
	assert.True(t, visible(`#history tr.compaction td.removed`))

	open("order", "/order?table=ks.readings_asc&other=ks.readings_desc&key=s1&limit=3")
	assert.True(t, visible(`svg#order rect.orow.first`))
	assert.Equal(t, "6", eval(`String(document.querySelectorAll("svg#order rect.orow.first").length)`))
	firstRows := `Array.from(document.querySelectorAll(".first-rows")).map(function(e){return e.textContent}).join(" | ")`
	assert.Equal(t, "returns (1), (2), (3) | returns (10), (9), (8)", eval(firstRows))
	// A write to the second table redraws the page: the page follows both.
	require.NoError(t, db.Exec(context.Background(), `INSERT INTO ks.readings_desc (sensor, at, v) VALUES ('s1', 11, 11)`))
	got := ""
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if v, err := chromedp.Run(bctx, chromedp.Evaluate[string](firstRows)); err == nil {
			if got = v; got == "returns (1), (2), (3) | returns (11), (10), (9)" {
				break
			}
		}
	}
	assert.Equal(t, "returns (1), (2), (3) | returns (11), (10), (9)", got, "the DESC table shows the new reading first after the write")

	open("read", readURL(`SELECT * FROM ks.kv WHERE k = 'a'`))
	assert.True(t, visible(`svg#read g.source.read[data-kind="memtable"]`), "the memtable is read")
	assert.Equal(t, "1", eval(`String(document.querySelectorAll("svg#read g.source.read[data-kind=sstable]").length)`), "one SSTable is read")
	assert.Equal(t, "bloom filter ×1", eval(`document.querySelector("svg#read g.source.skipped text.why").textContent`), "the other is skipped by its bloom filter")
	assert.Equal(t, "5", eval(`document.getElementById("result-count").textContent`))
	// A write redraws the read: the page runs the statement again.
	require.NoError(t, db.Exec(context.Background(), `INSERT INTO ks.kv (k, c, v) VALUES ('a', 9, 'newer')`))
	count := ""
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if v, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.getElementById("result-count").textContent`)); err == nil {
			if count = v; count == "6" {
				break
			}
		}
	}
	assert.Equal(t, "6", count, "the read shows the new row after the write")
	assert.Equal(t, "2 row versions", eval(`document.querySelectorAll("svg#read g.source.read[data-kind=memtable] text")[2].textContent`), "the memtable now holds two of the rows")

	assert.Empty(t, browser.Problems(), "the pages must load with no console error")
}
