package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/require"
)

// crashModel is what the writers of TestServeCrashCycles were told: what
// was acknowledged must survive a kill -9, what was only attempted may or
// may not have.
type crashModel struct {
	mu sync.Mutex
	// rows: key -> acknowledged value; deleted: keys whose DELETE was
	// acknowledged; maybeDeleted: keys whose DELETE was sent, not acknowledged.
	rows         map[int]string
	deleted      map[int]bool
	maybeDeleted map[int]bool
	// counters and list appends per key: acknowledged and attempted.
	counterAcked, counterTried map[int]int64
	appendAcked, appendTried   map[int]int
}

// TestServeCrashCycles kills a real `minicass serve --data` (commit log in
// batch mode) with SIGKILL while concurrent gocql writers insert rows,
// delete some, increment counters and append to lists, with a flush through
// nodetool in the middle of each cycle (so SSTables accumulate and compact).
// After each restart every acknowledged write is there, every acknowledged
// DELETE holds, and each counter and list lies between what was acknowledged
// and what was attempted. The seed is printed.
func TestServeCrashCycles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and kills it several times")
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "data")
	m := &crashModel{rows: map[int]string{}, deleted: map[int]bool{}, maybeDeleted: map[int]bool{},
		counterAcked: map[int]int64{}, counterTried: map[int]int64{}, appendAcked: map[int]int{}, appendTried: map[int]int{}}
	const cycles = 4
	for cycle := 0; cycle <= cycles; cycle++ {
		cmd, addr := startServe(t, bin, dir)
		sess := crashSession(t, addr)
		if cycle == 0 {
			for _, q := range []string{
				"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
				"CREATE TABLE ks.kv (k int PRIMARY KEY, v text)",
				"CREATE TABLE ks.hits (k int PRIMARY KEY, n counter)",
				"CREATE TABLE ks.lists (k int PRIMARY KEY, l list<int>)",
			} {
				require.NoError(t, sess.Query(q).Exec(), q)
			}
		}
		m.check(t, sess, cycle)
		if cycle == cycles {
			sess.Close()
			require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
			_ = cmd.Wait()
			break
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				m.write(sess, stop, cycle*1_000_000+w*100_000)
			}()
		}
		time.Sleep(time.Duration(150+rng.IntN(200)) * time.Millisecond)
		out, err := exec.Command(bin, "nodetool", "--data", dir, "flush").CombinedOutput()
		require.NoError(t, err, "%s", out)
		time.Sleep(time.Duration(100+rng.IntN(300)) * time.Millisecond)
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait() // killed: the exit error is expected
		close(stop)
		wg.Wait()
		sess.Close()
	}
}

// write runs one writer until stop or its first error (the server was
// killed), recording what was acknowledged and what was attempted.
func (m *crashModel) write(sess *gocql.Session, stop chan struct{}, base int) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		k := base + i
		v := "v" + strconv.Itoa(k)
		if err := sess.Query("INSERT INTO ks.kv (k, v) VALUES (?, ?)", k, v).Exec(); err != nil {
			return // not acknowledged: the row may or may not be there, and nothing checks it
		}
		m.mu.Lock()
		m.rows[k] = v
		m.mu.Unlock()
		if i%7 == 3 {
			d := k - 2
			m.mu.Lock()
			_, inserted := m.rows[d]
			if inserted {
				m.maybeDeleted[d] = true
			}
			m.mu.Unlock()
			if !inserted {
				continue
			}
			if err := sess.Query("DELETE FROM ks.kv WHERE k = ?", d).Exec(); err != nil {
				return
			}
			m.mu.Lock()
			m.deleted[d] = true
			m.mu.Unlock()
		}
		c := k % 10
		m.mu.Lock()
		m.counterTried[c]++
		m.appendTried[c]++
		m.mu.Unlock()
		if err := sess.Query("UPDATE ks.hits SET n = n + 1 WHERE k = ?", c).Exec(); err != nil {
			return
		}
		m.mu.Lock()
		m.counterAcked[c]++
		m.mu.Unlock()
		if err := sess.Query("UPDATE ks.lists SET l = l + [?] WHERE k = ?", k, c).Exec(); err != nil {
			return
		}
		m.mu.Lock()
		m.appendAcked[c]++
		m.mu.Unlock()
	}
}

