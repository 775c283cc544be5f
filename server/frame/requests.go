package frame

import (
	"fmt"

	"github.com/minicass/minicass/wire"
)

// Message is a decoded frame body. Each message type encodes itself and
// names its opcode; Decode builds one from a body.
type Message interface {
	// Opcode returns the opcode of frames carrying this message.
	Opcode() Opcode
	// encode appends the message body to w.
	encode(w *Writer) error
}

// Startup is the STARTUP request: string options such as CQL_VERSION and
// COMPRESSION.
type Startup struct{ Options map[string]string }

// Options is the OPTIONS request; its body is empty.
type Options struct{}

// Query is the QUERY request: a CQL string and its parameters.
type Query struct {
	Query  string
	Params QueryParams
}

// Prepare is the PREPARE request. Keyspace (v5, flag 0x01) is the keyspace
// unqualified names resolve in, instead of the connection's; "" when absent.
type Prepare struct {
	Query    string
	Keyspace string
}

// Execute is the EXECUTE request: a prepared statement id and parameters.
// ResultMetadataID (v5) is the result metadata id the client holds for the
// statement, as the PREPARED result or a METADATA_CHANGED Rows result gave
// it.
type Execute struct {
	ID               []byte
	ResultMetadataID []byte
	Params           QueryParams
}

// Register is the REGISTER request: the event types the client wants pushed
// (TOPOLOGY_CHANGE, STATUS_CHANGE, SCHEMA_CHANGE).
type Register struct{ Events []string }

// AuthResponse is the AUTH_RESPONSE request carrying a SASL token.
type AuthResponse struct{ Token []byte }

// BatchType is the type byte of a BATCH request.
type BatchType uint8

// The batch types. They are part of the wire format.
const (
	BatchLogged   BatchType = 0
	BatchUnlogged BatchType = 1
	BatchCounter  BatchType = 2
)

// String returns LOGGED, UNLOGGED or COUNTER.
func (t BatchType) String() string {
	switch t {
	case BatchLogged:
		return "LOGGED"
	case BatchUnlogged:
		return "UNLOGGED"
	case BatchCounter:
		return "COUNTER"
	}
	return fmt.Sprintf("BATCH_TYPE(%d)", uint8(t))
}

// BatchEntry is one statement of a BATCH: either a query string (ID nil) or
// a prepared statement id, with its positional values. Unset is nil or as
// long as Values.
type BatchEntry struct {
	Query  string
	ID     []byte
	Values [][]byte
	Unset  []bool
}

// Batch is the BATCH request.
type Batch struct {
	Type              BatchType
	Entries           []BatchEntry
	Consistency       wire.Consistency
	SerialConsistency wire.Consistency // 0 when absent
	DefaultTimestamp  int64
	HasTimestamp      bool
	// Keyspace (v5, flag 0x80) and NowInSeconds (v5, flag 0x100, when
	// HasNowInSeconds) are as in QueryParams.
	Keyspace        string
	NowInSeconds    int32
	HasNowInSeconds bool
	// Tracing mirrors the request frame's tracing flag (0x02): DecodeRequest
	// sets it; it is not part of the body.
	Tracing bool
	// NamesForValues mirrors flag 0x40. As in Cassandra, the entry values are
	// read as a plain value list regardless (the v4 spec itself notes that
	// named batch values cannot work, CASSANDRA-10246).
	NamesForValues bool
}

// QueryParams are the <query_parameters> of QUERY and EXECUTE.
//
// Values holds the bound values, nil meaning null. Unset is nil or as long as
// Values, true where the client sent "unset" (length -2). Names is nil or as
// long as Values when the client named its values (flag 0x40). PageSize is
// the requested page size, 0 when the client did not ask for paging.
// SerialConsistency is 0 when absent. DefaultTimestamp is meaningful only
// when HasTimestamp is set. Keyspace and NowInSeconds are protocol v5's:
// the keyspace the statement runs in instead of the connection's ("" when
// absent), and the time in seconds the statement takes as now (meaningful
// when HasNowInSeconds is set).
type QueryParams struct {
	Consistency       wire.Consistency
	Values            [][]byte
	Unset             []bool
	Names             []string
	SkipMetadata      bool
	PageSize          int32
	PagingState       []byte
	SerialConsistency wire.Consistency
	DefaultTimestamp  int64
	HasTimestamp      bool
	Keyspace          string
	NowInSeconds      int32
	HasNowInSeconds   bool
	// Tracing mirrors the request frame's tracing flag (0x02): DecodeRequest
	// sets it; it is not part of the body.
	Tracing bool
	// Version is the protocol version of the request (0 for v4, as in
	// Writer.V), and ResultMetadataID
	// the result_metadata_id of an EXECUTE (v5): DecodeRequest sets them so
	// that a backend sees them with the parameters; they are not part of
	// <query_parameters>.
	Version          int
	ResultMetadataID []byte
}

