package frame

import (
	"fmt"
	"net/netip"

	"github.com/minicass/minicass/wire"
)

// Ready is the READY response; its body is empty.
type Ready struct{}

// Authenticate is the AUTHENTICATE response naming the server's
// authenticator class.
type Authenticate struct{ Authenticator string }

// Supported is the SUPPORTED response to OPTIONS.
type Supported struct{ Options map[string][]string }

// AuthChallenge is the AUTH_CHALLENGE response carrying a SASL token.
type AuthChallenge struct{ Token []byte }

// AuthSuccess is the AUTH_SUCCESS response; Token is usually nil.
type AuthSuccess struct{ Token []byte }

// Error is the ERROR response. Code selects which extra fields are on the
// wire:
//
//	Unavailable     Consistency, Required, Alive
//	WriteTimeout    Consistency, Received, BlockFor, WriteType
//	ReadTimeout     Consistency, Received, BlockFor, DataPresent
//	ReadFailure     Consistency, Received, BlockFor, NumFailures, DataPresent
//	FunctionFailure Keyspace, Function, ArgTypes
//	WriteFailure    Consistency, Received, BlockFor, NumFailures, WriteType
//	CASWriteUnknown Consistency, Received, BlockFor (v5)
//	AlreadyExists   Keyspace, Table
//	Unprepared      UnpreparedID
//
// In v5, READ_FAILURE and WRITE_FAILURE carry Reasons, the failure code of
// each replica that failed, in place of NumFailures; decoding a v5 body sets
// both. Other fields are ignored. Error also implements the error interface, with
// CQLCode, so a backend may return one directly.
type Error struct {
	Code         wire.ErrorCode
	Message      string
	Consistency  wire.Consistency
	Required     int32
	Alive        int32
	Received     int32
	BlockFor     int32
	NumFailures  int32
	DataPresent  bool
	WriteType    string
	Keyspace     string
	Table        string
	Function     string
	ArgTypes     []string
	UnpreparedID []byte
	Reasons      []FailureReason
}

