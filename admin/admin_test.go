package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/admin"
	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/server/cqlbackend"
)

type fixture struct {
	db  *minicass.DB
	srv *server.Server
	url string
}

func start(t *testing.T, manual bool) *fixture {
	t.Helper()
	var clock *minicass.ManualClock
	opts := minicass.Options{}
	if manual {
		clock = minicass.NewManualClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
		opts.Clock = clock
	}
	db, err := minicass.Open(opts)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	srv := server.New(cqlbackend.New(db.Executor()), server.Options{})
	ep, err := admin.Listen("127.0.0.1:0", admin.Options{DB: db, Server: srv, Clock: clock})
	require.NoError(t, err)
	t.Cleanup(func() { ep.Close() })
	return &fixture{db: db, srv: srv, url: ep.URL()}
}

func (f *fixture) call(t *testing.T, method, path string, body any) (int, map[string]any, []any) {
	t.Helper()
	var buf bytes.Buffer
	if body != nil {
		require.NoError(t, json.NewEncoder(&buf).Encode(body))
	}
	req, err := http.NewRequestWithContext(context.Background(), method, f.url+path, &buf)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var v any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&v))
	obj, _ := v.(map[string]any)
	list, _ := v.([]any)
	return resp.StatusCode, obj, list
}

func TestListenLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0"} {
		_, err := admin.Listen(addr, admin.Options{})
		assert.ErrorIs(t, err, admin.ErrNotLoopback, addr)
	}
	_, err := admin.Listen("nonsense", admin.Options{})
	assert.Error(t, err)
}

