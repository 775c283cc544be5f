package expr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// function is one overload of a native scalar function (Cassandra's
// cql3/functions: TimeFcts, UuidFcts, BytesConversionFcts).
type function struct {
	// ks is the keyspace of a user-defined function or aggregate, empty
	// for a native function (of keyspace system).
	ks   string
	name string
	args []types.Type
	ret  types.Type
	// impl computes the result from serialized arguments; a null argument
	// gives a null result unless the function says otherwise.
	impl func(q *query.Execution, args [][]byte) ([]byte, error)
	// volatile functions (now(), uuid(), current*()) give a new value on
	// every call and are never folded at compile time.
	volatile bool
	// udf and uda are the definition of a user function or aggregate.
	udf *schema.Function
	uda *schema.Aggregate
}

func (f *function) argList() string {
	parts := make([]string, len(f.args))
	for i, a := range f.args {
		parts[i] = a.String()
	}
	return strings.Join(parts, ", ")
}

// functions maps lower-case names to their overloads.
var functions = map[string][]*function{}

func register(name string, ret types.Type, args []types.Type, impl func(q *query.Execution, args [][]byte) ([]byte, error)) {
	volatile := len(args) == 0 // now(), uuid(), currentTimestamp(), ...
	functions[name] = append(functions[name], &function{name: name, args: args, ret: ret, impl: impl, volatile: volatile})
}

func Int64Bytes(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

func timestampOf(b []byte) time.Time { return time.UnixMilli(int64(binary.BigEndian.Uint64(b))).UTC() }

// dateBytes serializes the date of t (days since the epoch + 2^31).
func dateBytes(t time.Time) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(int64(types.DateOf(t))+(1<<31)))
}

func dateOfBytes(b []byte) time.Time {
	days := int64(binary.BigEndian.Uint32(b)) - (1 << 31)
	return time.Unix(days*86400, 0).UTC()
}

func nullSafe(f func(q *query.Execution, args [][]byte) ([]byte, error)) func(q *query.Execution, args [][]byte) ([]byte, error) {
	return func(q *query.Execution, args [][]byte) ([]byte, error) {
		for _, a := range args {
			if len(a) == 0 {
				return nil, nil
			}
		}
		return f(q, args)
	}
}