// The <flags> of <query_parameters>: a [byte] up to v4, an [int] in v5. They
// are part of the wire format.
const (
	queryValues            = 0x01
	querySkipMetadata      = 0x02
	queryPageSize          = 0x04
	queryPagingState       = 0x08
	querySerialConsistency = 0x10
	queryDefaultTimestamp  = 0x20
	queryNamesForValues    = 0x40
	queryKeyspace          = 0x80  // v5
	queryNowInSeconds      = 0x100 // v5
)

// prepareKeyspace is the PREPARE flag (v5) announcing a keyspace.
const prepareKeyspace = 0x01

// writeFlags writes query or batch flags: a [byte] before v5, an [int] from
// v5.
func (w *Writer) writeFlags(f int) {
	if w.version() >= 5 {
		w.Int(int32(f))
	} else {
		w.Byte(byte(f))
	}
}

// readFlags reads what writeFlags writes.
func (r *Reader) readFlags() int {
	if r.version() >= 5 {
		return int(uint32(r.Int()))
	}
	return int(r.Byte())
}

func (*Startup) Opcode() Opcode      { return OpStartup }
func (*Options) Opcode() Opcode      { return OpOptions }
func (*Query) Opcode() Opcode        { return OpQuery }
func (*Prepare) Opcode() Opcode      { return OpPrepare }
func (*Execute) Opcode() Opcode      { return OpExecute }
func (*Register) Opcode() Opcode     { return OpRegister }
func (*AuthResponse) Opcode() Opcode { return OpAuthResponse }
func (*Batch) Opcode() Opcode        { return OpBatch }

func (m *Startup) encode(w *Writer) error { w.StringMap(m.Options); return nil }
func (m *Options) encode(w *Writer) error { return nil }
func (m *Query) encode(w *Writer) error {
	w.LongString(m.Query)
	return m.Params.encode(w)
}
func (m *Prepare) encode(w *Writer) error {
	w.LongString(m.Query)
	if w.version() >= 5 {
		if m.Keyspace != "" {
			w.Int(prepareKeyspace)
			w.String(m.Keyspace)
		} else {
			w.Int(0)
		}
	}
	return nil
}
func (m *Execute) encode(w *Writer) error {
	w.ShortBytes(m.ID)
	if w.version() >= 5 {
		w.ShortBytes(m.ResultMetadataID)
	}
	return m.Params.encode(w)
}
func (m *Register) encode(w *Writer) error     { w.StringList(m.Events); return nil }
func (m *AuthResponse) encode(w *Writer) error { w.Bytes(m.Token); return nil }

func (m *Batch) encode(w *Writer) error {
	w.Byte(byte(m.Type))
	w.short(len(m.Entries), "batch entries")
	for _, e := range m.Entries {
		if e.ID != nil {
			w.Byte(1)
			w.ShortBytes(e.ID)
		} else {
			w.Byte(0)
			w.LongString(e.Query)
		}
		writeValues(w, e.Values, e.Unset)
	}
	w.Consistency(m.Consistency)
	var flags int
	if m.SerialConsistency != 0 {
		flags |= querySerialConsistency
	}
	if m.HasTimestamp {
		flags |= queryDefaultTimestamp
	}
	if m.NamesForValues {
		flags |= queryNamesForValues
	}
	v5 := w.version() >= 5
	if v5 && m.Keyspace != "" {
		flags |= queryKeyspace
	}
	if v5 && m.HasNowInSeconds {
		flags |= queryNowInSeconds
	}
	w.writeFlags(flags)
	if m.SerialConsistency != 0 {
		w.Consistency(m.SerialConsistency)
	}
	if m.HasTimestamp {
		w.Long(m.DefaultTimestamp)
	}
	if flags&queryKeyspace != 0 {
		w.String(m.Keyspace)
	}
	if flags&queryNowInSeconds != 0 {
		w.Int(m.NowInSeconds)
	}
	return nil
}

