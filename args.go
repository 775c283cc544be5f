package minicass

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// Arguments of Exec and Query.
//
// The variadic args of Exec, Query, Stmt.Exec and Stmt.Query mix bind values
// and options. A QueryOption (PageSize, PagingState, WithTimestamp, WithConsistency, Tracing)
// configures the call; every other argument is a bind value, in bind-marker
// order, or a NamedArg for a named marker (:name) or a marker matched by its
// column name. Bind values are converted with types.Encode using the type
// Cassandra infers for the marker: Go integers for the integer types, string
// for text and for any scalar type written as its CQL constant text,
// time.Time for timestamp and date, types.UUIDValue or [16]byte for uuid,
// net.IP for inet, []byte for blob, slices for lists and sets, Go maps for
// maps, and so on. nil (or a nil pointer) binds null, Unset leaves the
// column untouched, and non-nil pointers are followed.

// UnsetValue is the type of Unset.
type UnsetValue struct{}

// Unset is a bind value that writes nothing: the column keeps its current
// value, as the native protocol's "unset" value does (protocol v4). Where a
// value is required (a key column, a LIMIT) Cassandra's error is returned.
var Unset = UnsetValue{}

// NamedArg is a bind value for the marker with the given name. Use Named to
// build one.
type NamedArg struct {
	Name  string
	Value any
}

// Named binds value to the bind marker named name: a named marker
// (":name"), or a positional marker matched by the name Cassandra gives it
// (the column name, e.g. "k" in "WHERE k = ?"). Names match
// case-insensitively. Named and positional values cannot be mixed in one
// call.
func Named(name string, value any) NamedArg { return NamedArg{Name: name, Value: value} }

// QueryOption configures one Exec or Query call. Pass options among the
// args; they are not bind values.
type QueryOption interface {
	apply(p *cql.Params)
}

type optionFunc func(p *cql.Params)

func (f optionFunc) apply(p *cql.Params) { f(p) }

// PageSize asks for at most n rows: the returned Rows hold one page, and
// Rows.PagingState returns the opaque state to pass to PagingState for the
// next page (nil after the last page). Without PageSize a query returns all
// its rows at once. n <= 0 disables paging.
func PageSize(n int) QueryOption {
	return optionFunc(func(p *cql.Params) { p.PageSize = n })
}

// PagingState resumes a paged query where the page that returned state
// stopped. The query text, bind values and page size must be those of the
// first call. A nil state starts at the beginning.
func PagingState(state []byte) QueryOption {
	return optionFunc(func(p *cql.Params) { p.PagingState = state })
}

// WithTimestamp sets the write timestamp, in microseconds since the Unix
// epoch, of the statement's writes, as a driver's default timestamp does.
// A USING TIMESTAMP clause in the statement takes precedence. Without it
// the engine clock gives the timestamp.
func WithTimestamp(micros int64) QueryOption {
	return optionFunc(func(p *cql.Params) { p.Timestamp, p.HasTimestamp = micros, true })
}

// WithConsistency runs the statement at consistency level cl, as a
// driver's consistency level does. Without it a statement runs at ONE. A
// level the single node cannot satisfy, such as QUORUM on a keyspace of
// replication factor 3, fails with Unavailable, as on a one-node Cassandra.
func WithConsistency(cl wire.Consistency) QueryOption {
	return optionFunc(func(p *cql.Params) { p.Consistency, p.HasConsistency = cl, true })
}

// WithSerialConsistency sets the serial consistency (SERIAL or
// LOCAL_SERIAL) of a conditional statement's Paxos round; without it the
// round is SERIAL.
func WithSerialConsistency(cl wire.Consistency) QueryOption {
	return optionFunc(func(p *cql.Params) { p.SerialConsistency = cl })
}

// Tracing asks the executor to record what the statement touched; read it
// with Rows.Trace.
func Tracing() QueryOption {
	return optionFunc(func(p *cql.Params) { p.Trace = true })
}

// callArgs is the state of one call: its parameters, for calls with a
// few bind values their room, and the memory the execution runs in (its
// state: see cql.CallRoom). Nothing the call returns points into it (the
// bound values' bytes are allocated apart, and a result lives with its
// Rows), so calls take it from calls and give it back, cleared, when they
// return.
type callArgs struct {
	p    cql.Params
	vals [inlineValues]cql.Value
	room cql.CallRoom
	// binds, when its capacity is not zero, is memory for the bound
	// values' bytes that lives as long as the call's result: newRows sets
	// it to room allocated with the Rows (see bindArgsIn).
	binds []byte
	// discard is the result of a call that returns none (Stmt.Exec).
	discard cql.Result
}

// calls recycles callArgs.
var calls = sync.Pool{New: func() any { return new(callArgs) }}

// getCall returns a cleared callArgs from calls.
func getCall() *callArgs { return calls.Get().(*callArgs) }

// release clears ca, dropping what it references, and gives it back.
func (ca *callArgs) release() {
	*ca = callArgs{}
	calls.Put(ca)
}

// inlineValues is the number of bind values a call holds without another
// allocation.
const inlineValues = 4

// splitArgs separates options from bind values. When no argument is an
// option, values is args itself (not copied).
func splitArgs(args []any) (p *cql.Params, values []any) {
	return splitArgsInto(&callArgs{}, args)
}

// splitArgsInto is splitArgs with the call's parameters held in ca, which
// the caller allocates (with the Rows of the call, for Stmt.Query).
func splitArgsInto(ca *callArgs, args []any) (p *cql.Params, values []any) {
	p = &ca.p
	opts := 0
	for _, a := range args {
		if _, ok := a.(QueryOption); ok {
			opts++
		}
	}
	if n := len(args) - opts; n > 0 && n <= inlineValues {
		p.Values = ca.vals[:0]
	}
	if opts == 0 {
		return p, args
	}
	values = make([]any, 0, len(args)-opts)
	for _, a := range args {
		if o, ok := a.(QueryOption); ok {
			o.apply(p)
			continue
		}
		values = append(values, a)
	}
	return p, values
}

