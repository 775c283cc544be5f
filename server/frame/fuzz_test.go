package frame

import (
	"reflect"
	"testing"

	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// FuzzFrameDecode feeds arbitrary bytes as a whole frame, header included.
// Properties: decoding never panics; a frame that decodes re-encodes, and
// the re-encoding decodes to an equal message that encodes to the same bytes.
func FuzzFrameDecode(f *testing.F) {
	for _, fr := range append(roundTripMessages(), v5Messages()...) {
		b, err := fr.AppendTo(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x04, 0, 0, 0, 0x07, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHeader(b)
		if err != nil {
			return
		}
		fr, err := Decode(h, b[HeaderSize:])
		if err != nil {
			return
		}
		once, err := fr.AppendTo(nil)
		if err != nil {
			t.Fatalf("decoded frame does not re-encode: %v", err)
		}
		h2, err := ParseHeader(once)
		if err != nil {
			t.Fatalf("re-encoded header: %v", err)
		}
		fr2, err := Decode(h2, once[HeaderSize:])
		if err != nil {
			t.Fatalf("re-encoded frame does not decode: %v", err)
		}
		twice, err := fr2.AppendTo(nil)
		if err != nil {
			t.Fatalf("second encode: %v", err)
		}
		if string(once) != string(twice) {
			t.Fatalf("encoding not stable:\n%x\n%x", once, twice)
		}
	})
}

// FuzzRequestDecode feeds an opcode and an arbitrary request body, as the
// server does after reading a header. Properties: no panic, an error for
// anything that is not a request opcode, and DecodeRequest (the server's
// path) agrees with Decode.
func FuzzRequestDecode(f *testing.F) {
	for _, fr := range roundTripMessages() {
		if fr.Header.IsResponse() {
			continue
		}
		b, err := fr.AppendTo(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(byte(fr.Message.Opcode()), byte(fr.Header.Flags), b[HeaderSize:])
	}
	f.Fuzz(func(t *testing.T, op, flags byte, body []byte) {
		h := Header{Version: VersionRequest, Opcode: Opcode(op), Flags: Flags(flags)}
		fr, err := Decode(h, body)
		if err == nil && !Opcode(op).IsRequest() {
			t.Fatalf("decoded %s as a request", Opcode(op))
		}
		if err == nil && fr.Message.Opcode() != Opcode(op) {
			t.Fatalf("decoded opcode %s as %s", Opcode(op), fr.Message.Opcode())
		}
		m, err2 := DecodeRequest(h, body)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("Decode error %v, DecodeRequest error %v", err, err2)
		}
		if err == nil && !reflect.DeepEqual(fr.Message, m) {
			t.Fatalf("Decode %+v, DecodeRequest %+v", fr.Message, m)
		}
	})
}

func benchRows() *Result {
	cols := []ColumnSpec{
		{Keyspace: "ks", Table: "t", Name: "pk", Type: types.IntType}, {Keyspace: "ks", Table: "t", Name: "ck", Type: types.BigintType},
		{Keyspace: "ks", Table: "t", Name: "name", Type: types.TextType}, {Keyspace: "ks", Table: "t", Name: "tags", Type: types.SetOf(types.TextType, false)},
	}
	rows := make([][][]byte, 100)
	for i := range rows {
		rows[i] = [][]byte{{0, 0, 0, byte(i)}, {0, 0, 0, 0, 0, 0, 0, byte(i)}, []byte("some name of a row"), {0, 0, 0, 1, 0, 0, 0, 1, 'x'}}
	}
	return &Result{Kind: wire.ResultRows, Columns: cols, Rows: rows}
}

func BenchmarkEncodeRows100(b *testing.B) {
	f := Frame{Header: Header{Version: VersionResponse, Stream: 1}, Message: benchRows()}
	buf := make([]byte, 0, 16<<10)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		buf, err = f.AppendTo(buf[:0])
		if err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkDecodeExecute(b *testing.B) {
	f := Frame{Header: Header{Version: VersionRequest, Stream: 1}, Message: &Execute{ID: make([]byte, 16), Params: QueryParams{
		Consistency: wire.LocalQuorum, Values: [][]byte{{0, 0, 0, 1}, {0, 0, 0, 0, 0, 0, 0, 2}, []byte("hello")}, PageSize: 5000,
	}}}
	raw, err := f.AppendTo(nil)
	if err != nil {
		b.Fatal(err)
	}
	h, _ := ParseHeader(raw)
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := Decode(h, raw[HeaderSize:]); err != nil {
			b.Fatal(err)
		}
	}
}
