package wire

import "fmt"

// ResultKind is the [int] kind at the start of a RESULT body.
type ResultKind int32

// The result kinds of protocol v4.
const (
	ResultVoid         ResultKind = 0x0001
	ResultRows         ResultKind = 0x0002
	ResultSetKeyspace  ResultKind = 0x0003
	ResultPrepared     ResultKind = 0x0004
	ResultSchemaChange ResultKind = 0x0005
)

// String returns the kind's name in the protocol specification, e.g.
// "Set_keyspace".
func (k ResultKind) String() string {
	switch k {
	case ResultVoid:
		return "Void"
	case ResultRows:
		return "Rows"
	case ResultSetKeyspace:
		return "Set_keyspace"
	case ResultPrepared:
		return "Prepared"
	case ResultSchemaChange:
		return "Schema_change"
	}
	return fmt.Sprintf("RESULT(0x%04x)", int32(k))
}

// Consistency is a consistency level as carried by a [consistency] field.
type Consistency uint16

// The consistency levels of protocol v4.
const (
	Any         Consistency = 0x0000
	One         Consistency = 0x0001
	Two         Consistency = 0x0002
	Three       Consistency = 0x0003
	Quorum      Consistency = 0x0004
	All         Consistency = 0x0005
	LocalQuorum Consistency = 0x0006
	EachQuorum  Consistency = 0x0007
	Serial      Consistency = 0x0008
	LocalSerial Consistency = 0x0009
	LocalOne    Consistency = 0x000A
)

var consistencyNames = [...]string{
	"ANY", "ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_QUORUM", "EACH_QUORUM", "SERIAL", "LOCAL_SERIAL", "LOCAL_ONE",
}

// String returns the CQL name of the level, e.g. "LOCAL_QUORUM".
func (c Consistency) String() string {
	if int(c) < len(consistencyNames) {
		return consistencyNames[c]
	}
	return fmt.Sprintf("CONSISTENCY(0x%04x)", uint16(c))
}

// Valid reports whether c is one of the levels defined by protocol v4.
func (c Consistency) Valid() bool { return c <= LocalOne }