func init() {
	tu, ts, date, bigint := types.TimeUUIDType, types.TimestampType, types.DateType, types.BigintType
	register("now", tu, nil, func(q *query.Execution, _ [][]byte) ([]byte, error) {
		u := q.UUIDs.NewTimeUUID(q.Now)
		return u[:], nil
	})
	register("currenttimeuuid", tu, nil, func(q *query.Execution, _ [][]byte) ([]byte, error) {
		u := q.UUIDs.NewTimeUUID(q.Now)
		return u[:], nil
	})
	register("uuid", types.UUIDType, nil, func(*query.Execution, [][]byte) ([]byte, error) {
		u := types.NewRandomUUID()
		return u[:], nil
	})
	register("currenttimestamp", ts, nil, func(q *query.Execution, _ [][]byte) ([]byte, error) {
		return Int64Bytes(q.Now.UnixMilli()), nil
	})
	register("currentdate", date, nil, func(q *query.Execution, _ [][]byte) ([]byte, error) {
		return dateBytes(q.Now), nil
	})
	register("currenttime", types.TimeType, nil, func(q *query.Execution, _ [][]byte) ([]byte, error) {
		y, m, d := q.Now.UTC().Date()
		return Int64Bytes(q.Now.UTC().Sub(time.Date(y, m, d, 0, 0, 0, 0, time.UTC)).Nanoseconds()), nil
	})
	uuidTime := func(b []byte) time.Time {
		var u types.UUIDValue
		copy(u[:], b)
		return types.TimeUUIDTime(u)
	}
	register("totimestamp", ts, []types.Type{tu}, nullSafe(func(_ *query.Execution, a [][]byte) ([]byte, error) {
		return Int64Bytes(uuidTime(a[0]).UnixMilli()), nil
	}))
	register("totimestamp", ts, []types.Type{date}, nullSafe(func(_ *query.Execution, a [][]byte) ([]byte, error) {
		return Int64Bytes(dateOfBytes(a[0]).UnixMilli()), nil
	}))
	register("todate", date, []types.Type{tu}, nullSafe(func(_ *query.Execution, a [][]byte) ([]byte, error) {
		return dateBytes(uuidTime(a[0])), nil
	}))
	register("todate", date, []types.Type{ts}, nullSafe(func(_ *query.Execution, a [][]byte) ([]byte, error) {
		return dateBytes(timestampOf(a[0])), nil
	}))
	register("tounixtimestamp", bigint, []types.Type{tu}, nullSafe(func(_ *query.Execution, a [][]byte) ([]byte, error) {
		return Int64Bytes(uuidTime(a[0]).UnixMilli()), nil
	}))
	register("tounixtimestamp", bigint, []types.Type{ts}, nullSafe(func(_ *query.Execution, a [][]byte) ([]byte, error) {
		return a[0], nil
	}))
	register("tounixtimestamp", bigint, []types.Type{date}, nullSafe(func(_ *query.Execution, a [][]byte) ([]byte, error) {
		return Int64Bytes(dateOfBytes(a[0]).UnixMilli()), nil
	}))
	register("dateof", ts, []types.Type{tu}, nullSafe(func(_ *query.Execution, a [][]byte) ([]byte, error) {
		return Int64Bytes(uuidTime(a[0]).UnixMilli()), nil
	}))
	register("unixtimestampof", bigint, []types.Type{tu}, nullSafe(func(_ *query.Execution, a [][]byte) ([]byte, error) {
		return Int64Bytes(uuidTime(a[0]).UnixMilli()), nil
	}))
	register("mintimeuuid", tu, []types.Type{ts}, nullSafe(func(_ *query.Execution, a [][]byte) ([]byte, error) {
		u := types.MinTimeUUID(timestampOf(a[0]))
		return u[:], nil
	}))
	register("maxtimeuuid", tu, []types.Type{ts}, nullSafe(func(_ *query.Execution, a [][]byte) ([]byte, error) {
		u := types.MaxTimeUUID(timestampOf(a[0]))
		return u[:], nil
	}))
	registerFloor()
	// typeAsBlob and blobAsType for every native type
	// (BytesConversionFcts: every CQL3Type.Native but blob and varchar,
	// counter included: counterAsBlob, blobAsCounter).
	for k := types.Ascii; k <= types.Counter; k++ {
		t := types.Type{Kind: k}
		if k == types.Blob {
			continue
		}
		register(k.String()+"asblob", types.BlobType, []types.Type{t}, func(_ *query.Execution, a [][]byte) ([]byte, error) {
			return a[0], nil
		})
		name := "blobas" + k.String()
		register(name, t, []types.Type{types.BlobType}, func(_ *query.Execution, a [][]byte) ([]byte, error) {
			if a[0] != nil {
				if err := types.Validate(t, a[0]); err != nil {
					// makeFromBlobFunction: an InvalidRequest, not a
					// function failure.
					return nil, query.Invalidf("In call to function system.%s, value 0x%x is not a valid binary representation for type %s", name, a[0], t)
				}
			}
			return a[0], nil
		})
	}
	register("varcharasblob", types.BlobType, []types.Type{types.TextType}, func(_ *query.Execution, a [][]byte) ([]byte, error) { return a[0], nil })
	register("blobasvarchar", types.TextType, []types.Type{types.BlobType}, func(_ *query.Execution, a [][]byte) ([]byte, error) { return a[0], nil })
}

