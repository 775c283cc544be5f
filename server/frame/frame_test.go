package frame

import (
	"encoding/hex"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.NewReplacer(" ", "", "|", "", "\n", "", "\t", "").Replace(s))
	require.NoError(t, err)
	return b
}

func encode(t testing.TB, f *Frame) []byte {
	t.Helper()
	b, err := f.AppendTo(nil)
	require.NoError(t, err)
	return b
}

func decode(t testing.TB, b []byte) *Frame {
	t.Helper()
	h, err := ParseHeader(b)
	require.NoError(t, err)
	require.Equal(t, int(h.Length), len(b)-HeaderSize, "header length")
	f, err := Decode(h, b[HeaderSize:])
	require.NoError(t, err)
	return f
}

// TestExactBytes checks encodings byte for byte against hand-assembled frames,
// starting with the QUERY example of cassandra-facts.md section 4.
func TestExactBytes(t *testing.T) {
	q := "SELECT release_version FROM system.local"
	tests := []struct {
		name string
		f    Frame
		hex  string
	}{
		{
			name: "query example",
			f:    Frame{Header: Header{Version: VersionRequest, Stream: 2}, Message: &Query{Query: q, Params: QueryParams{Consistency: wire.One}}},
			hex:  "04 00 0002 07 0000002f | 00000028" + hex.EncodeToString([]byte(q)) + "| 0001 | 00",
		},
		{
			name: "ready",
			f:    Frame{Header: Header{Version: VersionResponse, Stream: 1}, Message: &Ready{}},
			hex:  "84 00 0001 02 00000000",
		},
		{
			name: "options",
			f:    Frame{Header: Header{Version: VersionRequest, Stream: 0}, Message: &Options{}},
			hex:  "04 00 0000 05 00000000",
		},
		{
			name: "unavailable error with warning",
			f: Frame{Header: Header{Version: VersionResponse, Stream: 7}, Warnings: []string{"w"},
				Message: &Error{Code: wire.CodeUnavailable, Message: "x", Consistency: wire.Quorum, Required: 2, Alive: 1}},
			hex: "84 08 0007 00 00000016 | 0001 0001 77 | 00001000 0001 78 | 0004 00000002 00000001",
		},
		{
			name: "execute with unset, null and named values, page size, paging state, serial, timestamp",
			f: Frame{Header: Header{Version: VersionRequest, Stream: 3}, Message: &Execute{ID: []byte{0xab, 0xcd}, Params: QueryParams{
				Consistency: wire.LocalQuorum, Values: [][]byte{{1}, nil, nil}, Unset: []bool{false, false, true},
				Names: []string{"a", "b", "c"}, SkipMetadata: true, PageSize: 100, PagingState: []byte{9},
				SerialConsistency: wire.LocalSerial, DefaultTimestamp: 5, HasTimestamp: true,
			}}},
			hex: "04 00 0003 0a 00000032 | 0002 abcd | 0006 7f | 0003 | 0001 61 00000001 01 | 0001 62 ffffffff | 0001 63 fffffffe |" +
				"00000064 | 00000001 09 | 0009 | 0000000000000005",
		},
		{
			name: "rows with global table spec and paging state",
			f: Frame{Header: Header{Version: VersionResponse, Stream: 4}, Message: &Result{Kind: wire.ResultRows,
				Columns: []ColumnSpec{{Keyspace: "ks", Table: "t", Name: "k", Type: types.IntType}, {Keyspace: "ks", Table: "t", Name: "v", Type: types.ListOf(types.TextType, false)}},
				Rows:    [][][]byte{{{0, 0, 0, 1}, nil}}, PagingState: []byte{0xee}}},
			hex: "84 00 0004 08 00000034 | 00000002 | 00000003 00000002 00000001 ee | 0002 6b73 0001 74 |" +
				"0001 6b 0009 | 0001 76 0020 000d | 00000001 | 00000004 00000001 ffffffff",
		},
		{
			name: "prepared insert: pk index, no result metadata",
			f: Frame{Header: Header{Version: VersionResponse, Stream: 5}, Message: &Result{Kind: wire.ResultPrepared, Prepared: &Prepared{
				ID: []byte{1, 2}, Bind: []ColumnSpec{{Keyspace: "ks", Table: "t", Name: "k", Type: types.IntType}}, PKIndexes: []uint16{0}}}},
			hex: "84 00 0005 08 0000002a | 00000004 | 0002 0102 | 00000001 00000001 00000001 0000 | 0002 6b73 0001 74 | 0001 6b 0009 |" +
				"00000004 00000000",
		},
		{
			name: "schema change event on stream -1",
			f: Frame{Header: Header{Version: VersionResponse, Stream: -1}, Message: &Event{Type: "SCHEMA_CHANGE",
				Change: &wire.SchemaChange{Change: wire.Created, Target: wire.TargetTable, Keyspace: "ks", Name: "t"}}},
			hex: "84 00 ffff 0c 00000026 | 000d" + hex.EncodeToString([]byte("SCHEMA_CHANGE")) + "| 0007" +
				hex.EncodeToString([]byte("CREATED")) + "| 0005" + hex.EncodeToString([]byte("TABLE")) + "| 0002 6b73 | 0001 74",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			got := encode(t, &tt.f)
			require.Equal(t, hex.EncodeToString(want), hex.EncodeToString(got))
			back := decode(t, got)
			require.Equal(t, tt.f.Message, back.Message)
			require.Equal(t, tt.f.Warnings, back.Warnings)
		})
	}
}

