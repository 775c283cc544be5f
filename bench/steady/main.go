// Command steady runs a sustained load against a real `minicass serve
// --data` process and reports, second by second, what issue 19 asks of a
// server under load: throughput that holds (every second against the median
// and the first ten seconds), the server's resident memory against its
// configured memtable space, and the commit log's size.
//
//	go run ./bench/steady [-duration 2m] [-clients 64] [-reads 0.25]
//	                      [-memtable 256MiB] [-minicass PATH] [-json FILE]
//	                      [-serve-flags "--pprof 127.0.0.1:6060 ..."]
//
// It builds cmd/minicass unless -minicass names a binary, starts it on a
// fresh data directory with --memtable_heap_space, connects gocql clients,
// and runs prepared INSERTs and SELECTs (a fraction -reads of them) on
//
//	CREATE TABLE steady.t (k text, c int, v text, PRIMARY KEY (k, c))
//
// spread over -partitions partitions, rows of a 100-byte value. The server's
// RSS is read from /proc/PID/status once a second (Linux only). The verdicts
// printed at the end are issue 19's: throughput within 25% of the first 10 s,
// no second below half the median, RSS within 1.5x the memtable space plus a
// constant given by -rss-constant.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
)

// second is one second of the run.
type second struct {
	At       int   `json:"at"` // seconds since the load started
	Ops      int64 `json:"ops"`
	Errors   int64 `json:"errors"`
	RSSBytes int64 `json:"rss_bytes"`
	// AnonBytes is the anonymous part of RSS (the heap and stacks), the
	// rest being file pages mapped in (the commit log's mapped segments).
	AnonBytes int64   `json:"rss_anon_bytes"`
	LogBytes  int64   `json:"commitlog_bytes"`
	DataBytes int64   `json:"data_bytes"`
	P99Micros float64 `json:"p99_us"`
	// ServerCPU and ClientCPU are the CPU seconds (user and system) the
	// server process and this process used in the second: on a shared
	// machine the CPU per operation is steadier than the operations.
	ServerCPU float64 `json:"server_cpu_s"`
	ClientCPU float64 `json:"client_cpu_s"`
	// Load1 is the machine's one-minute load average at the second's end.
	Load1 float64 `json:"load1"`
}

