// Package browsertest starts Debian's chromium headless for the browser
// tests (the benchmark report, the studio) and collects what the pages it
// opens report as problems: console errors and warnings, uncaught
// exceptions, and log entries at error or warning level.
//
// Nothing downloads a browser: without /usr/bin/chromium (or chromium on
// the PATH) the test is skipped, unless MINICASS_BROWSER_TEST=require (as
// .ci/run sets) makes that a failure.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// ChromiumPath is Debian's chromium, which .ci/run installs.
const ChromiumPath = "/usr/bin/chromium"

// Browser is a headless chromium and the problems its pages reported.
type Browser struct {
	// Ctx runs chromedp actions in the browser's tab.
	Ctx context.Context

	mu       sync.Mutex
	problems []string
}

// Start starts chromium for t, for at most timeout, with opts added to the
// headless defaults; it is stopped when t ends. With -short, or without
// chromium (unless required), t is skipped.
func Start(t testing.TB, timeout time.Duration, opts ...chromedp.ExecAllocatorOption) *Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a browser; skipped with -short")
	}
	path := ChromiumPath
	if _, err := os.Stat(path); err != nil {
		if p, lerr := exec.LookPath("chromium"); lerr == nil {
			path = p
		} else if os.Getenv("MINICASS_BROWSER_TEST") == "require" {
			t.Fatalf("chromium not found at %s and MINICASS_BROWSER_TEST=require", ChromiumPath)
		} else {
			t.Skipf("chromium not found at %s: install Debian's chromium (apt-get install chromium; .ci/run does) to run the browser test", ChromiumPath)
		}
	}
	all := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.Flag("headless", true), chromedp.UserDataDir(t.TempDir()))
	all = append(all, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, all...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc(); cancel() })
	b := &Browser{Ctx: bctx}
	require.NoError(t, chromedp.Do(bctx), "starting %s", path)
	require.NoError(t, chromedp.Listen(bctx, b.listen))
	return b
}

func (b *Browser) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value))
			}
			b.problems = append(b.problems, fmt.Sprintf("console.%s: %v", ev.Type, args))
		}
	case *runtime.EventExceptionThrown:
		b.problems = append(b.problems, "exception: "+ev.ExceptionDetails.Text)
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
			b.problems = append(b.problems, fmt.Sprintf("log %s: %s (%s)", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
		}
	}
}

// Problems returns what the pages reported so far.
func (b *Browser) Problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}