// compileCall compiles a function call used as a term for receiver r
// (FunctionCall.Raw.prepare): the overload is resolveFunction's, its result
// must then be assignable to r, and the arguments compile for its argument
// types.
func (c *CompileCtx) compileCall(e *parser.FuncCall, r Receiver) (Term, error) {
	fn, err := c.resolveTermCall(e, r)
	if err != nil {
		return nil, err
	}
	// AbstractFunction.testAssignment: the receiver's type must equal the
	// result's or read its bytes (isValueCompatibleWith).
	// A receiver that is not multi-cell takes the frozen form of the
	// result (a user function returns set<int>, a frozen<set<int>> column
	// takes it).
	ret := fn.ret
	if r.Typ.Kind != types.Invalid && !r.Typ.IsMultiCell() {
		ret = ret.Freeze()
	}
	if r.Typ.Kind != types.Invalid && !assignableType(ret, r.Typ) && !valueCompatible(r.Typ, ret) {
		return nil, query.Invalidf("Type error: cannot assign result of function %s (type %s) to %s (type %s)", fn.qualifiedName(), fn.ret, r.Name, r.Typ)
	}
	args := make([]Term, len(e.Args))
	for i, a := range e.Args {
		if args[i], err = c.CompileTerm(a, r.Sub(fmt.Sprintf("arg%d(%s)", i, fn.qualifiedName()), fn.args[i])); err != nil {
			return nil, err
		}
	}
	ft := funcTerm{fn: fn, args: args}
	if !fn.volatile && isConstTerms(args) {
		// Deterministic functions of constants fold at compile time.
		if v, err := ft.Eval(&query.Execution{}); err == nil {
			return ConstTerm{V: v.Bytes}, nil
		}
	}
	return ft, nil
}

// resolveTermCall finds the function a call in a term calls
// (FunctionResolver.get with the receiver's type): token() of the
// statement's table, fromJson() for the receiver's type, or a native
// function's overload (resolveFunction).
func (c *CompileCtx) resolveTermCall(e *parser.FuncCall, r Receiver) (*function, error) {
	name := callFunctionName(e)
	callKs := callKeyspace(e)
	current := ""
	if c.Table != nil {
		current = c.Table.Keyspace
	} else if r.Ks != "" {
		current = r.Ks
	}
	overloads := c.functionCandidates(callKs, name, current)
	if callKs != "" && callKs != "system" {
		if len(overloads) == 0 || e.Star {
			return nil, query.Invalidf("Unknown function %s called", callName(e))
		}
		return c.resolveCallIn(e, overloads, r)
	}
	switch name {
	case "token":
		fn, err := c.tokenFunction(r, len(e.Args))
		if err != nil {
			return nil, err
		}
		overloads = []*function{fn}
	case "tojson":
		return nil, query.Invalidf("toJson() may only be used within the selection clause of SELECT statements")
	case "fromjson":
		if r.Typ.Kind == types.Invalid {
			return nil, query.Invalidf("fromJson() cannot be used in the selection clause of a SELECT statement")
		}
		overloads = []*function{fromJSONFunction(r.Typ)}
	}
	if len(overloads) == 0 || e.Star {
		return nil, query.Invalidf("Unknown function %s called", e.Name)
	}
	return c.resolveCallIn(e, overloads, r)
}

// resolveCallIn resolves a call in a term among overloads, and refuses an
// aggregate there (FunctionCall.Raw.prepare).
func (c *CompileCtx) resolveCallIn(e *parser.FuncCall, overloads []*function, r Receiver) (*function, error) {
	args := make([]opArg, len(e.Args))
	for i, a := range e.Args {
		args[i] = c.termArg(a, r)
	}
	fn, err := c.resolveFunction(callName(e), overloads, args, r.Typ)
	if err != nil {
		return nil, err
	}
	if fn.uda != nil {
		return nil, query.Invalidf("Aggregation function are not supported in the where clause")
	}
	if err := c.used(fn); err != nil {
		return nil, err
	}
	return fn, nil
}

// callKeyspace is the keyspace a call names ("" when unqualified), as the
// parser keeps it (lower case unless quoted).
func callKeyspace(e *parser.FuncCall) string { return string(e.Keyspace) }

// callFunctionName is the function name of a call: lower case for the
// natives' lookup (their names are), as written otherwise.
func callFunctionName(e *parser.FuncCall) string { return string(e.Name) }