func TestFaultsOverHTTP(t *testing.T) {
	f := start(t, false)
	code, obj, _ := f.call(t, "POST", "/faults", map[string]any{"prefix": "INSERT", "times": 2, "kinds": []string{"write"},
		"consistencies": []string{"local_quorum"},
		"error":         map[string]any{"code": "write_timeout", "consistency": "QUORUM", "received": 1, "block_for": 2, "write_type": "SIMPLE"}})
	require.Equal(t, http.StatusOK, code, obj)
	id := obj["id"]
	faults := f.srv.Faults()
	require.Len(t, faults, 1)
	r := faults[0].Rule()
	assert.Equal(t, "INSERT", r.Prefix)
	assert.Equal(t, 2, r.Times)
	assert.Equal(t, []server.RequestKind{server.KindWrite}, r.Kinds)
	assert.Equal(t, "SIMPLE", r.Error.WriteType)
	assert.Equal(t, int32(2), r.Error.BlockFor)

	_, _, list := f.call(t, "GET", "/faults", nil)
	require.Len(t, list, 1)
	rule := list[0].(map[string]any)["rule"].(map[string]any)
	assert.Equal(t, "write_timeout", rule["error"].(map[string]any)["code"])
	assert.Equal(t, []any{"LOCAL_QUORUM"}, rule["consistencies"])

	code, _, _ = f.call(t, "DELETE", "/faults/"+jsonNumber(id), nil)
	assert.Equal(t, http.StatusOK, code)
	assert.Empty(t, f.srv.Faults())
	code, _, _ = f.call(t, "DELETE", "/faults/"+jsonNumber(id), nil)
	assert.Equal(t, http.StatusNotFound, code)

	for _, bad := range []map[string]any{
		{"pattern": "("},
		{"action": "explode"},
		{"kinds": []string{"sideways"}},
		{"error": map[string]any{"code": "nope"}},
		{"error": map[string]any{"code": 1e9}},
		{"error": map[string]any{"code": "unavailable", "consistency": "MOST"}},
		{"unknown_field": 1},
		{"action": "close", "error": map[string]any{"code": "overloaded"}},
	} {
		code, obj, _ := f.call(t, "POST", "/faults", bad)
		assert.Equal(t, http.StatusBadRequest, code, "%v", bad)
		assert.NotEmpty(t, obj["error"])
	}
	assert.Empty(t, f.srv.Faults(), "a refused rule installs nothing")
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestClockOverHTTP(t *testing.T) {
	f := start(t, true)
	_, obj, _ := f.call(t, "POST", "/clock/advance", map[string]any{"duration": "1h30m"})
	assert.Equal(t, "2024-01-01T01:30:00Z", obj["now"])
	_, obj, _ = f.call(t, "POST", "/clock/advance", map[string]any{"seconds": 0.5})
	assert.Equal(t, "2024-01-01T01:30:00.5Z", obj["now"])
	_, obj, _ = f.call(t, "POST", "/clock/set", map[string]any{"now": "2030-05-01T00:00:00Z"})
	assert.Equal(t, "2030-05-01T00:00:00Z", obj["now"])
	var now time.Time
	rows := f.db.Query(context.Background(), "SELECT toTimestamp(now()) FROM system.local")
	require.True(t, rows.Next())
	require.NoError(t, rows.Scan(&now))
	rows.Close()
	assert.Equal(t, time.Date(2030, 5, 1, 0, 0, 0, 0, time.UTC), now.UTC(), "the database runs on the clock set")
	code, _, _ := f.call(t, "POST", "/clock/advance", map[string]any{"seconds": -1})
	assert.Equal(t, http.StatusBadRequest, code)
	code, _, _ = f.call(t, "POST", "/clock/set", map[string]any{"now": "yesterday"})
	assert.Equal(t, http.StatusBadRequest, code)

	real := start(t, false)
	code, obj, _ = real.call(t, "GET", "/clock", nil)
	assert.Equal(t, http.StatusConflict, code)
	assert.Contains(t, obj["error"], "--manual-clock")
}

func TestSnapshotsAndLogOverHTTP(t *testing.T) {
	f := start(t, false)
	ctx := context.Background()
	require.NoError(t, f.db.Exec(ctx, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"))
	require.NoError(t, f.db.Exec(ctx, "CREATE TABLE ks.t (k int PRIMARY KEY)"))
	_, obj, _ := f.call(t, "POST", "/snapshots", nil)
	id := jsonNumber(obj["id"])
	require.NoError(t, f.db.Exec(ctx, "INSERT INTO ks.t (k) VALUES (1)"))
	code, _, _ := f.call(t, "POST", "/snapshots/"+id+"/restore", nil)
	require.Equal(t, http.StatusOK, code)
	rows := f.db.Query(ctx, "SELECT k FROM ks.t")
	assert.False(t, rows.Next(), "the row written after the snapshot is gone")
	rows.Close()
	code, _, _ = f.call(t, "DELETE", "/snapshots/"+id, nil)
	assert.Equal(t, http.StatusOK, code)
	code, _, _ = f.call(t, "POST", "/snapshots/"+id+"/restore", nil)
	assert.Equal(t, http.StatusNotFound, code)
	code, _, _ = f.call(t, "POST", "/reset", nil)
	require.Equal(t, http.StatusOK, code)
	assert.Error(t, f.db.Exec(ctx, "INSERT INTO ks.t (k) VALUES (1)"), "the keyspace is gone after a reset")

	code, _, _ = f.call(t, "GET", "/querylog", nil)
	assert.Equal(t, http.StatusConflict, code)
	f.call(t, "POST", "/querylog/start", nil)
	require.NoError(t, f.db.Exec(ctx, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"))
	_, _, list := f.call(t, "GET", "/querylog?all=1", nil)
	require.NotEmpty(t, list)
	assert.Contains(t, list[len(list)-1].(map[string]any)["query"], "CREATE KEYSPACE ks")
	_, _, list = f.call(t, "GET", "/querylog", nil)
	assert.Empty(t, list, "without all, only client requests")
	f.call(t, "POST", "/querylog/stop", nil)
	assert.Nil(t, f.db.Executor().QueryLog())
}
