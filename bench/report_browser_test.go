package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromiumPath is Debian's chromium, which .ci/run installs. Nothing
// downloads a browser: without it the test is skipped, unless
// MINICASS_BROWSER_TEST=require (as .ci/run sets) makes that a failure.
const chromiumPath = "/usr/bin/chromium"

// TestReportInBrowser opens an HTML report in headless chromium and checks
// that it loads with no console error or exception, that its script ran
// and that its charts are drawn.
func TestReportInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser; skipped with -short")
	}
	path := chromiumPath
	if _, err := os.Stat(path); err != nil {
		if p, lerr := exec.LookPath("chromium"); lerr == nil {
			path = p
		} else if os.Getenv("MINICASS_BROWSER_TEST") == "require" {
			t.Fatalf("chromium not found at %s and MINICASS_BROWSER_TEST=require", chromiumPath)
		} else {
			t.Skipf("chromium not found at %s: install Debian's chromium (apt-get install chromium; .ci/run does) to run the browser test", chromiumPath)
		}
	}
	var page bytes.Buffer
	rep := syntheticReport()
	require.NoError(t, WriteHTML(&page, rep))
	file := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, os.WriteFile(file, page.Bytes(), 0o644))

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.Flag("headless", true), chromedp.UserDataDir(t.TempDir()))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()

	var mu sync.Mutex
	var problems []string
	require.NoError(t, chromedp.Do(bctx), "starting %s", path)
	require.NoError(t, chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value))
				}
				problems = append(problems, fmt.Sprintf("console.%s: %v", ev.Type, args))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				problems = append(problems, fmt.Sprintf("log %s: %s (%s)", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		}
	}))
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
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, problems, "the report must load with no console error")
	assert.Equal(t, "true", ready, "the report's script ran to its end")
	// A latency and a throughput chart per op (insert, latest-5) and state
	// (memtable, compacted), and the sweep's one curve set (latest-5,
	// compacted).
	assert.Equal(t, 2.0*2*2+1, charts)
	assert.Positive(t, lines)
	assert.Positive(t, peersShown)
	assert.Zero(t, peersAfter, "unticking the box hides the peers' ratios")
}