func writeValues(w *Writer, values [][]byte, unset []bool) {
	w.short(len(values), "values")
	for i, v := range values {
		w.Value(v, i < len(unset) && unset[i])
	}
}

func (p *QueryParams) encode(w *Writer) error {
	w.Consistency(p.Consistency)
	var flags int
	if len(p.Values) > 0 {
		flags |= queryValues
		if p.Names != nil {
			if len(p.Names) != len(p.Values) {
				return fmt.Errorf("%w: %d names for %d values", ErrInvalidValue, len(p.Names), len(p.Values))
			}
			flags |= queryNamesForValues
		}
	}
	if p.SkipMetadata {
		flags |= querySkipMetadata
	}
	if p.PageSize > 0 {
		flags |= queryPageSize
	}
	if p.PagingState != nil {
		flags |= queryPagingState
	}
	if p.SerialConsistency != 0 {
		flags |= querySerialConsistency
	}
	if p.HasTimestamp {
		flags |= queryDefaultTimestamp
	}
	if w.version() >= 5 {
		if p.Keyspace != "" {
			flags |= queryKeyspace
		}
		if p.HasNowInSeconds {
			flags |= queryNowInSeconds
		}
	}
	w.writeFlags(flags)
	if flags&queryValues != 0 {
		w.short(len(p.Values), "values")
		for i, v := range p.Values {
			if flags&queryNamesForValues != 0 {
				w.String(p.Names[i])
			}
			w.Value(v, i < len(p.Unset) && p.Unset[i])
		}
	}
	if flags&queryPageSize != 0 {
		w.Int(p.PageSize)
	}
	if flags&queryPagingState != 0 {
		w.Bytes(p.PagingState)
	}
	if flags&querySerialConsistency != 0 {
		w.Consistency(p.SerialConsistency)
	}
	if flags&queryDefaultTimestamp != 0 {
		w.Long(p.DefaultTimestamp)
	}
	if flags&queryKeyspace != 0 {
		w.String(p.Keyspace)
	}
	if flags&queryNowInSeconds != 0 {
		w.Int(p.NowInSeconds)
	}
	return nil
}

// decodeQueryParams reads <query_parameters>.
func decodeQueryParams(r *Reader, p *QueryParams) {
	p.Consistency = r.Consistency()
	flags := r.readFlags()
	if r.err != nil {
		return
	}
	known := 0x7f
	if r.version() >= 5 {
		known |= queryKeyspace | queryNowInSeconds
	}
	if flags&^known != 0 {
		r.fail(fmt.Errorf("%w: unknown query flags 0x%02x", ErrInvalidValue, flags))
		return
	}
	if flags&queryValues != 0 {
		n := int(r.Short())
		if n*4 > r.Remaining() {
			r.fail(fmt.Errorf("%w: %d values", ErrShortBuffer, n))
			return
		}
		p.Values = make([][]byte, n)
		if flags&queryNamesForValues != 0 {
			p.Names = make([]string, n)
		}
		for i := range n {
			if p.Names != nil {
				p.Names[i] = r.String()
			}
			v, unset := r.Value()
			p.Values[i] = v
			if unset {
				if p.Unset == nil {
					p.Unset = make([]bool, n)
				}
				p.Unset[i] = true
			}
		}
	}
	p.SkipMetadata = flags&querySkipMetadata != 0
	if flags&queryPageSize != 0 {
		p.PageSize = r.Int()
	}
	if flags&queryPagingState != 0 {
		p.PagingState = r.Bytes()
	}
	if flags&querySerialConsistency != 0 {
		p.SerialConsistency = r.Consistency()
	}
	if flags&queryDefaultTimestamp != 0 {
		p.DefaultTimestamp = r.Long()
		p.HasTimestamp = true
	}
	if flags&queryKeyspace != 0 {
		p.Keyspace = r.String()
	}
	if flags&queryNowInSeconds != 0 {
		p.NowInSeconds = r.Int()
		p.HasNowInSeconds = true
	}
}

