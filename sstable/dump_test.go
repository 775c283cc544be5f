package sstable

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/vfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJavaInstant(t *testing.T) {
	for _, tc := range []struct {
		sec, nanos int64
		want       string
	}{
		{0, 0, "1970-01-01T00:00:00Z"},
		{1710496801, 123000, "2024-03-15T10:00:01.000123Z"},
		{1710496801, 100000000, "2024-03-15T10:00:01.100Z"},
		{1710496801, 1, "2024-03-15T10:00:01.000000001Z"},
		{253402300800, 0, "+10000-01-01T00:00:00Z"},
		{maxInstantSeconds + 1, 0, "31556889864403200"},
	} {
		assert.Equal(t, tc.want, javaInstant(tc.sec, tc.nanos), "%d.%09d", tc.sec, tc.nanos)
	}
	d := &dumper{}
	// TimeUnit truncates seconds toward zero while the fraction is a floor
	// modulus: Cassandra prints -1µs as 00:00:00.999999, and so do we.
	assert.Equal(t, "1970-01-01T00:00:00.999999Z", d.micros(-1))
	assert.Equal(t, "2024-03-15T10:00:00Z", d.seconds(1710496800))
	d.opts.RawTimestamps = true
	assert.Equal(t, "-1", d.micros(-1))
}

func TestJavaFloat(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0.0", 1: "1.0", 21.5: "21.5", 1e7: "1.0E7", 1.5e-4: "1.5E-4", 0.001: "0.001",
		-123456.25: "-123456.25", math.Inf(1): "Infinity", math.NaN(): "NaN", 1e21: "1.0E21",
	} {
		assert.Equal(t, want, types.JavaFloat(f, 64), "%v", f)
	}
	assert.Equal(t, "0.1", types.JavaFloat(float64(float32(0.1)), 32))
}

func TestTypeString(t *testing.T) {
	lit := func(ty types.Type, s string) []byte {
		b, err := types.ParseLiteral(ty, s)
		require.NoError(t, err)
		return b
	}
	for _, tc := range []struct {
		ty   types.Type
		lit  string
		want string
	}{
		{types.TextType, "'héllo \"x\"'", `héllo "x"`},
		{types.IntType, "-42", "-42"},
		{types.BooleanType, "true", "true"},
		{types.BlobType, "0xCAFE", "cafe"},
		{types.TimestampType, "'2024-03-15T10:00:00.123Z'", "2024-03-15T10:00:00.123Z"},
		{types.DateType, "'2024-03-15'", "2024-03-15"},
		{types.InetType, "'::1'", "0:0:0:0:0:0:0:1"},
		{types.InetType, "'10.0.0.1'", "10.0.0.1"},
		{types.DoubleType, "3.0", "3.0"},
		{types.UUIDType, "123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-426614174000"},
	} {
		assert.Equal(t, tc.want, typeString(tc.ty, lit(tc.ty, tc.lit)), "%s %s", tc.ty, tc.lit)
	}
	assert.Equal(t, "ff", typeString(types.IntType, []byte{0xff}), "invalid bytes print in hex")
	assert.Equal(t, "", typeString(types.IntType, []byte{}))
}

func TestCQLName(t *testing.T) {
	assert.Equal(t, "v_1", cqlName("v_1"))
	assert.Equal(t, `"Note"`, cqlName("Note"))
	assert.Equal(t, `"a""b"`, cqlName(`a"b`))
	assert.Equal(t, `"1a"`, cqlName("1a"))
}

func TestJSONStringEscapes(t *testing.T) {
	got := string(appendJavaString(nil, "a\"\\\b\t\n\f\r\x01\x7fé/<\xff"))
	assert.Equal(t, `"a\"\\\b\t\n\f\r\u0001`+"\x7f"+`é/<`+"\uFFFD"+`"`, got)
	var back string
	require.NoError(t, json.Unmarshal([]byte(got), &back), "the escapes are valid JSON")
}