// report is what a run measured.
type report struct {
	Clients       int      `json:"clients"`
	ReadFraction  float64  `json:"read_fraction"`
	MemtableBytes int64    `json:"memtable_heap_space"`
	Seconds       []second `json:"seconds"`
	MedianOps     float64  `json:"median_ops"`
	First10Ops    float64  `json:"first_10s_ops"`
	MinOps        int64    `json:"min_ops"`
	MaxRSS        int64    `json:"max_rss_bytes"`
	MaxLog        int64    `json:"max_commitlog_bytes"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "steady:", err)
		os.Exit(1)
	}
}

func run() error {
	duration := flag.Duration("duration", 2*time.Minute, "how long the load runs")
	clients := flag.Int("clients", 64, "concurrent clients (goroutines over one gocql session)")
	reads := flag.Float64("reads", 0.25, "fraction of operations that are SELECTs of one partition's latest 10 rows")
	partitions := flag.Int("partitions", 10000, "partitions the writes spread over")
	memtable := flag.String("memtable", "256MiB", "the server's --memtable_heap_space")
	rssConstant := flag.Int64("rss-constant", 128<<20, "the constant of the RSS verdict, in bytes (runtime, caches, connections)")
	bin := flag.String("minicass", "", "minicass binary (default: go build ./cmd/minicass)")
	jsonOut := flag.String("json", "", "write the report as JSON to this file")
	serveFlags := flag.String("serve-flags", "", "more flags for minicass serve, separated by spaces (e.g. \"--pprof 127.0.0.1:6060 --compaction_throughput 16MiB/s\")")
	flag.Parse()

	memBytes, err := parseMiB(*memtable)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "steady")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if *bin == "" {
		*bin = filepath.Join(tmp, "minicass")
		if out, err := exec.Command("go", "build", "-o", *bin, "./cmd/minicass").CombinedOutput(); err != nil {
			return fmt.Errorf("building minicass: %v\n%s", err, out)
		}
	}
	dataDir := filepath.Join(tmp, "data")
	srv, addr, err := startServe(*bin, dataDir, *memtable, strings.Fields(*serveFlags))
	if err != nil {
		return err
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()

	sess, err := connect(addr, *clients)
	if err != nil {
		return err
	}
	defer sess.Close()
	for _, q := range []string{
		"CREATE KEYSPACE IF NOT EXISTS steady WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE IF NOT EXISTS steady.t (k text, c int, v text, PRIMARY KEY (k, c))",
	} {
		if err := sess.Query(q).Exec(); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}

	var ops, errs atomic.Int64
	lat := newLatencies()
	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	value := strings.Repeat("v", 100)
	var wg sync.WaitGroup
	for i := range *clients {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 19))
			c := 0
			for ctx.Err() == nil {
				k := "p" + strconv.Itoa(rng.IntN(*partitions))
				start := time.Now()
				var err error
				if rng.Float64() < *reads {
					iter := sess.Query("SELECT c, v FROM steady.t WHERE k = ? ORDER BY c DESC LIMIT 10", k).WithContext(ctx).Iter()
					var cc int
					var v string
					for iter.Scan(&cc, &v) {
					}
					err = iter.Close()
				} else {
					c++
					err = sess.Query("INSERT INTO steady.t (k, c, v) VALUES (?, ?, ?)", k, int(seed)<<20|c, value).WithContext(ctx).Exec()
				}
				if ctx.Err() != nil {
					return
				}
				if err != nil {
					errs.Add(1)
					continue
				}
				lat.add(time.Since(start))
				ops.Add(1)
			}
		}(uint64(i))
	}

	rep := report{Clients: *clients, ReadFraction: *reads, MemtableBytes: memBytes}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var lastOps, lastErrs int64
	lastSrvCPU, lastCliCPU := cpuSeconds(srv.Process.Pid), cpuSeconds(os.Getpid())
	for at := 1; ; at++ {
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
		if ctx.Err() != nil {
			break
		}
		o, e := ops.Load(), errs.Load()
		total, anon := rss(srv.Process.Pid)
		s := second{At: at, Ops: o - lastOps, Errors: e - lastErrs, RSSBytes: total, AnonBytes: anon,
			LogBytes: dirSize(filepath.Join(dataDir, "commitlog")), DataBytes: dirSize(filepath.Join(dataDir, "data")),
			P99Micros: lat.p99AndReset(), Load1: load1()}
		srvCPU, cliCPU := cpuSeconds(srv.Process.Pid), cpuSeconds(os.Getpid())
		s.ServerCPU, s.ClientCPU = srvCPU-lastSrvCPU, cliCPU-lastCliCPU
		lastSrvCPU, lastCliCPU = srvCPU, cliCPU
		lastOps, lastErrs = o, e
		rep.Seconds = append(rep.Seconds, s)
		fmt.Printf("%4ds %8d ops/s %5d errors  p99 %8.0f µs  rss %7.1f MiB (anon %7.1f)  commitlog %7.1f MiB  data %7.1f MiB  server cpu %4.2f (%5.1f µs/op) client cpu %4.2f  load %.1f\n",
			s.At, s.Ops, s.Errors, s.P99Micros, mib(s.RSSBytes), mib(s.AnonBytes), mib(s.LogBytes), mib(s.DataBytes),
			s.ServerCPU, s.ServerCPU*1e6/float64(max(s.Ops, 1)), s.ClientCPU, s.Load1)
	}
	wg.Wait()
	summarize(&rep, *rssConstant)
	if *jsonOut != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// summarize fills the report's figures and prints them with issue 19's
// verdicts.
func summarize(rep *report, rssConstant int64) {
	if len(rep.Seconds) == 0 {
		fmt.Println("no complete second was measured")
		return
	}
	var all []int64
	var first10 int64
	n10 := 0
	rep.MinOps = rep.Seconds[0].Ops
	var maxAnon int64
	for _, s := range rep.Seconds {
		maxAnon = max(maxAnon, s.AnonBytes)
		all = append(all, s.Ops)
		rep.MinOps = min(rep.MinOps, s.Ops)
		rep.MaxRSS = max(rep.MaxRSS, s.RSSBytes)
		rep.MaxLog = max(rep.MaxLog, s.LogBytes)
		if s.At <= 10 {
			first10 += s.Ops
			n10++
		}
	}
	slices.Sort(all)
	rep.MedianOps = float64(all[len(all)/2])
	if len(all)%2 == 0 {
		rep.MedianOps = float64(all[len(all)/2-1]+all[len(all)/2]) / 2
	}
	rep.First10Ops = float64(first10) / float64(n10)
	var last10 int64
	tail := rep.Seconds[max(0, len(rep.Seconds)-10):]
	for _, s := range tail {
		last10 += s.Ops
	}
	last10Ops := float64(last10) / float64(len(tail))
	cpuPerOp := func(ss []second) float64 {
		var cpu float64
		var ops int64
		for _, s := range ss {
			cpu += s.ServerCPU
			ops += s.Ops
		}
		return cpu * 1e6 / float64(max(ops, 1))
	}
	var loads []float64
	for _, s := range rep.Seconds {
		loads = append(loads, s.Load1)
	}
	slices.Sort(loads)
	rssBound := float64(rep.MemtableBytes)*1.5 + float64(rssConstant)
	fmt.Printf("\nmedian %.0f ops/s, first 10 s %.0f ops/s, last 10 s %.0f ops/s, slowest second %d ops/s\n",
		rep.MedianOps, rep.First10Ops, last10Ops, rep.MinOps)
	fmt.Printf("server CPU per operation: first 10 s %.1f µs, last 10 s %.1f µs; load average %.1f-%.1f (median %.1f)\n",
		cpuPerOp(rep.Seconds[:n10]), cpuPerOp(tail), loads[0], loads[len(loads)-1], loads[len(loads)/2])
	fmt.Printf("max RSS %.1f MiB, of it anonymous %.1f MiB (memtable space %.0f MiB), max commit log %.1f MiB (mapped segments are preallocated)\n",
		mib(rep.MaxRSS), mib(maxAnon), mib(rep.MemtableBytes), mib(rep.MaxLog))
	verdict := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "NO"
	}
	fmt.Printf("last 10 s within 25%% of the first 10 s: %s (%.2f)\n", verdict(last10Ops >= 0.75*rep.First10Ops), last10Ops/rep.First10Ops)
	fmt.Printf("no second slower than half the median:   %s (slowest %.2f of the median)\n", verdict(float64(rep.MinOps) >= rep.MedianOps/2), float64(rep.MinOps)/rep.MedianOps)
	fmt.Printf("RSS within 1.5x memtable space + %.0f MiB: %s (%.1f of %.1f MiB)\n", mib(rssConstant), verdict(float64(rep.MaxRSS) <= rssBound), mib(rep.MaxRSS), rssBound/(1<<20))
}

// startServe starts minicass serve on dir, with the flags extra besides
// its own, and returns it with the address
// it listens on.
func startServe(bin, dir, memtable string, extra []string) (*exec.Cmd, string, error) {
	args := append([]string{"serve", "--data", dir, "--listen", "127.0.0.1:0", "--memtable_heap_space", memtable, "--log-level", "warn"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		return nil, "", fmt.Errorf("reading serve's first line: %w", err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	_, rest, ok := strings.Cut(line, "listening on ")
	if !ok {
		_ = cmd.Process.Kill()
		return nil, "", fmt.Errorf("unexpected first line from serve: %q", line)
	}
	addr, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
	return cmd, addr, nil
}

func connect(addr string, clients int) (*gocql.Session, error) {
	host, port, ok := strings.Cut(addr, ":")
	if !ok {
		return nil, fmt.Errorf("bad address %q", addr)
	}
	cluster := gocql.NewCluster(host)
	cluster.Port, _ = strconv.Atoi(port)
	cluster.ProtoVersion = 4
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	cluster.Consistency = gocql.One
	cluster.NumConns = max(2, clients/32)
	cluster.WriteCoalesceWaitTime = 0
	return cluster.CreateSession()
}

// latencies keeps one second's latencies for its 99th percentile.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func newLatencies() *latencies { return &latencies{} }

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

func (l *latencies) p99AndReset() float64 {
	l.mu.Lock()
	d := l.d
	l.d = make([]time.Duration, 0, len(d))
	l.mu.Unlock()
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return float64(d[len(d)*99/100]) / 1e3
}

// rss returns the resident set size of process pid and its anonymous part,
// zeros where /proc does not tell.
func rss(pid int) (total, anon int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, v, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "RssAnon") {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if name == "VmRSS" {
			total = kb << 10
		} else {
			anon = kb << 10
		}
	}
	return total, anon
}

// cpuSeconds returns the user and system CPU seconds process pid has used
// (fields 14 and 15 of /proc/PID/stat, in clock ticks of 1/100 s), 0 where
// /proc does not tell.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return float64(utime+stime) / 100
}

// load1 returns the one-minute load average, 0 where /proc does not tell.
func load1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// dirSize returns the bytes of the files under dir (0 if it is missing).
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return filepath.SkipDir
			}
			return nil
		}
		if info, err := d.Info(); err == nil && !d.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}

func parseMiB(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSuffix(s, "MiB"), 10, 64)
	if err != nil || !strings.HasSuffix(s, "MiB") {
		return 0, fmt.Errorf("-memtable %q: want a size in MiB, such as 256MiB", s)
	}
	return n << 20, nil
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