func readValues(r *Reader) (values [][]byte, unset []bool) {
	n := int(r.Short())
	if r.err != nil {
		return nil, nil
	}
	if n*4 > r.Remaining() {
		r.fail(fmt.Errorf("%w: %d values", ErrShortBuffer, n))
		return nil, nil
	}
	values = make([][]byte, n)
	for i := range n {
		v, u := r.Value()
		values[i] = v
		if u {
			if unset == nil {
				unset = make([]bool, n)
			}
			unset[i] = true
		}
	}
	return values, unset
}

func decodeRequest(op Opcode, r *Reader) (Message, error) {
	var m Message
	switch op {
	case OpStartup:
		m = &Startup{Options: r.StringMap()}
	case OpOptions:
		m = &Options{}
	case OpQuery:
		q := &Query{Query: r.LongString()}
		decodeQueryParams(r, &q.Params)
		m = q
	case OpPrepare:
		p := &Prepare{Query: r.LongString()}
		if r.version() >= 5 {
			if flags := r.Int(); flags&prepareKeyspace != 0 {
				p.Keyspace = r.String()
			}
		}
		m = p
	case OpExecute:
		e := &Execute{ID: r.ShortBytes()}
		if r.version() >= 5 {
			e.ResultMetadataID = r.ShortBytes()
		}
		decodeQueryParams(r, &e.Params)
		m = e
	case OpRegister:
		m = &Register{Events: r.StringList()}
	case OpAuthResponse:
		m = &AuthResponse{Token: r.Bytes()}
	case OpBatch:
		b, err := decodeBatch(r)
		if err != nil {
			return nil, err
		}
		m = b
	default:
		return nil, fmt.Errorf("%w: %s is not a request", ErrUnknownOpcode, op)
	}
	return m, r.err
}

func decodeBatch(r *Reader) (*Batch, error) {
	b := &Batch{Type: BatchType(r.Byte())}
	if r.err == nil && b.Type > BatchCounter {
		return nil, fmt.Errorf("%w: invalid BATCH message type %d", ErrInvalidValue, b.Type)
	}
	n := int(r.Short())
	if n*3 > r.Remaining() {
		r.fail(fmt.Errorf("%w: batch of %d entries", ErrShortBuffer, n))
	}
	if r.err != nil {
		return nil, r.err
	}
	b.Entries = make([]BatchEntry, n)
	for i := range b.Entries {
		e := &b.Entries[i]
		switch kind := r.Byte(); kind {
		case 0:
			e.Query = r.LongString()
		case 1:
			e.ID = r.ShortBytes()
			if e.ID == nil && r.err == nil {
				e.ID = []byte{}
			}
		default:
			if r.err == nil {
				return nil, fmt.Errorf("%w: invalid query kind in BATCH messages. Must be 0 or 1 but got %d", ErrInvalidValue, kind)
			}
		}
		e.Values, e.Unset = readValues(r)
		if r.err != nil {
			return nil, r.err
		}
	}
	b.Consistency = r.Consistency()
	flags := r.readFlags()
	known := querySerialConsistency | queryDefaultTimestamp | queryNamesForValues
	if r.version() >= 5 {
		known |= queryKeyspace | queryNowInSeconds
	}
	if flags&^known != 0 && r.err == nil {
		return nil, fmt.Errorf("%w: invalid BATCH flags 0x%02x", ErrInvalidValue, flags)
	}
	b.NamesForValues = flags&queryNamesForValues != 0
	if flags&querySerialConsistency != 0 {
		b.SerialConsistency = r.Consistency()
	}
	if flags&queryDefaultTimestamp != 0 {
		b.DefaultTimestamp = r.Long()
		b.HasTimestamp = true
	}
	if flags&queryKeyspace != 0 {
		b.Keyspace = r.String()
	}
	if flags&queryNowInSeconds != 0 {
		b.NowInSeconds = r.Int()
		b.HasNowInSeconds = true
	}
	return b, r.err
}
