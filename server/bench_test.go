package server_test

import (
	"context"
	"encoding/binary"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/server/frame"
	"github.com/minicass/minicass/wire"
)

// staticBackend answers every request with a fixed, shared result and
// allocates nothing itself, so that a benchmark's allocations are the
// server's (the benchmark clients below allocate nothing per request).
type staticBackend struct{}

type staticSession struct{}

var (
	staticVoid = &server.Result{Kind: wire.ResultVoid}
	staticRows = &server.Result{Kind: wire.ResultRows, Columns: kvCols,
		Rows: [][][]byte{{intBytes(1), []byte("value")}}}
	staticPrepared = &server.Prepared{ID: []byte("0123456789abcdef"), Bind: kvCols, PKIndexes: []uint16{0}}
)

func (staticBackend) NewSession(context.Context, server.ConnInfo) server.Session {
	return staticSession{}
}

func (staticSession) Query(context.Context, string, *server.QueryParams) (*server.Result, error) {
	return staticRows, nil
}

func (staticSession) Prepare(context.Context, string, string) (*server.Prepared, error) {
	return staticPrepared, nil
}

func (staticSession) Execute(_ context.Context, _ []byte, p *server.QueryParams) (*server.Result, error) {
	if len(p.Values) == 1 {
		return staticRows, nil
	}
	return staticVoid, nil
}

func (staticSession) Batch(context.Context, *server.BatchRequest) (*server.Result, error) {
	return staticVoid, nil
}

// cpuTime returns the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process CPU time per operation since start (client
// and server): on a shared machine it is steadier than ns/op.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e3, "cpu-µs/op")
}

// executeFrame encodes an EXECUTE of the static prepared id on stream with
// the given number of values: 2 values is an "INSERT" answered Void, 1 a
// "SELECT" answered with one row.
func executeFrame(tb testing.TB, stream int16, values int) []byte {
	p := frame.QueryParams{Consistency: wire.One, HasTimestamp: true, DefaultTimestamp: 1}
	p.Values = append(p.Values, intBytes(7))
	if values == 2 {
		p.Values = append(p.Values, []byte("value"))
	} else {
		p.SkipMetadata = true
	}
	b, err := (&frame.Frame{Header: frame.Header{Version: frame.VersionRequest, Stream: stream},
		Message: &frame.Execute{ID: staticPrepared.ID, Params: p}}).AppendTo(nil)
	require.NoError(tb, err)
	return b
}

// readResponse reads one response frame into buf without allocating and
// returns its stream and opcode.
func readResponse(r io.Reader, buf []byte) (int16, frame.Opcode, error) {
	if _, err := io.ReadFull(r, buf[:frame.HeaderSize]); err != nil {
		return 0, 0, err
	}
	stream := int16(binary.BigEndian.Uint16(buf[2:4]))
	op := frame.Opcode(buf[4])
	n := binary.BigEndian.Uint32(buf[5:9])
	if _, err := io.ReadFull(r, buf[:n]); err != nil {
		return 0, 0, err
	}
	return stream, op, nil
}

// BenchmarkServerExecute measures one EXECUTE round trip at a time over
// loopback TCP against a backend that does no work: the cost of the frame
// codec, the connection loop and the syscalls. allocs/op are the server's.
func BenchmarkServerExecute(b *testing.B) {
	for _, bc := range []struct {
		name   string
		values int
	}{{"insert", 2}, {"select", 1}} {
		b.Run(bc.name, func(b *testing.B) {
			srv := start(b, staticBackend{}, server.Options{})
			c := dial(b, srv)
			c.startup()
			req := executeFrame(b, 1, bc.values)
			buf := make([]byte, 4096)
			b.ReportAllocs()
			defer reportCPU(b, cpuTime())
			for b.Loop() {
				if _, err := c.nc.Write(req); err != nil {
					b.Fatal(err)
				}
				if _, op, err := readResponse(c.br, buf); err != nil || op != frame.OpResult {
					b.Fatal(op, err)
				}
			}
		})
	}
}

// BenchmarkServerExecutePipelined keeps 64 EXECUTEs in flight on one
// connection, as a driver multiplexing 64 goroutines does: it measures the
// server's throughput and how well it batches responses into few writes.
func BenchmarkServerExecutePipelined(b *testing.B) {
	const inFlight = 64
	srv := start(b, staticBackend{}, server.Options{})
	c := dial(b, srv)
	c.startup()
	reqs := make([][]byte, inFlight)
	for i := range reqs {
		reqs[i] = executeFrame(b, int16(i), 2)
	}
	buf := make([]byte, 4096)
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b, cpuTime())
	// The writer sends b.N requests, never more than inFlight ahead of the
	// responses read; each response frees its stream for the next request.
	free := make(chan int16, inFlight)
	for i := range inFlight {
		free <- int16(i)
	}
	done := make(chan error, 1)
	go func() {
		for range b.N {
			s := <-free
			if _, err := c.nc.Write(reqs[s]); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for range b.N {
		s, op, err := readResponse(c.br, buf)
		if err != nil || op != frame.OpResult {
			b.Fatal(op, err)
		}
		free <- s
	}
	require.NoError(b, <-done)
}
