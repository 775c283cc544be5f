package cqlbackend_test

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/server/cqlbackend"
	"github.com/minicass/minicass/server/frame"
	"github.com/minicass/minicass/wire"
)

// benchDB opens an in-memory database with table ks.kv (k int, v text).
func benchDB(b *testing.B) *minicass.DB {
	db, err := minicass.Open(minicass.Options{})
	require.NoError(b, err)
	b.Cleanup(func() { db.Close() })
	ctx := context.Background()
	require.NoError(b, db.Exec(ctx, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"))
	require.NoError(b, db.Exec(ctx, "CREATE TABLE ks.kv (k int PRIMARY KEY, v text)"))
	require.NoError(b, db.Exec(ctx, "INSERT INTO ks.kv (k, v) VALUES (7, 'value')"))
	return db
}

var benchStatements = []struct {
	name, query string
	values      [][]byte
}{
	{"insert", "INSERT INTO ks.kv (k, v) VALUES (?, ?)", [][]byte{{0, 0, 0, 7}, []byte("value")}},
	{"select", "SELECT v FROM ks.kv WHERE k = ?", [][]byte{{0, 0, 0, 7}}},
}

// BenchmarkExecutorDirect executes the prepared statements on the executor
// itself: the floor under BenchmarkServerExecute.
func BenchmarkExecutorDirect(b *testing.B) {
	for _, st := range benchStatements {
		b.Run(st.name, func(b *testing.B) {
			db := benchDB(b)
			sess := db.Executor().NewSession()
			ctx := context.Background()
			prep, err := sess.Prepare(ctx, st.query)
			require.NoError(b, err)
			b.ReportAllocs()
			for b.Loop() {
				p := &cql.Params{Consistency: 1, Timestamp: 1, HasTimestamp: true, Values: make([]cql.Value, len(st.values))}
				for i, v := range st.values {
					p.Values[i].Bytes = v
				}
				if _, err := sess.Execute(ctx, prep.ID, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkServerExecute runs the prepared statements through the native
// protocol server and this backend over loopback TCP, one at a time, with a
// client that allocates nothing per request: allocs/op are the server's, the
// backend's and the executor's. Compare with BenchmarkExecutorDirect.
func BenchmarkServerExecute(b *testing.B) {
	for _, st := range benchStatements {
		b.Run(st.name, func(b *testing.B) {
			db := benchDB(b)
			l, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(b, err)
			srv := server.New(cqlbackend.New(db.Executor()), server.Options{})
			go srv.Serve(l)
			b.Cleanup(func() { srv.Close() })
			nc, err := net.Dial("tcp", l.Addr().String())
			require.NoError(b, err)
			defer nc.Close()

			buf := make([]byte, 64<<10)
			roundTrip := func(m frame.Message) frame.Message {
				req, err := (&frame.Frame{Header: frame.Header{Version: frame.VersionRequest}, Message: m}).AppendTo(nil)
				require.NoError(b, err)
				_, err = nc.Write(req)
				require.NoError(b, err)
				_, err = io.ReadFull(nc, buf[:frame.HeaderSize])
				require.NoError(b, err)
				h, _ := frame.ParseHeader(buf)
				_, err = io.ReadFull(nc, buf[:h.Length])
				require.NoError(b, err)
				f, err := frame.Decode(h, buf[:h.Length])
				require.NoError(b, err)
				return f.Message
			}
			require.IsType(b, &frame.Ready{}, roundTrip(&frame.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}}))
			res, ok := roundTrip(&frame.Prepare{Query: st.query}).(*frame.Result)
			require.True(b, ok)
			exec := &frame.Execute{ID: res.Prepared.ID, Params: frame.QueryParams{Consistency: wire.One, Values: st.values,
				SkipMetadata: true, HasTimestamp: true, DefaultTimestamp: 1}}
			req, err := (&frame.Frame{Header: frame.Header{Version: frame.VersionRequest, Stream: 1}, Message: exec}).AppendTo(nil)
			require.NoError(b, err)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := nc.Write(req); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(nc, buf[:frame.HeaderSize]); err != nil {
					b.Fatal(err)
				}
				if frame.Opcode(buf[4]) != frame.OpResult {
					b.Fatalf("opcode %s", frame.Opcode(buf[4]))
				}
				if _, err := io.ReadFull(nc, buf[:binary.BigEndian.Uint32(buf[5:9])]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
