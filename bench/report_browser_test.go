package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/minicass/minicass/internal/browsertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReportInBrowser opens an HTML report in headless chromium and checks
// that it loads with no console error or exception, that its script ran
// and that its charts are drawn.
func TestReportInBrowser(t *testing.T) {
	var page bytes.Buffer
	rep := syntheticReport()
	require.NoError(t, WriteHTML(&page, rep))
	file := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, os.WriteFile(file, page.Bytes(), 0o644))

	browser := browsertest.Start(t, 60*time.Second)
	bctx := browser.Ctx
	require.NoError(t, chromedp.Do(bctx, chromedp.Navigate("file://"+file), chromedp.WaitReady("body")))
	eval := func(expr string) float64 {
		v, err := chromedp.Run(bctx, chromedp.Evaluate[float64](expr))
		require.NoError(t, err, expr)
		return v
	}
	ready, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.documentElement.getAttribute("data-ready")`))
	require.NoError(t, err)
	charts := eval(`Number(document.documentElement.getAttribute("data-charts"))`)
	lines := eval(`document.querySelectorAll("svg.chart polyline").length`)
	peersShown := eval(`document.querySelectorAll("#ratios li.peer:not(.hidden)").length`)
	eval(`document.getElementById("show-peers").click(), 0`)
	peersAfter := eval(`document.querySelectorAll("#ratios li.peer:not(.hidden)").length`)
	assert.Empty(t, browser.Problems(), "the report must load with no console error")
	assert.Equal(t, "true", ready, "the report's script ran to its end")
	// A latency and a throughput chart per op (insert, latest-5) and state
	// (memtable, compacted), and the sweep's one curve set (latest-5,
	// compacted).
	assert.Equal(t, 2.0*2*2+1, charts)
	assert.Positive(t, lines)
	assert.Positive(t, peersShown)
	assert.Zero(t, peersAfter, "unticking the box hides the peers' ratios")
}