// roundTripMessages holds one or more instances of every message type.
func roundTripMessages() []Frame {
	req := func(m Message) Frame { return Frame{Header: Header{Version: VersionRequest, Stream: 9}, Message: m} }
	resp := func(m Message) Frame { return Frame{Header: Header{Version: VersionResponse, Stream: 9}, Message: m} }
	allTypes := []ColumnSpec{
		{Keyspace: "ks", Table: "t1", Name: "a", Type: types.AsciiType}, {Keyspace: "ks", Table: "t1", Name: "b", Type: types.BigintType}, {Keyspace: "ks", Table: "t1", Name: "c", Type: types.BlobType},
		{Keyspace: "ks", Table: "t1", Name: "d", Type: types.BooleanType}, {Keyspace: "ks", Table: "t1", Name: "e", Type: types.CounterType}, {Keyspace: "ks", Table: "t1", Name: "f", Type: types.DecimalType},
		{Keyspace: "ks", Table: "t1", Name: "g", Type: types.DoubleType}, {Keyspace: "ks", Table: "t1", Name: "h", Type: types.FloatType}, {Keyspace: "ks", Table: "t1", Name: "i", Type: types.IntType},
		{Keyspace: "ks", Table: "t1", Name: "j", Type: types.TimestampType}, {Keyspace: "ks", Table: "t1", Name: "k", Type: types.UUIDType}, {Keyspace: "ks", Table: "t1", Name: "l", Type: types.TextType},
		{Keyspace: "ks", Table: "t1", Name: "m", Type: types.VarintType}, {Keyspace: "ks", Table: "t1", Name: "n", Type: types.TimeUUIDType}, {Keyspace: "ks", Table: "t1", Name: "o", Type: types.InetType},
		{Keyspace: "ks", Table: "t1", Name: "p", Type: types.DateType}, {Keyspace: "ks", Table: "t1", Name: "q", Type: types.TimeType}, {Keyspace: "ks", Table: "t1", Name: "r", Type: types.SmallintType},
		{Keyspace: "ks", Table: "t1", Name: "s", Type: types.TinyintType}, {Keyspace: "ks", Table: "t1", Name: "u", Type: types.DurationType},
		{Keyspace: "ks", Table: "t2", Name: "v", Type: types.MapOf(types.TextType, types.SetOf(types.IntType, false), false)},
		{Keyspace: "ks", Table: "t2", Name: "w", Type: types.TupleOf(types.IntType, types.ListOf(types.BlobType, false))},
		{Keyspace: "ks", Table: "t2", Name: "u", Type: types.UserTypeOf(&types.UserType{Keyspace: "ks", Name: "address", Fields: []string{"street", "zip"}},
			[]types.Type{types.TextType, types.SetOf(types.IntType, false)}, true)},
	}
	row := make([][]byte, len(allTypes))
	for i := range row {
		row[i] = []byte{byte(i)}
	}
	row[3] = nil
	row[4] = []byte{}
	return []Frame{
		req(&Startup{Options: map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": "snappy"}}),
		req(&Options{}),
		req(&Query{Query: "SELECT * FROM t WHERE k = ?", Params: QueryParams{Consistency: wire.Quorum, Values: [][]byte{{1, 2}}}}),
		req(&Query{Query: "SELECT", Params: QueryParams{Consistency: wire.One, PageSize: 5000, PagingState: []byte{}}}),
		req(&Prepare{Query: "INSERT INTO t (k) VALUES (?)"}),
		req(&Execute{ID: []byte{1, 2, 3}, Params: QueryParams{Consistency: wire.All, Values: [][]byte{nil, {}}, Unset: []bool{true, false}}}),
		req(&Register{Events: []string{"TOPOLOGY_CHANGE", "STATUS_CHANGE", "SCHEMA_CHANGE"}}),
		req(&AuthResponse{Token: []byte("\x00user\x00pass")}),
		req(&Batch{Type: BatchUnlogged, Consistency: wire.Quorum, SerialConsistency: wire.Serial, HasTimestamp: true, DefaultTimestamp: -7,
			NamesForValues: true, Entries: []BatchEntry{
				{Query: "INSERT INTO t (k) VALUES (?)", Values: [][]byte{{1}}},
				{ID: []byte{7, 7}, Values: [][]byte{nil, {2}}, Unset: []bool{true, false}},
				{Query: "DELETE FROM t WHERE k = 1", Values: [][]byte{}},
			}}),
		{Header: Header{Version: VersionRequest, Stream: 1, Flags: FlagTracing}, CustomPayload: map[string][]byte{"k": {1}},
			Message: &Query{Query: "x", Params: QueryParams{Consistency: wire.One, Tracing: true}}},
		resp(&Ready{}),
		resp(&Authenticate{Authenticator: "org.apache.cassandra.auth.PasswordAuthenticator"}),
		resp(&Supported{Options: map[string][]string{"CQL_VERSION": {"3.4.6"}, "COMPRESSION": {"snappy"}, "PROTOCOL_VERSIONS": {"4/v4"}}}),
		resp(&AuthChallenge{Token: []byte{1}}),
		resp(&AuthSuccess{}),
		resp(&Error{Code: wire.CodeServer, Message: "boom"}),
		resp(&Error{Code: wire.CodeProtocol, Message: "bad"}),
		resp(&Error{Code: wire.CodeUnavailable, Message: "u", Consistency: wire.Quorum, Required: 3, Alive: 1}),
		resp(&Error{Code: wire.CodeWriteTimeout, Message: "wt", Consistency: wire.One, Received: 0, BlockFor: 1, WriteType: "SIMPLE"}),
		resp(&Error{Code: wire.CodeReadTimeout, Message: "rt", Consistency: wire.One, Received: 0, BlockFor: 1, DataPresent: true}),
		resp(&Error{Code: wire.CodeReadFailure, Message: "rf", Consistency: wire.Two, Received: 1, BlockFor: 2, NumFailures: 1, DataPresent: true}),
		resp(&Error{Code: wire.CodeFunctionFailure, Message: "ff", Keyspace: "ks", Function: "f", ArgTypes: []string{"int"}}),
		resp(&Error{Code: wire.CodeWriteFailure, Message: "wf", Consistency: wire.All, Received: 1, BlockFor: 3, NumFailures: 2, WriteType: "BATCH"}),
		resp(&Error{Code: wire.CodeAlreadyExists, Message: "ae", Keyspace: "ks", Table: "t"}),
		resp(&Error{Code: wire.CodeUnprepared, Message: "up", UnpreparedID: []byte{0xde, 0xad}}),
		resp(&Result{Kind: wire.ResultVoid}),
		resp(&Result{Kind: wire.ResultRows, Columns: allTypes, Rows: [][][]byte{row, row}}),
		resp(&Result{Kind: wire.ResultRows, Columns: allTypes[:2], Rows: [][][]byte{}}),
		resp(&Result{Kind: wire.ResultRows, NoMetadata: true, PagingState: []byte{1, 2}, Rows: [][][]byte{}}),
		resp(&Result{Kind: wire.ResultSetKeyspace, Keyspace: "ks"}),
		resp(&Result{Kind: wire.ResultPrepared, Prepared: &Prepared{ID: []byte{1}, Bind: allTypes[:3], PKIndexes: []uint16{2, 0},
			ResultCols: allTypes[20:]}}),
		resp(&Result{Kind: wire.ResultPrepared, Prepared: &Prepared{ID: []byte{1}}}),
		resp(&Result{Kind: wire.ResultSchemaChange, Change: &wire.SchemaChange{Change: wire.Dropped, Target: wire.TargetKeyspace, Keyspace: "ks"}}),
		resp(&Result{Kind: wire.ResultSchemaChange, Change: &wire.SchemaChange{Change: wire.Updated, Target: wire.TargetType, Keyspace: "ks", Name: "addr"}}),
		resp(&Result{Kind: wire.ResultSchemaChange, Change: &wire.SchemaChange{Change: wire.Created, Target: wire.TargetFunction, Keyspace: "ks", Name: "f", Args: []string{"int", "text"}}}),
		resp(&Event{Type: "SCHEMA_CHANGE", Change: &wire.SchemaChange{Change: wire.Created, Target: wire.TargetAggregate, Keyspace: "ks", Name: "a", Args: []string{"int"}}}),
		resp(&Event{Type: "TOPOLOGY_CHANGE", Kind: "NEW_NODE", Addr: netip.MustParseAddrPort("10.0.0.1:9042")}),
		resp(&Event{Type: "STATUS_CHANGE", Kind: "DOWN", Addr: netip.MustParseAddrPort("[2001:db8::1]:9042")}),
		{Header: Header{Version: VersionResponse, Stream: 3}, TracingID: &[16]byte{1, 2, 3}, Warnings: []string{"a", "b"},
			CustomPayload: map[string][]byte{"x": nil, "y": {}}, Message: &Result{Kind: wire.ResultVoid}},
	}
}

func TestRoundTripEveryMessage(t *testing.T) {
	seen := map[Opcode]bool{}
	for _, f := range roundTripMessages() {
		t.Run(f.Message.Opcode().String(), func(t *testing.T) {
			b := encode(t, &f)
			back := decode(t, b)
			assert.Equal(t, f.Message, back.Message)
			assert.Equal(t, f.Warnings, back.Warnings)
			assert.Equal(t, f.CustomPayload, back.CustomPayload)
			assert.Equal(t, f.TracingID, back.TracingID)
			assert.Equal(t, f.Header.Stream, back.Header.Stream)
			seen[f.Message.Opcode()] = true
			if h, _ := ParseHeader(b); !h.IsResponse() {
				// DecodeRequest decodes the same message as Decode.
				m, err := DecodeRequest(h, b[HeaderSize:])
				require.NoError(t, err)
				assert.Equal(t, back.Message, m)
			}
			// Every strict prefix of the body fails cleanly, except where the
			// message legitimately ends early (empty bodies).
			for n := HeaderSize; n < len(b); n++ {
				h, _ := ParseHeader(b)
				_, err := Decode(h, b[HeaderSize:n])
				if err != nil {
					assert.True(t, errors.Is(err, ErrShortBuffer) || errors.Is(err, ErrInvalidValue) || errors.Is(err, ErrUnsupportedType), "prefix %d: %v", n, err)
				}
			}
		})
	}
	for op := OpError; op <= OpAuthSuccess; op++ {
		if op == 0x04 {
			continue // CREDENTIALS, v1 only
		}
		assert.True(t, seen[op], "no round trip for %s", op)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		h    Header
		body string
		want error
	}{
		{"response opcode as request", Header{Version: VersionRequest, Opcode: OpResult}, "", ErrUnknownOpcode},
		{"request opcode as response", Header{Version: VersionResponse, Opcode: OpQuery}, "", ErrUnknownOpcode},
		{"unknown opcode", Header{Version: VersionRequest, Opcode: 0x42}, "", ErrUnknownOpcode},
		{"negative long string", Header{Version: VersionRequest, Opcode: OpPrepare}, "ffffffff", ErrInvalidValue},
		{"value length -3", Header{Version: VersionRequest, Opcode: OpQuery}, "00000001 78 0001 01 0001 fffffffd", ErrInvalidValue},
		{"huge value count", Header{Version: VersionRequest, Opcode: OpQuery}, "00000001 78 0001 01 ffff", ErrShortBuffer},
		{"bad batch type", Header{Version: VersionRequest, Opcode: OpBatch}, "03 0000 0001 00", ErrInvalidValue},
		{"bad batch kind", Header{Version: VersionRequest, Opcode: OpBatch}, "00 0001 05 00000000 0000 0000 00", ErrInvalidValue},
		{"bad batch flags", Header{Version: VersionRequest, Opcode: OpBatch}, "00 0000 0001 01", ErrInvalidValue},
		{"unknown type id", Header{Version: VersionResponse, Opcode: OpResult}, "00000002 00000000 00000001 0000 0000 0000 0099", ErrUnsupportedType},
		{"custom type", Header{Version: VersionResponse, Opcode: OpResult}, "00000002 00000000 00000001 0000 0000 0000 0000 0001 78", ErrUnsupportedType},
		{"bad inet size", Header{Version: VersionResponse, Opcode: OpEvent}, "000d" + hex.EncodeToString([]byte("STATUS_CHANGE")) + "0002 5550 05", ErrInvalidValue},
		{"truncated uuid", Header{Version: VersionResponse, Opcode: OpReady, Flags: FlagTracing}, "0102", ErrShortBuffer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.h, unhex(t, tt.body))
			require.ErrorIs(t, err, tt.want)
		})
	}
}