// tokenFunction is token() as a term for receiver r: Cassandra's
// FunctionResolver.get resolves it to the TokenFct of the receiver's table
// (the statement's table, c.Table), whose arguments are that table's
// partition key columns and whose result is the partitioner's token, a
// bigint for Murmur3 (cql3/functions/TokenFct).
func (c *CompileCtx) tokenFunction(r Receiver, nargs int) (*function, error) {
	tbl := c.Table
	if tbl == nil || (r.Table != "" && (r.Ks != tbl.Keyspace || r.Table != tbl.Name)) {
		return nil, query.Invalidf("Unknown function token called")
	}
	fn := TokenFunction(tbl, c.Partitioner)
	if nargs != len(fn.args) {
		return nil, query.Invalidf("Invalid number of arguments in call to function system.token: %d required but %d provided", len(fn.args), nargs)
	}
	return fn, nil
}

// TokenFunction is TokenFct of table tbl under partitioner part: token(k1,
// ...) of values of its partition key columns' types, the partitioner's
// token of the partition key they make (TokenFct.execute builds the key as
// CBuilder does and asks the partitioner); a null argument gives null.
// Under Murmur3 the token is a bigint, and an empty key has the minimum
// token, as Murmur3Partitioner.getToken answers; under
// ByteOrderedPartitioner it is a blob, the key's bytes (BytesToken, whose
// getTokenValidator is BytesType), the empty blob for an empty key.
func TokenFunction(tbl *schema.Table, part partitioner.Partitioner) *function {
	pk := tbl.PartitionKey()
	args := make([]types.Type, len(pk))
	for i, col := range pk {
		args[i] = col.Type
	}
	return &function{name: "token", args: args, ret: TokenType(part),
		impl: func(_ *query.Execution, a [][]byte) ([]byte, error) {
			for _, v := range a {
				if v == nil {
					return nil, nil
				}
			}
			key := a[0]
			if len(a) > 1 {
				var err error
				if key, err = partitioner.CompositeKey(a); err != nil {
					return nil, err
				}
			}
			return TokenValue(part, key), nil
		}}
}

// TokenType is the CQL type of part's tokens, the result of token() and
// the type a token() relation's value binds to: bigint for Murmur3, blob
// for ByteOrderedPartitioner (IPartitioner.getTokenValidator).
func TokenType(part partitioner.Partitioner) types.Type {
	if part.OrdersKeys() {
		return types.BlobType
	}
	return types.BigintType
}

// TokenValue is the serialized token of the serialized partition key key
// under part, as token() returns it: Murmur3's token as a bigint (the
// minimum for an empty key), or under ByteOrderedPartitioner the key's own
// bytes (a copy).
func TokenValue(part partitioner.Partitioner, key []byte) []byte {
	if part.OrdersKeys() {
		return append([]byte{}, key...)
	}
	if len(key) == 0 {
		return Int64Bytes(math.MinInt64)
	}
	return Int64Bytes(int64(partitioner.Murmur3(key)))
}

// fromJSONFunction is fromJson() for a receiver of type t
// (cql3/functions/FromJsonFct): it converts its JSON text argument as
// INSERT JSON converts a column's value; JSON null gives null.
func fromJSONFunction(t types.Type) *function {
	return &function{name: "fromjson", args: []types.Type{types.TextType}, ret: t,
		impl: nullSafe(func(_ *query.Execution, a [][]byte) ([]byte, error) {
			doc, err := types.DecodeJSON(a[0])
			if err != nil {
				return nil, fmt.Errorf("Could not decode JSON string '%s': %v", a[0], err)
			}
			b, err := types.FromJSON(t, doc)
			if err != nil {
				return nil, errors.New(UnwrapReason(err))
			}
			return b, nil
		})}
}

// toJSONFunction is toJson() of an argument of type t
// (cql3/functions/ToJsonFct): the value as SELECT JSON writes it, null as
// the text null.
func toJSONFunction(t types.Type) *function {
	return &function{name: "tojson", args: []types.Type{t}, ret: types.TextType,
		impl: func(_ *query.Execution, a [][]byte) ([]byte, error) {
			return types.AppendJSON(nil, t, a[0]), nil
		}}
}

func isConstTerms(ts []Term) bool {
	for _, t := range ts {
		if _, ok := t.(ConstTerm); !ok {
			return false
		}
	}
	return true
}

