package javaudf

import (
	"math"
	"math/big"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/minicass/minicass/types"
)

// callOwn runs an unqualified call: a method of the generated class,
// which the checker allows only for Object's methods.
func callOwn(fr *frame, name string, args []any, line int) any {
	switch name {
	case "hashCode":
		return int32(0)
	case "toString":
		return "JavaUDF"
	case "equals":
		return false
	}
	panic(&UnsupportedError{Line: line, Construct: name + "()"})
}

// intArg is args[i] as an int, throwing NullPointerException for null.
func intArg(args []any, i int) int {
	if i >= len(args) || args[i] == nil {
		throwNPE()
	}
	return int(toInt64(args[i]))
}

// strArg is args[i] as a String (its valueOf for other values).
func strArg(args []any, i int) string {
	if i >= len(args) {
		return ""
	}
	s, ok := args[i].(string)
	if !ok {
		if args[i] == nil {
			throwNPE()
		}
		return javaString(args[i])
	}
	return s
}

// callMethod runs an instance method on a non-null receiver. The checker
// enforces the arity where it knows the receiver's type; here it is checked
// again for receivers it did not know.
func callMethod(fr *frame, recv any, name string, args []any, line int) any {
	if r, ok := instanceArityOf(groupOf(simpleClass(recv)), name); ok && !r.accepts(len(args)) {
		panic(&UnsupportedError{Line: line, Construct: "the method " + simpleClass(recv) + "." + name + " with " + itoa(int64(len(args))) + " arguments"})
	}
	switch name {
	case "equals":
		if len(args) == 1 {
			return javaEquals(recv, args[0])
		}
	case "hashCode":
		if _, ok := recv.(*jclass); ok {
			// Class.hashCode is the identity hash, which a JVM does not fix.
			panic(&UnsupportedError{Line: line, Construct: "the method Class.hashCode"})
		}
		if len(args) == 0 {
			return hashCode(recv)
		}
	case "toString":
		if len(args) == 0 {
			return javaString(recv)
		}
	case "getClass":
		if len(args) == 0 {
			return getClass(recv, line)
		}
	}
	switch r := recv.(type) {
	case *jclass:
		return classMethod(r, name, args, line)
	case string:
		return stringMethod(r, name, args, line)
	case int32, int64, int16, int8, float32, float64:
		switch name {
		case "intValue":
			return convertNum(r, "int")
		case "longValue":
			return convertNum(r, "long")
		case "doubleValue":
			return convertNum(r, "double")
		case "floatValue":
			return convertNum(r, "float")
		case "shortValue":
			return convertNum(r, "short")
		case "byteValue":
			return convertNum(r, "byte")
		case "compareTo":
			return int32(compareJava(r, args[0]))
		case "isNaN":
			return math.IsNaN(toFloat64(r))
		case "isInfinite":
			return math.IsInf(toFloat64(r), 0)
		}
	case bool:
		switch name {
		case "booleanValue":
			return r
		case "compareTo":
			return int32(compareJava(r, args[0]))
		}
	case jchar:
		switch name {
		case "charValue":
			return r
		case "compareTo":
			if args[0] == nil {
				throwNPE()
			}
			return int32(r) - int32(toInt64(args[0]))
		}
	case *jlist:
		return listMethod(r, name, args, line)
	case *jset:
		return setMethod(r, name, args, line)
	case *jmap:
		return mapMethod(r, name, args, line)
	case *jentry:
		switch name {
		case "getKey":
			return r.k
		case "getValue":
			return r.v
		case "setValue":
			old := r.v
			r.v = args[0]
			if r.m != nil {
				checkMutable(r.m.immutable)
				if i := r.m.find(r.k); i >= 0 {
					r.m.vals[i] = args[0]
				}
			}
			return old
		}
	case *jiterator:
		switch name {
		case "hasNext":
			return r.i < len(r.items)
		case "next":
			if r.i >= len(r.items) {
				throwJava("NoSuchElementException", "")
			}
			r.i++
			return r.items[r.i-1]
		}
	case *jbuilder:
		return builderMethod(r, name, args, line)
	case *jexception:
		switch name {
		case "getMessage", "getLocalizedMessage":
			if !r.hasMsg {
				return nil
			}
			return r.msg
		case "getCause":
			if r.cause == nil {
				return nil
			}
			return r.cause
		}
	case time.Time:
		switch name {
		case "getTime":
			return r.UnixMilli()
		case "before":
			return r.Before(dateArg(args))
		case "after":
			return r.After(dateArg(args))
		case "compareTo":
			return int32(r.Compare(dateArg(args)))
		}
	case types.UUIDValue:
		switch name {
		case "version":
			return int32(r.Version())
		case "variant":
			return int32(r[8] >> 6)
		case "compareTo":
			return int32(compareJava(r, args[0]))
		case "getMostSignificantBits":
			return int64(be64(r[:8]))
		case "getLeastSignificantBits":
			return int64(be64(r[8:]))
		case "timestamp":
			if r.Version() != 1 {
				throwJava("UnsupportedOperationException", "Not a time-based UUID")
			}
			hi := be64(r[:8])
			return int64((hi&0xfff)<<48 | (hi>>16&0xffff)<<32 | hi>>32)
		}
	case types.DateValue:
		t := r.Time()
		switch name {
		case "getDaysSinceEpoch":
			return int32(r)
		case "getMillisSinceEpoch":
			return int64(r) * 86400000
		case "getYear":
			return int32(t.Year())
		case "getMonth":
			return int32(t.Month())
		case "getDay":
			return int32(t.Day())
		}
	case types.DurationValue:
		switch name {
		case "getMonths":
			return r.Months
		case "getDays":
			return r.Days
		case "getNanoseconds":
			return r.Nanos
		}
	case net.IP:
		switch name {
		case "getHostAddress":
			return strings.TrimPrefix(javaString(r), "/")
		case "getAddress":
			b := r
			if v4 := r.To4(); v4 != nil && len(r) == 4 {
				b = v4
			}
			arr := &jarray{elem: tInt8, vals: make([]any, len(b))}
			for i, c := range b {
				arr.vals[i] = int8(c)
			}
			return arr
		}
	case *jbuffer:
		return bufferMethod(r, name, args, line)
	case *big.Int:
		return bigIntMethod(r, name, args, line)
	case types.DecimalValue:
		return decimalMethod(r, name, args, line)
	case *udtValue:
		return udtMethod(r, name, args, line)
	case *udfContext:
		return r.call(name, args, line)
	case *jarray:
		if name == "clone" {
			return &jarray{elem: r.elem, vals: slices.Clone(r.vals)}
		}
	}
	panic(&UnsupportedError{Line: line, Construct: "the method " + simpleClass(recv) + "." + name})
}

// dateArg is args[0] as a Date, throwing NullPointerException otherwise.
func dateArg(args []any) time.Time {
	t, ok := args[0].(time.Time)
	if !ok {
		throwNPE()
	}
	return t
}