func TestDeepTypeNestingRejected(t *testing.T) {
	// 40 nested lists exceed maxTypeDepth.
	body := "00000002 00000000 00000001 0000 0000 0000" + strings.Repeat("0020", 40) + "0009"
	_, err := Decode(Header{Version: VersionResponse, Opcode: OpResult}, unhex(t, body))
	require.ErrorIs(t, err, ErrInvalidValue)
}

func TestEncodeErrors(t *testing.T) {
	long := strings.Repeat("x", 70000)
	for _, m := range []Message{
		&Register{Events: []string{long}},
		&Result{Kind: wire.ResultRows, Columns: []ColumnSpec{{Name: "a", Type: types.IntType}}, Rows: [][][]byte{{}}},
		&Result{Kind: wire.ResultRows, Columns: []ColumnSpec{{Name: "a", Type: types.Type{Kind: types.List}}}},
		&Result{Kind: 99},
		&Result{Kind: wire.ResultPrepared},
		&Event{Type: "NOPE"},
	} {
		buf := []byte("keep")
		out, err := (&Frame{Header: Header{Version: VersionResponse}, Message: m}).AppendTo(buf)
		require.ErrorIs(t, err, ErrInvalidValue, "%T", m)
		require.Equal(t, "keep", string(out))
	}
}