// lookupFunction finds the overload of name whose arguments take argTypes
// (the casts to timestamp and date call toTimestamp and toDate of a known
// type); calls of a statement resolve through resolveFunction.
func lookupFunction(name string, argTypes []types.Type) (*function, error) {
	overloads := functions[strings.ToLower(name)]
	if len(overloads) == 0 {
		return nil, query.Invalidf("Unknown function '%s'", name)
	}
	for _, fn := range overloads {
		if len(fn.args) != len(argTypes) {
			continue
		}
		ok := true
		for i := range argTypes {
			if !assignableType(argTypes[i], fn.args[i]) {
				ok = false
				break
			}
		}
		if ok {
			return fn, nil
		}
	}
	parts := make([]string, len(argTypes))
	for i, a := range argTypes {
		parts[i] = a.String()
	}
	return nil, query.Invalidf("Invalid call to function %s, none of its type signatures match (known type signatures: %s)", name, signatures(overloads))
}

func signatures(fs []*function) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return strings.Join(parts, ", ")
}

// registerFloor registers Cassandra 4.1's floor functions (TimeFcts,
// CASSANDRA-11871, CQL 3.4.6), in TimeFcts.all()'s order: floor(timestamp, duration
// [, start timestamp]) and floor(timeuuid, duration [, start timestamp])
// give a timestamp, floor(date, duration [, start date]) a date and
// floor(time, duration) a time, each the value rounded down to a multiple
// of the duration counted from the start (the epoch without one). Their
// refusals are invalid requests, as the Java functions throw them.
func registerFloor() {
	ts, dur, date := types.TimestampType, types.DurationType, types.DateType
	millisOf := map[types.Kind]func([]byte) int64{
		types.Timestamp: func(b []byte) int64 { return int64(binary.BigEndian.Uint64(b)) },
		types.TimeUUID: func(b []byte) int64 {
			var u types.UUIDValue
			copy(u[:], b)
			return types.TimeUUIDTime(u).UnixMilli()
		},
		types.Date: func(b []byte) int64 { return dateOfBytes(b).UnixMilli() },
	}
	floorOf := func(in, ret types.Type, withStart bool) {
		toMillis, startMillis := millisOf[in.Kind], millisOf[ret.Kind]
		args := []types.Type{in, dur}
		if withStart {
			args = append(args, ret)
		}
		register("floor", ret, args, nullSafe(func(_ *query.Execution, a [][]byte) ([]byte, error) {
			d, err := types.DecodeDuration(a[1])
			if err != nil {
				return nil, err
			}
			if err := types.FloorPrecisionError(in, d); err != nil {
				return nil, query.Invalidf("%s", err)
			}
			start := int64(0)
			if withStart {
				start = startMillis(a[2])
			}
			floor, err := types.FloorTimestamp(toMillis(a[0]), d, start)
			if err != nil {
				return nil, query.Invalidf("%s", err)
			}
			if ret.Kind == types.Date {
				return dateBytes(time.UnixMilli(floor).UTC()), nil
			}
			return Int64Bytes(floor), nil
		}))
	}
	for _, in := range []types.Type{ts, types.TimeUUIDType, date} {
		ret := ts
		if in.Kind == types.Date {
			ret = date
		}
		floorOf(in, ret, false)
		floorOf(in, ret, true)
	}
	register("floor", types.TimeType, []types.Type{types.TimeType, dur}, nullSafe(func(_ *query.Execution, a [][]byte) ([]byte, error) {
		d, err := types.DecodeDuration(a[1])
		if err != nil {
			return nil, err
		}
		floor, err := types.FloorTime(int64(binary.BigEndian.Uint64(a[0])), d)
		if err != nil {
			return nil, query.Invalidf("%s", err)
		}
		return Int64Bytes(floor), nil
	}))
}

// functionError is the error of a native function's execution: an invalid
// request the function refuses with (the floor functions' checks) as it is,
// any other failure as a function failure naming the function and its
// argument types.
func functionError(fn *function, err error) error {
	var qe *query.Error
	if errors.As(err, &qe) {
		return qe
	}
	return &query.Error{Code: wire.CodeFunctionFailure, Message: fmt.Sprintf("execution of '%s[%s]' failed: %v", fn.qualifiedName(), fn.argList(), err)}
}