// dumpTable returns a table with one partition (int key, int clustering)
// holding n rows, and its schema.
func dumpTable(t *testing.T, n int) (*Reader, *schema.Table) {
	t.Helper()
	tbl := schema.NewTable("ks", "t", data.TableID{}, []*schema.Column{
		{Name: "k", Type: types.IntType, Kind: schema.PartitionKey},
		{Name: "c", Type: types.IntType, Kind: schema.Clustering},
		{Name: "v", Type: types.TextType, Kind: schema.Regular, Position: -1},
	}, schema.DefaultOptions())
	fs := vfs.NewMem()
	key := []byte{0, 0, 0, 1}
	var rows []data.Row
	for i := 0; i < n; i++ {
		ck, err := types.EncodeClustering(tbl.ClusteringTypes(), [][]byte{{0, 0, 0, byte(i)}})
		require.NoError(t, err)
		r := data.NewRow(ck)
		r.Liveness = data.LivenessInfo{Timestamp: 1, ExpiresAt: data.NoDeletionTime}
		r.Cells = []data.Cell{{Column: "v", Timestamp: 1, LocalDeletionTime: data.NoDeletionTime, Value: []byte("x\ny")}}
		rows = append(rows, r)
	}
	writeTable(t, fs, "", 1, WriterOptions{}, []testPartition{{token: 5, key: key, del: data.LiveDeletion, rows: rows}})
	r, err := Open(fs, "", 1, ReaderOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, r.Close()) })
	return r, tbl
}

