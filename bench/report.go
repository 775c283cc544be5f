package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"
)

// Write prints results in format "table" (aligned columns, one line per
// workload) or "json" (an indented array of Result). It returns an error
// wrapping ErrUnknownFormat for another format.
//
// The table's columns are the workload and its sizes, the subject's store,
// operations, operations per second and p50/p99 latencies, the same for the
// peer, and the ratio of their times per operation ("3.10x": the subject
// takes 3.1 times as long per operation as the peer; "-" without a peer).
func Write(w io.Writer, format string, results []Result) error {
	switch format {
	case "json":
		if results == nil {
			results = []Result{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(results)
	case "table", "":
		return writeTable(w, results)
	}
	return fmt.Errorf("%w: %q (want table or json)", ErrUnknownFormat, format)
}

func writeTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tparams\tstore\tops\tops/s\tp50\tp99\tpeer\tpeer ops/s\tpeer p50\tpeer p99\tratio\t")
	for _, r := range results {
		name := r.Workload
		if r.Flushed {
			name += " (sstables)"
		}
		s := r.Subject
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t", name, r.Params, s.Store, s.Ops,
			formatRate(s.OpsPerSec), formatLatency(s.P50), formatLatency(s.P99))
		if p := r.Peer; p != nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", p.Store, formatRate(p.OpsPerSec),
				formatLatency(p.P50), formatLatency(p.P99), formatRatio(r.Ratio))
		} else {
			fmt.Fprint(tw, "-\t-\t-\t-\t-\t\n")
		}
	}
	return tw.Flush()
}

// formatRate prints an operations-per-second figure with three significant
// digits and a k/M suffix: 812345 -> "812k".
func formatRate(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', sigDecimals(v/1e6), 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', sigDecimals(v/1e3), 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', sigDecimals(v), 64)
}

// sigDecimals returns the decimals that print v (1 <= v < 1000) with three
// significant digits.
func sigDecimals(v float64) int {
	switch {
	case v >= 100:
		return 0
	case v >= 10:
		return 1
	}
	return 2
}

// formatLatency prints a latency with three significant digits in ns, µs,
// ms or s: 1234ns -> "1.23µs".
func formatLatency(d time.Duration) string {
	v := float64(d)
	switch {
	case d >= time.Second:
		return strconv.FormatFloat(v/1e9, 'f', 2, 64) + "s"
	case d >= time.Millisecond:
		return strconv.FormatFloat(v/1e6, 'f', sigDecimals(v/1e6), 64) + "ms"
	case d >= time.Microsecond:
		return strconv.FormatFloat(v/1e3, 'f', sigDecimals(v/1e3), 64) + "µs"
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}

// formatRatio prints a ratio as "3.10x", "-" for none.
func formatRatio(r float64) string {
	if r == 0 {
		return "-"
	}
	return strconv.FormatFloat(r, 'f', 2, 64) + "x"
}