// FailureReason is one entry of the v5 <reasonmap> of READ_FAILURE and
// WRITE_FAILURE: a replica's address and its RequestFailureReason code.
type FailureReason struct {
	Addr netip.Addr
	Code uint16
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// CQLCode returns the protocol error code.
func (e *Error) CQLCode() wire.ErrorCode { return e.Code }

// Prepared is the body of a Prepared result. PKIndexes holds, for each
// partition key column, the index of the bind marker giving it (not sent
// in v3). ResultMetadataID (v5) identifies ResultCols: a client sends it
// back with EXECUTE, and a Rows result tells it when the columns changed.
type Prepared struct {
	ID               []byte
	ResultMetadataID []byte
	Bind             []ColumnSpec
	PKIndexes        []uint16
	ResultCols       []ColumnSpec
}

// Result is the RESULT response, and the value the CQL layer hands to the
// server. Kind selects the fields in use:
//
//	Void          nothing
//	Rows          Columns, Rows (each row one []byte per column, nil = null),
//	              PagingState (non-nil: has more pages), NoMetadata,
//	              MetadataChanged and ResultMetadataID (v5)
//	SetKeyspace   Keyspace
//	Prepared      Prepared
//	SchemaChange  Change
//
// Warnings are not part of the RESULT body: the server sends them in the
// frame (flag 0x08). A decoded Rows result with NoMetadata has nil Columns.
type Result struct {
	Kind    wire.ResultKind
	Columns []ColumnSpec
	Rows    [][][]byte
	// Packed, when not nil, holds PackedRows rows instead of Rows, already
	// in the ROWS body's row encoding (each value a [bytes]; see
	// cql/query/packed.go), which encode writes as it is. Decoding gives
	// Rows.
	Packed      []byte
	PackedRows  int
	PagingState []byte
	NoMetadata  bool
	// ResultMetadataID is the result metadata id of Columns. A server sets
	// MetadataChanged when a v5 EXECUTE named another id; the Rows metadata
	// then carries the flag and this id, with the full column metadata.
	ResultMetadataID []byte
	MetadataChanged  bool
	Keyspace         string
	Prepared         *Prepared
	Change           *wire.SchemaChange
	Warnings         []string
	// TracingID is the tracing session of a traced request; the server
	// sends it in the response frame (flag 0x02).
	TracingID *[16]byte
}

// Event is the EVENT response pushed on stream -1. Type is SCHEMA_CHANGE
// (Change set), or TOPOLOGY_CHANGE / STATUS_CHANGE (Kind, such as NEW_NODE or
// UP, and Addr set).
type Event struct {
	Type   string
	Change *wire.SchemaChange
	Kind   string
	Addr   netip.AddrPort
}

// The rows metadata flags. They are part of the wire format.
const (
	metaGlobalTableSpec = 0x0001
	metaHasMorePages    = 0x0002
	metaNoMetadata      = 0x0004
	metaChanged         = 0x0008 // v5
)

func (*Ready) Opcode() Opcode         { return OpReady }
func (*Authenticate) Opcode() Opcode  { return OpAuthenticate }
func (*Supported) Opcode() Opcode     { return OpSupported }
func (*AuthChallenge) Opcode() Opcode { return OpAuthChallenge }
func (*AuthSuccess) Opcode() Opcode   { return OpAuthSuccess }
func (*Error) Opcode() Opcode         { return OpError }
func (*Result) Opcode() Opcode        { return OpResult }
func (*Event) Opcode() Opcode         { return OpEvent }

func (m *Ready) encode(w *Writer) error         { return nil }
func (m *Authenticate) encode(w *Writer) error  { w.String(m.Authenticator); return nil }
func (m *Supported) encode(w *Writer) error     { w.StringMultimap(m.Options); return nil }
func (m *AuthChallenge) encode(w *Writer) error { w.Bytes(m.Token); return nil }
func (m *AuthSuccess) encode(w *Writer) error   { w.Bytes(m.Token); return nil }

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func (m *Error) encode(w *Writer) error {
	w.Int(int32(m.Code))
	w.String(m.Message)
	switch m.Code {
	case wire.CodeUnavailable:
		w.Consistency(m.Consistency)
		w.Int(m.Required)
		w.Int(m.Alive)
	case wire.CodeWriteTimeout:
		w.Consistency(m.Consistency)
		w.Int(m.Received)
		w.Int(m.BlockFor)
		w.String(m.WriteType)
	case wire.CodeReadTimeout:
		w.Consistency(m.Consistency)
		w.Int(m.Received)
		w.Int(m.BlockFor)
		w.Byte(boolByte(m.DataPresent))
	case wire.CodeReadFailure:
		w.Consistency(m.Consistency)
		w.Int(m.Received)
		w.Int(m.BlockFor)
		m.writeFailures(w)
		w.Byte(boolByte(m.DataPresent))
	case wire.CodeFunctionFailure:
		w.String(m.Keyspace)
		w.String(m.Function)
		w.StringList(m.ArgTypes)
	case wire.CodeWriteFailure:
		w.Consistency(m.Consistency)
		w.Int(m.Received)
		w.Int(m.BlockFor)
		m.writeFailures(w)
		w.String(m.WriteType)
	case wire.CodeCASWriteUnknown:
		w.Consistency(m.Consistency)
		w.Int(m.Received)
		w.Int(m.BlockFor)
	case wire.CodeAlreadyExists:
		w.String(m.Keyspace)
		w.String(m.Table)
	case wire.CodeUnprepared:
		w.ShortBytes(m.UnpreparedID)
	}
	return nil
}

// writeFailures writes <numfailures> before v5 and the <reasonmap> from v5.
func (m *Error) writeFailures(w *Writer) {
	if w.version() < 5 {
		n := m.NumFailures
		if n == 0 {
			n = int32(len(m.Reasons))
		}
		w.Int(n)
		return
	}
	w.Int(int32(len(m.Reasons)))
	for _, fr := range m.Reasons {
		a := fr.Addr.Unmap().AsSlice()
		w.Byte(byte(len(a)))
		w.B = append(w.B, a...)
		w.Short(fr.Code)
	}
}

// readFailures reads what writeFailures writes.
func (e *Error) readFailures(r *Reader) {
	n := r.Int()
	if r.version() < 5 || r.err != nil {
		e.NumFailures = n
		return
	}
	if n < 0 || int(n)*3 > r.Remaining() {
		r.fail(fmt.Errorf("%w: reason map of %d entries", ErrShortBuffer, n))
		return
	}
	e.NumFailures = n
	for range n {
		size := int(r.Byte())
		if r.err == nil && size != 4 && size != 16 {
			r.fail(fmt.Errorf("%w: inetaddr of %d bytes", ErrInvalidValue, size))
		}
		b := r.take(size, "inetaddr")
		code := r.Short()
		if r.err != nil {
			return
		}
		addr, _ := netip.AddrFromSlice(b)
		e.Reasons = append(e.Reasons, FailureReason{Addr: addr, Code: code})
	}
}

func decodeError(r *Reader) *Error {
	e := &Error{Code: wire.ErrorCode(r.Int()), Message: r.String()}
	switch e.Code {
	case wire.CodeUnavailable:
		e.Consistency, e.Required, e.Alive = r.Consistency(), r.Int(), r.Int()
	case wire.CodeWriteTimeout:
		e.Consistency, e.Received, e.BlockFor, e.WriteType = r.Consistency(), r.Int(), r.Int(), r.String()
	case wire.CodeReadTimeout:
		e.Consistency, e.Received, e.BlockFor, e.DataPresent = r.Consistency(), r.Int(), r.Int(), r.Byte() != 0
	case wire.CodeReadFailure:
		e.Consistency, e.Received, e.BlockFor = r.Consistency(), r.Int(), r.Int()
		e.readFailures(r)
		e.DataPresent = r.Byte() != 0
	case wire.CodeFunctionFailure:
		e.Keyspace, e.Function, e.ArgTypes = r.String(), r.String(), r.StringList()
	case wire.CodeWriteFailure:
		e.Consistency, e.Received, e.BlockFor = r.Consistency(), r.Int(), r.Int()
		e.readFailures(r)
		e.WriteType = r.String()
	case wire.CodeCASWriteUnknown:
		e.Consistency, e.Received, e.BlockFor = r.Consistency(), r.Int(), r.Int()
	case wire.CodeAlreadyExists:
		e.Keyspace, e.Table = r.String(), r.String()
	case wire.CodeUnprepared:
		e.UnpreparedID = r.ShortBytes()
	}
	return e
}

// sameTable reports whether all columns share one keyspace and table, in
// which case metadata uses the global table spec.
func sameTable(cols []ColumnSpec) bool {
	if len(cols) == 0 {
		return false
	}
	for _, c := range cols[1:] {
		if c.Keyspace != cols[0].Keyspace || c.Table != cols[0].Table {
			return false
		}
	}
	return true
}

// writeSpecs writes the column specifications (and the global table spec
// before them if global).
func writeSpecs(w *Writer, cols []ColumnSpec, global bool) error {
	if global {
		w.String(cols[0].Keyspace)
		w.String(cols[0].Table)
	}
	for _, c := range cols {
		if !global {
			w.String(c.Keyspace)
			w.String(c.Table)
		}
		w.String(c.Name)
		if err := w.option(c.Type); err != nil {
			return fmt.Errorf("column %q: %w", c.Name, err)
		}
	}
	return nil
}

func readSpecs(r *Reader, n int, global bool) ([]ColumnSpec, error) {
	if n*4 > r.Remaining() {
		return nil, fmt.Errorf("%w: %d column specs", ErrShortBuffer, n)
	}
	if n == 0 {
		return nil, r.err
	}
	var ks, table string
	if global {
		ks, table = r.String(), r.String()
	}
	cols := make([]ColumnSpec, n)
	for i := range cols {
		c := &cols[i]
		if global {
			c.Keyspace, c.Table = ks, table
		} else {
			c.Keyspace, c.Table = r.String(), r.String()
		}
		c.Name = r.String()
		t, err := r.Option()
		if err != nil {
			return nil, err
		}
		c.Type = t
	}
	return cols, r.err
}

// writeRowsMetadata writes <metadata> of a Rows result or of a Prepared
// result's result metadata.
func writeRowsMetadata(w *Writer, cols []ColumnSpec, pagingState []byte, noMetadata bool, newID []byte) error {
	var flags int32
	if newID != nil && w.version() >= 5 {
		// A changed metadata is always sent in full.
		flags |= metaChanged
		noMetadata = false
	} else {
		newID = nil
	}
	global := !noMetadata && sameTable(cols)
	if global {
		flags |= metaGlobalTableSpec
	}
	if pagingState != nil {
		flags |= metaHasMorePages
	}
	if noMetadata {
		flags |= metaNoMetadata
	}
	w.Int(flags)
	w.Int(int32(len(cols)))
	if pagingState != nil {
		w.Bytes(pagingState)
	}
	if newID != nil {
		w.ShortBytes(newID)
	}
	if noMetadata {
		return nil
	}
	return writeSpecs(w, cols, global)
}

// readRowsMetadata reads <metadata>; it returns the column count even when
// the metadata is skipped.
func readRowsMetadata(r *Reader, res *Result) (int, error) {
	flags := r.Int()
	n := int(r.Int())
	if r.err != nil {
		return 0, r.err
	}
	if n < 0 {
		return 0, fmt.Errorf("%w: column count %d", ErrInvalidValue, n)
	}
	if flags&metaHasMorePages != 0 {
		res.PagingState = r.Bytes()
	}
	if flags&metaChanged != 0 && r.version() >= 5 {
		res.MetadataChanged = true
		res.ResultMetadataID = r.ShortBytes()
	}
	if flags&metaNoMetadata != 0 {
		res.NoMetadata = true
		return n, r.err
	}
	cols, err := readSpecs(r, n, flags&metaGlobalTableSpec != 0)
	res.Columns = cols
	return n, err
}

func (m *Result) encode(w *Writer) error {
	w.Int(int32(m.Kind))
	switch m.Kind {
	case wire.ResultVoid:
	case wire.ResultRows:
		var newID []byte
		if m.MetadataChanged {
			newID = m.ResultMetadataID
			if newID == nil {
				newID = []byte{}
			}
		}
		if err := writeRowsMetadata(w, m.Columns, m.PagingState, m.NoMetadata && !m.MetadataChanged, newID); err != nil {
			return err
		}
		if m.Packed != nil {
			w.Int(int32(m.PackedRows))
			w.B = append(w.B, m.Packed...)
			break
		}
		w.Int(int32(len(m.Rows)))
		for i, row := range m.Rows {
			if len(row) != len(m.Columns) {
				return fmt.Errorf("%w: row %d has %d cells for %d columns", ErrInvalidValue, i, len(row), len(m.Columns))
			}
			for _, cell := range row {
				w.Bytes(cell)
			}
		}
	case wire.ResultSetKeyspace:
		w.String(m.Keyspace)
	case wire.ResultPrepared:
		p := m.Prepared
		if p == nil {
			return fmt.Errorf("%w: Prepared result without Prepared", ErrInvalidValue)
		}
		w.ShortBytes(p.ID)
		if w.version() >= 5 {
			w.ShortBytes(p.ResultMetadataID)
		}
		global := sameTable(p.Bind)
		var flags int32
		if global {
			flags = metaGlobalTableSpec
		}
		w.Int(flags)
		w.Int(int32(len(p.Bind)))
		if w.version() >= 4 {
			w.Int(int32(len(p.PKIndexes)))
			for _, i := range p.PKIndexes {
				w.Short(i)
			}
		}
		if err := writeSpecs(w, p.Bind, global); err != nil {
			return err
		}
		// Cassandra sends an empty result metadata as the no_metadata flag with
		// a zero column count (ResultMetadata.EMPTY).
		if err := writeRowsMetadata(w, p.ResultCols, nil, len(p.ResultCols) == 0, nil); err != nil {
			return err
		}
	case wire.ResultSchemaChange:
		if m.Change == nil {
			return fmt.Errorf("%w: Schema_change result without Change", ErrInvalidValue)
		}
		return encodeSchemaChange(w, m.Change)
	default:
		return fmt.Errorf("%w: result kind %d", ErrInvalidValue, m.Kind)
	}
	return w.err
}

func decodeResult(r *Reader) (*Result, error) {
	res := &Result{Kind: wire.ResultKind(r.Int())}
	if r.err != nil {
		return nil, r.err
	}
	switch res.Kind {
	case wire.ResultVoid:
	case wire.ResultRows:
		n, err := readRowsMetadata(r, res)
		if err != nil {
			return nil, err
		}
		count := int(r.Int())
		// Each cell takes at least 4 bytes; check before allocating, without
		// overflowing.
		if count < 0 || (count > 0 && n == 0) || (n > 0 && count > r.Remaining()/4/n) {
			return nil, fmt.Errorf("%w: %d rows of %d columns", ErrShortBuffer, count, n)
		}
		res.Rows = make([][][]byte, count)
		for i := range res.Rows {
			row := make([][]byte, n)
			for j := range row {
				row[j] = r.Bytes()
			}
			res.Rows[i] = row
		}
	case wire.ResultSetKeyspace:
		res.Keyspace = r.String()
	case wire.ResultPrepared:
		p := &Prepared{ID: r.ShortBytes()}
		if r.version() >= 5 {
			p.ResultMetadataID = r.ShortBytes()
		}
		flags := r.Int()
		n := int(r.Int())
		pk := 0
		if r.version() >= 4 {
			pk = int(r.Int())
		}
		if r.err != nil {
			return nil, r.err
		}
		if n < 0 || pk < 0 || pk*2 > r.Remaining() {
			return nil, fmt.Errorf("%w: prepared metadata of %d columns, %d pk indexes", ErrInvalidValue, n, pk)
		}
		if pk > 0 {
			p.PKIndexes = make([]uint16, pk)
			for i := range p.PKIndexes {
				p.PKIndexes[i] = r.Short()
			}
		}
		bind, err := readSpecs(r, n, flags&metaGlobalTableSpec != 0)
		if err != nil {
			return nil, err
		}
		p.Bind = bind
		var meta Result
		if _, err := readRowsMetadata(r, &meta); err != nil {
			return nil, err
		}
		p.ResultCols = meta.Columns
		res.Prepared = p
	case wire.ResultSchemaChange:
		res.Change = decodeSchemaChange(r)
	default:
		return nil, fmt.Errorf("%w: result kind %d", ErrInvalidValue, res.Kind)
	}
	return res, r.err
}

// encodeSchemaChange writes the body of a Schema_change result or
// SCHEMA_CHANGE event: change type, target, keyspace, then the name (and the
// argument types of a function or aggregate).
func encodeSchemaChange(w *Writer, c *wire.SchemaChange) error {
	if !c.Change.Valid() {
		return fmt.Errorf("%w: schema change type %s", ErrInvalidValue, c.Change)
	}
	if !c.Target.Valid() {
		return fmt.Errorf("%w: schema change target %s", ErrInvalidValue, c.Target)
	}
	w.String(c.Change.String())
	w.String(c.Target.String())
	w.String(c.Keyspace)
	switch c.Target {
	case wire.TargetTable, wire.TargetType:
		w.String(c.Name)
	case wire.TargetFunction, wire.TargetAggregate:
		w.String(c.Name)
		w.StringList(c.Args)
	}
	return w.err
}

func decodeSchemaChange(r *Reader) *wire.SchemaChange {
	change, target := r.String(), r.String()
	c := &wire.SchemaChange{Keyspace: r.String()}
	if r.err != nil {
		return c
	}
	var ok bool
	if c.Change, ok = wire.ParseChangeType(change); !ok {
		r.fail(fmt.Errorf("%w: schema change type %q", ErrInvalidValue, change))
		return c
	}
	if c.Target, ok = wire.ParseChangeTarget(target); !ok {
		r.fail(fmt.Errorf("%w: schema change target %q", ErrInvalidValue, target))
		return c
	}
	switch c.Target {
	case wire.TargetTable, wire.TargetType:
		c.Name = r.String()
	case wire.TargetFunction, wire.TargetAggregate:
		c.Name = r.String()
		c.Args = r.StringList()
	}
	return c
}

func (m *Event) encode(w *Writer) error {
	w.String(m.Type)
	switch m.Type {
	case "SCHEMA_CHANGE":
		if m.Change == nil {
			return fmt.Errorf("%w: SCHEMA_CHANGE event without Change", ErrInvalidValue)
		}
		return encodeSchemaChange(w, m.Change)
	case "TOPOLOGY_CHANGE", "STATUS_CHANGE":
		w.String(m.Kind)
		w.Inet(m.Addr)
		return nil
	}
	return fmt.Errorf("%w: event type %q", ErrInvalidValue, m.Type)
}

func decodeEvent(r *Reader) (*Event, error) {
	e := &Event{Type: r.String()}
	switch e.Type {
	case "SCHEMA_CHANGE":
		e.Change = decodeSchemaChange(r)
	case "TOPOLOGY_CHANGE", "STATUS_CHANGE":
		e.Kind = r.String()
		e.Addr = r.Inet()
	default:
		if r.err == nil {
			return nil, fmt.Errorf("%w: event type %q", ErrInvalidValue, e.Type)
		}
	}
	return e, r.err
}

func decodeResponse(op Opcode, r *Reader) (Message, error) {
	switch op {
	case OpError:
		e := decodeError(r)
		return e, r.err
	case OpReady:
		return &Ready{}, nil
	case OpAuthenticate:
		return &Authenticate{Authenticator: r.String()}, r.err
	case OpSupported:
		return &Supported{Options: r.StringMultimap()}, r.err
	case OpResult:
		return decodeResult(r)
	case OpEvent:
		return decodeEvent(r)
	case OpAuthChallenge:
		return &AuthChallenge{Token: r.Bytes()}, r.err
	case OpAuthSuccess:
		return &AuthSuccess{Token: r.Bytes()}, r.err
	}
	return nil, fmt.Errorf("%w: %s is not a response", ErrUnknownOpcode, op)
}