// check reads everything back and holds it against the model.
func (m *crashModel) check(t *testing.T, sess *gocql.Session, cycle int) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	got := map[int]string{}
	iter := sess.Query("SELECT k, v FROM ks.kv").PageSize(5000).Iter()
	var k int
	var v string
	for iter.Scan(&k, &v) {
		got[k] = v
	}
	require.NoError(t, iter.Close())
	for k, v := range m.rows {
		switch {
		case m.deleted[k]:
			require.NotContains(t, got, k, "cycle %d: acknowledged DELETE of %d lost", cycle, k)
		case m.maybeDeleted[k]:
			if g, ok := got[k]; ok {
				require.Equal(t, v, g, "cycle %d: key %d", cycle, k)
			}
		default:
			require.Equal(t, v, got[k], "cycle %d: acknowledged INSERT of %d lost", cycle, k)
		}
	}
	for c := range 10 {
		var n int64
		err := sess.Query("SELECT n FROM ks.hits WHERE k = ?", c).Scan(&n)
		if err != nil && !errors.Is(err, gocql.ErrNotFound) {
			require.NoError(t, err)
		}
		require.GreaterOrEqual(t, n, m.counterAcked[c], "cycle %d: counter %d lost acknowledged increments", cycle, c)
		require.LessOrEqual(t, n, m.counterTried[c], "cycle %d: counter %d has increments never sent", cycle, c)
		// An increment that was not acknowledged but did land is now
		// known: count it as acknowledged from here on.
		m.counterAcked[c], m.counterTried[c] = n, n
		var l []int
		err = sess.Query("SELECT l FROM ks.lists WHERE k = ?", c).Scan(&l)
		if err != nil && !errors.Is(err, gocql.ErrNotFound) {
			require.NoError(t, err)
		}
		require.GreaterOrEqual(t, len(l), m.appendAcked[c], "cycle %d: list %d lost acknowledged appends", cycle, c)
		require.LessOrEqual(t, len(l), m.appendTried[c], "cycle %d: list %d has appends never sent", cycle, c)
		m.appendAcked[c], m.appendTried[c] = len(l), len(l)
	}
	// What was uncertain is now settled by what the restart read.
	for k := range m.maybeDeleted {
		if _, ok := got[k]; !ok {
			m.deleted[k] = true
		}
		delete(m.maybeDeleted, k)
	}
	t.Logf("cycle %d: %d rows, %d deleted, all acknowledged writes present", cycle, len(got), len(m.deleted))
}

// startServe starts `minicass serve --data dir` with the commit log in
// batch mode (each write acknowledged once synced) and small memtables,
// and returns it with its address.
func startServe(t *testing.T, bin, dir string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--data", dir, "--listen", "127.0.0.1:0", "--commitlog_sync", "batch",
		"--memtable_heap_space", "8MiB", "--log-level", "warn")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	_, rest, ok := strings.Cut(line, "listening on ")
	require.True(t, ok, line)
	addr, _, _ := strings.Cut(rest, " ")
	return cmd, addr
}

func crashSession(t *testing.T, addr string) *gocql.Session {
	t.Helper()
	host, port, ok := strings.Cut(addr, ":")
	require.True(t, ok, addr)
	cluster := gocql.NewCluster(host)
	cluster.Port, _ = strconv.Atoi(port)
	cluster.ProtoVersion = 4
	cluster.Timeout = 5 * time.Second
	cluster.ConnectTimeout = 5 * time.Second
	cluster.Consistency = gocql.One
	cluster.WriteCoalesceWaitTime = 0
	cluster.DefaultTimestamp = false // the server stamps writes, in order
	cluster.RetryPolicy = nil
	sess, err := cluster.CreateSession()
	require.NoError(t, err, fmt.Sprintf("connecting to %s", addr))
	return sess
}