// bindArgs encodes values for the bind markers described by specs into p.
// p.Values is reused when its capacity suffices. Positional values of the
// common types (see types.EncodedLen) are encoded into one buffer allocated for the
// call; every value owns a distinct part of it, which the engine may keep.
func bindArgs(p *cql.Params, specs []cql.ColumnSpec, values []any) error {
	return bindArgsIn(p, specs, values, nil)
}

// bindArgsIn is bindArgs with room for the positional values' buffer: used
// instead of an allocation when they fit it. The room must be memory that
// nothing else uses for as long as anything may keep the values (the
// engine, the result): the Rows of the call, whose memory the collector
// keeps for as long as a value points into it.
func bindArgsIn(p *cql.Params, specs []cql.ColumnSpec, values []any, room []byte) error {
	named := 0
	for _, v := range values {
		if _, ok := v.(NamedArg); ok {
			named++
		}
	}
	if named > 0 && named != len(values) {
		return fmt.Errorf("%w: named and positional values cannot be mixed", ErrArgument)
	}
	if named == 0 {
		if len(values) != len(specs) {
			return &cql.Error{Code: wire.CodeInvalid, Message: fmt.Sprintf("There were %d markers(?) in CQL but %d bound variables", len(specs), len(values))}
		}
		if cap(p.Values) >= len(values) {
			p.Values = p.Values[:len(values)]
		} else {
			p.Values = make([]cql.Value, len(values))
		}
		// The lengths of the first few values are kept from the first
		// pass for the second.
		var lens [inlineValues]int
		total := 0
		for i, v := range values {
			n := fastLen(specs[i].Type.Kind, v)
			if n < 0 {
				n = types.EncodedLenKind(specs[i].Type.Kind, v)
			}
			if i < len(lens) {
				lens[i] = n
			}
			if n > 0 {
				total += n
			}
		}
		var buf []byte
		switch {
		case total > 0 && total <= cap(room):
			buf = room[:total]
		case total > 0:
			buf = make([]byte, total)
		}
		off := 0
		for i, v := range values {
			var n int
			if i < len(lens) {
				n = lens[i]
			} else {
				n = types.EncodedLenKind(specs[i].Type.Kind, v)
			}
			if n >= 0 {
				// A value of length 0 is empty, not null: keep it non-nil.
				b := buf[off : off+n : off+n]
				if n == 0 {
					b = []byte{}
				}
				// The commonest bound values (fastLen's) are written
				// here without a call.
				switch x := v.(type) {
				case int64:
					if n == 8 {
						binary.BigEndian.PutUint64(b, uint64(x))
					} else {
						types.EncodeValueInto(b, v)
					}
				case int:
					switch n {
					case 8:
						binary.BigEndian.PutUint64(b, uint64(x))
					case 4:
						binary.BigEndian.PutUint32(b, uint32(x))
					default:
						types.EncodeValueInto(b, v)
					}
				case int32:
					if n == 4 {
						binary.BigEndian.PutUint32(b, uint32(x))
					} else {
						types.EncodeValueInto(b, v)
					}
				default:
					types.EncodeValueInto(b, v)
				}
				p.Values[i] = cql.Value{Bytes: b}
				off += n
				continue
			}
			b, err := encodeArg(specs[i], v)
			if err != nil {
				return err
			}
			p.Values[i] = b
		}
		return nil
	}
	p.Values = make([]cql.Value, len(values))
	p.Names = make([]string, len(values))
	for i, v := range values {
		na := v.(NamedArg)
		j := -1
		for k, s := range specs {
			if strings.EqualFold(s.Name, na.Name) {
				j = k
				break
			}
		}
		if j < 0 {
			return &cql.Error{Code: wire.CodeInvalid, Message: fmt.Sprintf("No column %s in statement", na.Name)}
		}
		b, err := encodeArg(specs[j], na.Value)
		if err != nil {
			return err
		}
		p.Values[i], p.Names[i] = b, specs[j].Name
	}
	return nil
}

// fastLen is types.EncodedLenKind for the commonest bound values, without
// a call: an int64 or an int for a bigint (or counter), an int32 or an int
// in range for an int; -1 for any other value, which EncodedLenKind sizes.
func fastLen(k types.Kind, v any) int {
	switch x := v.(type) {
	case int64:
		if k == types.Bigint || k == types.Counter {
			return 8
		}
	case int:
		switch {
		case k == types.Bigint || k == types.Counter:
			return 8
		case k == types.Int && x >= math.MinInt32 && x <= math.MaxInt32:
			return 4
		}
	case int32:
		if k == types.Int {
			return 4
		}
	}
	return -1
}

// encodeArg converts one Go value for the marker spec.
func encodeArg(spec cql.ColumnSpec, v any) (cql.Value, error) {
	if _, ok := v.(UnsetValue); ok {
		return cql.Value{Unset: true}, nil
	}
	if v != nil {
		rv := reflect.ValueOf(v)
		for rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				return cql.Value{}, nil
			}
			rv = rv.Elem()
		}
		v = rv.Interface()
	}
	b, err := types.Encode(spec.Type, v)
	if err != nil {
		return cql.Value{}, fmt.Errorf("%w: value for %s of type %s: %w", ErrArgument, spec.Name, spec.Type, err)
	}
	if b == nil {
		return cql.Value{}, nil
	}
	return cql.Value{Bytes: b}, nil
}