// TestDumpIsJSON checks that both output forms parse as JSON with the
// expected structure, whatever the pretty printing.
func TestDumpIsJSON(t *testing.T) {
	r, tbl := dumpTable(t, 3)
	var b bytes.Buffer
	require.NoError(t, Dump(&b, r, tbl, DumpOptions{Now: time.Unix(0, 0)}))
	var parts []struct {
		Partition struct {
			Key      []string `json:"key"`
			Position int      `json:"position"`
		} `json:"partition"`
		Rows []struct {
			Type       string `json:"type"`
			Clustering []int  `json:"clustering"`
			Cells      []struct {
				Name  string `json:"name"`
				Value string `json:"value"`
			} `json:"cells"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &parts), b.String())
	require.Len(t, parts, 1)
	assert.Equal(t, []string{"1"}, parts[0].Partition.Key)
	require.Len(t, parts[0].Rows, 3)
	assert.Equal(t, []int{2}, parts[0].Rows[2].Clustering)
	assert.Equal(t, "x\ny", parts[0].Rows[2].Cells[0].Value)
	assert.False(t, strings.HasSuffix(b.String(), "\n"), "Jackson writes no trailing newline")

	b.Reset()
	require.NoError(t, Dump(&b, r, tbl, DumpOptions{JSONLines: true}))
	lines := strings.Split(b.String(), "\n")
	require.Len(t, lines, 1)
	var one map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &one))
}

type failWriter struct{ n int }

var errSink = errors.New("sink full")

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errSink
}

func TestDumpErrors(t *testing.T) {
	r, tbl := dumpTable(t, 2)
	err := Dump(&bytes.Buffer{}, r, nil, DumpOptions{})
	assert.ErrorIs(t, err, ErrInvalidOptions)
	assert.ErrorIs(t, Dump(&failWriter{}, r, tbl, DumpOptions{}), errSink)

	// A schema whose clustering does not match the data is reported, not
	// printed as garbage.
	wrong := schema.NewTable("ks", "t", data.TableID{}, []*schema.Column{
		{Name: "k", Type: types.IntType, Kind: schema.PartitionKey},
		{Name: "c", Type: types.TextType, Kind: schema.Clustering},
		{Name: "d", Type: types.TextType, Kind: schema.Clustering, Position: 1},
	}, schema.DefaultOptions())
	err = Dump(&bytes.Buffer{}, r, wrong, DumpOptions{})
	assert.ErrorIs(t, err, types.ErrInvalidKey)
}

// TestStaticRowClustering checks the static-row contract shared with the
// memtable: whatever empty clustering the writer is given, the reader
// returns the row as package cql builds it (data.NewRow(nil)), and a static
// row with a clustering key is refused.
func TestStaticRowClustering(t *testing.T) {
	for _, ck := range [][]byte{nil, {}} {
		fs := vfs.NewMem()
		st := data.NewRow(ck)
		st.Cells = []data.Cell{{Column: "s", Timestamp: 3, LocalDeletionTime: data.NoDeletionTime, Value: []byte("S")}}
		writeTable(t, fs, "", 1, WriterOptions{}, []testPartition{{token: 1, key: []byte("k"), del: data.LiveDeletion, static: &st}})
		r, err := Open(fs, "", 1, ReaderOptions{})
		require.NoError(t, err)
		p, found, err := r.GetPartition(1, []byte("k"))
		require.NoError(t, err)
		require.True(t, found)
		want := data.NewRow(nil)
		want.Cells = st.Cells
		assert.Equal(t, &want, p.Static())
		assert.Nil(t, p.Static().Clustering)
		require.NoError(t, r.Close())
	}
	w, err := NewWriter(vfs.NewMem(), "", 1, WriterOptions{})
	require.NoError(t, err)
	bad := data.NewRow([]byte{0x80})
	assert.ErrorIs(t, w.BeginPartition(1, []byte("k"), data.LiveDeletion, &bad, nil), ErrWriterState)
	require.NoError(t, w.Abort())
}

// BenchmarkDump measures Dump of one partition of 1,000 rows.
func BenchmarkDump(b *testing.B) {
	r, tbl := dumpTableB(b)
	var buf bytes.Buffer
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf.Reset()
		if err := Dump(&buf, r, tbl, DumpOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

func dumpTableB(b *testing.B) (*Reader, *schema.Table) {
	tbl := schema.NewTable("ks", "t", data.TableID{}, []*schema.Column{
		{Name: "k", Type: types.IntType, Kind: schema.PartitionKey},
		{Name: "c", Type: types.IntType, Kind: schema.Clustering},
		{Name: "v", Type: types.TextType, Kind: schema.Regular, Position: -1},
	}, schema.DefaultOptions())
	fs := vfs.NewMem()
	var rows []data.Row
	for i := 0; i < 1000; i++ {
		ck, err := types.EncodeClustering(tbl.ClusteringTypes(), [][]byte{{0, 0, byte(i >> 8), byte(i)}})
		require.NoError(b, err)
		r := data.NewRow(ck)
		r.Liveness = data.LivenessInfo{Timestamp: 1, ExpiresAt: data.NoDeletionTime}
		r.Cells = []data.Cell{{Column: "v", Timestamp: 2, LocalDeletionTime: data.NoDeletionTime, Value: []byte("value")}}
		rows = append(rows, r)
	}
	writeTable(b, fs, "", 1, WriterOptions{}, []testPartition{{token: 5, key: []byte{0, 0, 0, 1}, del: data.LiveDeletion, rows: rows}})
	r, err := Open(fs, "", 1, ReaderOptions{})
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, r.Close()) })
	return r, tbl
}

// TestDumpUserTypeCells checks a non-frozen user type's cells: each path is
// the field's name and each value is written with the field's type.
func TestDumpUserTypeCells(t *testing.T) {
	addr := types.UserTypeOf(&types.UserType{Keyspace: "ks", Name: "address", Fields: []string{"street", "zip"}},
		[]types.Type{types.TextType, types.IntType}, false)
	tbl := schema.NewTable("ks", "t", data.TableID{}, []*schema.Column{
		{Name: "k", Type: types.IntType, Kind: schema.PartitionKey},
		{Name: "a", Type: addr, Kind: schema.Regular, Position: -1},
	}, schema.DefaultOptions())
	fs := vfs.NewMem()
	ck, err := types.EncodeClustering(tbl.ClusteringTypes(), nil)
	require.NoError(t, err)
	r := data.NewRow(ck)
	r.Liveness = data.LivenessInfo{Timestamp: 1, ExpiresAt: data.NoDeletionTime}
	r.Cells = []data.Cell{
		{Column: "a", Path: types.FieldPath(0), Timestamp: 1, LocalDeletionTime: data.NoDeletionTime, Value: []byte("main")},
		{Column: "a", Path: types.FieldPath(1), Timestamp: 1, LocalDeletionTime: data.NoDeletionTime, Value: []byte{0, 0, 0, 7}},
	}
	writeTable(t, fs, "", 1, WriterOptions{}, []testPartition{{token: 5, key: []byte{0, 0, 0, 1}, del: data.LiveDeletion, rows: []data.Row{r}}})
	rd, err := Open(fs, "", 1, ReaderOptions{})
	require.NoError(t, err)
	defer func() { require.NoError(t, rd.Close()) }()
	var b bytes.Buffer
	require.NoError(t, Dump(&b, rd, tbl, DumpOptions{JSONLines: true}))
	assert.Contains(t, b.String(), `{"name":"a","path":["street"],"value":"main"},{"name":"a","path":["zip"],"value":7}`)
}
