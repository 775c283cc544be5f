package main

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/minicass/minicass/bench"
)

// newProgress returns the progress display of minicass bench --profile: a
// bar with the phase, its rate and ETA when w is a terminal, nothing
// otherwise (a log or a pipe gets only the results).
//
// The bar is github.com/schollz/progressbar/v3: one bar redrawn in place,
// throttled, sized to the terminal, with its rate and estimate built in,
// and small (its dependencies are x/term and two tiny text packages).
func newProgress(w io.Writer) bench.Progress {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &termProgress{w: w}
}

// termProgress draws one bar per phase.
type termProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
	n   int
}

func (p *termProgress) Start(label string, total int64) {
	p.n++
	p.bar = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(label),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("ops"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100_000_000),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionFullWidth(),
	)
}

func (p *termProgress) Set(done int64) {
	if p.bar != nil {
		p.bar.Set64(done)
	}
}

func (p *termProgress) Finish() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
}