// TestOpcodeString checks the opcode names; the consistency levels' names
// are tested in package wire.
func TestOpcodeString(t *testing.T) {
	assert.Equal(t, "QUERY", OpQuery.String())
	assert.Equal(t, "OPCODE(0x42)", Opcode(0x42).String())
}

func TestDecodeRequestRejectsResponses(t *testing.T) {
	b := encode(t, &Frame{Header: Header{Version: VersionResponse}, Message: &Ready{}})
	h, _ := ParseHeader(b)
	_, err := DecodeRequest(h, b[HeaderSize:])
	require.ErrorIs(t, err, ErrUnknownOpcode)
	// A truncated custom payload is reported, not skipped.
	_, err = DecodeRequest(Header{Version: VersionRequest, Flags: FlagCustomPayload, Opcode: OpOptions}, []byte{0, 1, 0})
	require.ErrorIs(t, err, ErrShortBuffer)
}

// TestResultEncodingAllocations checks that encoding a Result into a buffer
// with enough room allocates nothing: the server encodes one per request.
func TestResultEncodingAllocations(t *testing.T) {
	res := &Result{Kind: wire.ResultRows, Columns: []ColumnSpec{{Keyspace: "ks", Table: "t", Name: "v", Type: types.TextType}},
		Rows: [][][]byte{{[]byte("a")}, {nil}}}
	buf := make([]byte, 0, 512)
	allocs := testing.AllocsPerRun(100, func() {
		f := Frame{Header: Header{Version: VersionResponse, Stream: 3}, Message: res}
		if _, err := f.AppendTo(buf[:0]); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}

// TestPackedRowsEncoding checks that a Result whose rows are packed
// (Packed, the executor's packed form) is encoded byte for byte as the same
// rows given as Rows, and decodes back to them.
func TestPackedRowsEncoding(t *testing.T) {
	cols := []ColumnSpec{{Keyspace: "ks", Table: "t", Name: "k", Type: types.IntType}, {Keyspace: "ks", Table: "t", Name: "v", Type: types.TextType}}
	rows := [][][]byte{{{0, 0, 0, 7}, []byte("value")}, {{0, 0, 0, 8}, nil}, {{0, 0, 0, 9}, {}}}
	packed := []byte{
		0, 0, 0, 4, 0, 0, 0, 7, 0, 0, 0, 5, 'v', 'a', 'l', 'u', 'e',
		0, 0, 0, 4, 0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff,
		0, 0, 0, 4, 0, 0, 0, 9, 0, 0, 0, 0,
	}
	frame := func(res *Result) []byte {
		b, err := (&Frame{Header: Header{Version: VersionResponse, Stream: 3}, Message: res}).AppendTo(nil)
		require.NoError(t, err)
		return b
	}
	want := frame(&Result{Kind: wire.ResultRows, Columns: cols, Rows: rows, PagingState: []byte{1}})
	got := frame(&Result{Kind: wire.ResultRows, Columns: cols, Packed: packed, PackedRows: 3, PagingState: []byte{1}})
	require.Equal(t, want, got)
	h, err := ParseHeader(got)
	require.NoError(t, err)
	back, err := Decode(h, got[HeaderSize:])
	require.NoError(t, err)
	require.Equal(t, rows, back.Message.(*Result).Rows)
}

// BenchmarkDecodeRequestExecute decodes an EXECUTE the way the server
// does, without a Frame.
func BenchmarkDecodeRequestExecute(b *testing.B) {
	p := QueryParams{Consistency: wire.One, Values: [][]byte{{0, 0, 0, 7}, []byte("value")}, HasTimestamp: true, DefaultTimestamp: 1}
	buf := encode(b, &Frame{Header: Header{Version: VersionRequest}, Message: &Execute{ID: make([]byte, 16), Params: p}})
	h, _ := ParseHeader(buf)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRequest(h, buf[HeaderSize:]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeRows(b *testing.B) {
	res := &Result{Kind: wire.ResultRows, NoMetadata: true, Columns: make([]ColumnSpec, 2),
		Rows: [][][]byte{{{0, 0, 0, 7}, []byte("value")}}}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		f := Frame{Header: Header{Version: VersionResponse, Stream: 3}, Message: res}
		if _, err := f.AppendTo(buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCustomTypeOption checks that a custom type is described as Cassandra
// describes one (DataType.CUSTOM: option 0x0000 and the class name) and
// read back, and that a class naming a native type reads as that type.
func TestCustomTypeOption(t *testing.T) {
	ct, err := types.CustomType("LexicalUUIDType")
	require.NoError(t, err)
	w := &Writer{}
	require.NoError(t, w.option(ct))
	class := "org.apache.cassandra.db.marshal.LexicalUUIDType"
	want := append([]byte{0x00, 0x00, 0x00, byte(len(class))}, class...)
	assert.Equal(t, want, w.B)
	got, err := NewReader(w.B).Option()
	require.NoError(t, err)
	assert.True(t, got.Equal(ct), "read back %s", got)

	w = &Writer{}
	w.Short(0x0000)
	w.String("org.apache.cassandra.db.marshal.Int32Type")
	got, err = NewReader(w.B).Option()
	require.NoError(t, err)
	assert.True(t, got.Equal(types.IntType), "read back %s", got)
}
