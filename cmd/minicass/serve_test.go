package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServe(t *testing.T) {
	var out, errw syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	code := make(chan int, 1)
	go func() {
		code <- serveMain(ctx, []string{"--memory", "--listen", "127.0.0.1:0"}, stdio{in: strings.NewReader(""), out: &out, err: &errw}, ready)
	}()
	var addr *net.TCPAddr
	select {
	case a := <-ready:
		addr = a.(*net.TCPAddr)
	case c := <-code:
		t.Fatalf("serve exited with %d: %s", c, errw.String())
	}
	assert.Contains(t, out.String(), "listening on "+addr.String())

	cluster := gocql.NewCluster(addr.IP.String())
	cluster.Port = addr.Port
	cluster.Timeout = 5 * time.Second
	sess, err := cluster.CreateSession()
	require.NoError(t, err)
	var rpc net.IP
	require.NoError(t, sess.Query("SELECT rpc_address FROM system.local").Scan(&rpc))
	assert.Equal(t, "127.0.0.1", rpc.String())
	sess.Close()

	cancel()
	assert.Equal(t, 0, <-code, errw.String())
	assert.Contains(t, out.String(), "stopped")
}

func TestServeFlags(t *testing.T) {
	code, _, errs := runArgs("serve", "--data", "x", "--memory")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "exclusive")
	code, _, errs = runArgs("serve", "--auth", "nopassword")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "user:password")
}
