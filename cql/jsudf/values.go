package jsudf

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"net"
	"strconv"
	"time"

	"github.com/dop251/goja"

	"github.com/minicass/minicass/types"
)

// rt is one call's runtime.
type rt struct {
	vm *goja.Runtime
	fn *Function
}

// jobj is a Java object as a script sees it (a goja dynamic object): its
// Java class, its CQL type where it holds a CQL value, and the value in
// types.Decode's Go form. Its methods are the few the shim implements
// (java.go); any other member reads as undefined, so calling it is a
// TypeError, as calling a missing Java method is in Nashorn.
type jobj struct {
	r     *rt
	class string
	t     types.Type
	v     any
	// members are extra properties (a class's statics, an exception's
	// message).
	members map[string]goja.Value
	// methods returns the method named name, or nil.
	methods func(j *jobj, name string) func(goja.FunctionCall) goja.Value
}

func (j *jobj) Get(key string) goja.Value {
	if m, ok := j.members[key]; ok {
		return m
	}
	if key == "toString" {
		return j.r.vm.ToValue(func(goja.FunctionCall) goja.Value { return j.r.vm.ToValue(j.String()) })
	}
	if key == "valueOf" {
		if f, ok := toFloat(j.v); ok && isNumberClass(j.class) {
			return j.r.vm.ToValue(func(goja.FunctionCall) goja.Value { return j.r.vm.ToValue(f) })
		}
		return j.r.vm.ToValue(func(goja.FunctionCall) goja.Value { return j.r.vm.ToValue(j.String()) })
	}
	if key == "getClass" {
		return j.r.vm.ToValue(func(goja.FunctionCall) goja.Value { return j.r.classObject(j.class) })
	}
	if key == "equals" {
		return j.r.vm.ToValue(func(c goja.FunctionCall) goja.Value {
			return j.r.vm.ToValue(j.r.javaEquals(j.r.vm.ToValue(j), c.Argument(0)))
		})
	}
	if key == "hashCode" {
		return j.r.vm.ToValue(func(goja.FunctionCall) goja.Value { return j.r.vm.ToValue(0) })
	}
	if j.methods != nil {
		if m := j.methods(j, key); m != nil {
			return j.r.vm.ToValue(m)
		}
	}
	if l, ok := j.v.([]any); ok && j.t.Kind == types.List {
		if i, err := strconv.Atoi(key); err == nil && i >= 0 && i < len(l) {
			return j.r.toJS(j.t.Params[0], l[i])
		}
	}
	if es, ok := j.v.([]types.MapEntry); ok && j.t.Kind == types.Map && j.t.Params[0].Kind == types.Text {
		for _, e := range es {
			if e.Key == key {
				return j.r.toJS(j.t.Params[1], e.Value)
			}
		}
	}
	return goja.Undefined()
}

func (j *jobj) Set(string, goja.Value) bool { return false }
func (j *jobj) Has(key string) bool         { return !goja.IsUndefined(j.Get(key)) }
func (j *jobj) Delete(string) bool          { return false }
func (j *jobj) Keys() []string              { return nil }

// String is the object's Java toString.
func (j *jobj) String() string {
	switch v := j.v.(type) {
	case nil:
		if m, ok := j.members["message"]; ok && !goja.IsUndefined(m) && !goja.IsNull(m) {
			return j.class + ": " + m.String()
		}
		return j.class
	case string:
		return v
	case int8, int16, int32, int64:
		return fmt.Sprint(v)
	case time.Duration:
		return strconv.FormatInt(int64(v), 10)
	case float32:
		return types.JavaFloat(float64(v), 32)
	case float64:
		return types.JavaFloat(v, 64)
	case *big.Int:
		return v.String()
	case types.DecimalValue:
		return v.String()
	case types.UUIDValue:
		return v.String()
	case time.Time:
		return v.UTC().Format("Mon Jan 02 15:04:05 UTC 2006")
	case types.DateValue:
		return v.ISOString()
	case types.DurationValue:
		return v.String()
	case net.IP:
		return "/" + v.String()
	case []byte:
		return fmt.Sprintf("java.nio.HeapByteBuffer[pos=0 lim=%d cap=%d]", len(v), len(v))
	}
	b, err := types.Encode(j.t, j.v)
	if err != nil {
		return j.class
	}
	return types.Format(j.t, b)
}

func isNumberClass(c string) bool {
	switch c {
	case "java.lang.Byte", "java.lang.Short", "java.lang.Integer", "java.lang.Long", "java.lang.Float",
		"java.lang.Double", "java.math.BigInteger", "java.math.BigDecimal":
		return true
	}
	return false
}

// javaClass is the Java class of a CQL type's values, as the driver's
// codecs that 4.1's UDFs use give it (CQL time is a Long of nanoseconds).
func javaClass(t types.Type) string {
	if t.UDT != nil {
		return "org.apache.cassandra.cql3.functions.types.UDTValue"
	}
	switch t.Kind {
	case types.Ascii, types.Text:
		return "java.lang.String"
	case types.Int:
		return "java.lang.Integer"
	case types.Bigint, types.Counter, types.Time:
		return "java.lang.Long"
	case types.Smallint:
		return "java.lang.Short"
	case types.Tinyint:
		return "java.lang.Byte"
	case types.Float:
		return "java.lang.Float"
	case types.Double:
		return "java.lang.Double"
	case types.Boolean:
		return "java.lang.Boolean"
	case types.Varint:
		return "java.math.BigInteger"
	case types.Decimal:
		return "java.math.BigDecimal"
	case types.UUID, types.TimeUUID:
		return "java.util.UUID"
	case types.Timestamp:
		return "java.util.Date"
	case types.Date:
		return "org.apache.cassandra.cql3.functions.types.LocalDate"
	case types.Duration:
		return "org.apache.cassandra.cql3.functions.types.Duration"
	case types.Blob:
		return "java.nio.ByteBuffer"
	case types.Inet:
		return "java.net.InetAddress"
	case types.List:
		return "java.util.List"
	case types.Set:
		return "java.util.Set"
	case types.Map:
		return "java.util.Map"
	case types.Tuple:
		return "org.apache.cassandra.cql3.functions.types.TupleValue"
	}
	return "java.nio.ByteBuffer"
}

// toJS binds a CQL value (Go form) as Nashorn sees the Java object the
// driver's codec makes of it: String, Integer and Double are JavaScript
// strings and numbers, Boolean a boolean; every other class is a Java
// object (jobj), the numeric ones with valueOf giving their double value,
// so that arithmetic on them works as in Nashorn.
func (r *rt) toJS(t types.Type, v any) goja.Value {
	if v == nil {
		return goja.Null()
	}
	if _, ok := v.(types.EmptyValue); ok {
		return goja.Null()
	}
	switch x := v.(type) {
	case string:
		return r.vm.ToValue(x)
	case int32:
		if t.Kind == types.Int {
			return r.vm.ToValue(float64(x))
		}
	case float64:
		return r.vm.ToValue(x)
	case bool:
		return r.vm.ToValue(x)
	case time.Duration:
		v = int64(x)
	}
	j := &jobj{r: r, class: javaClass(t), t: t, v: v}
	switch {
	case t.UDT != nil || t.Kind == types.Tuple:
		j.methods = tupleMethods
	case t.Kind == types.List || t.Kind == types.Set:
		j.methods = collectionMethods
		if t.Kind == types.List {
			j.class = "java.util.ArrayList"
		} else {
			j.class = "java.util.LinkedHashSet"
		}
	case t.Kind == types.Map:
		j.methods = mapMethods
		j.class = "java.util.LinkedHashMap"
	default:
		j.methods = valueMethods
	}
	return r.vm.NewDynamicObject(j)
}

// number wraps a Java number of class c (a Long, Short, ... ) around v.
func (r *rt) number(c string, v any) goja.Value {
	if c == "java.lang.Integer" || c == "java.lang.Double" {
		f, _ := toFloat(v)
		return r.vm.ToValue(f)
	}
	t := types.Type{Kind: types.Bigint}
	switch c {
	case "java.lang.Short":
		t.Kind = types.Smallint
	case "java.lang.Byte":
		t.Kind = types.Tinyint
	case "java.lang.Float":
		t.Kind = types.Float
	case "java.math.BigInteger":
		t.Kind = types.Varint
	case "java.math.BigDecimal":
		t.Kind = types.Decimal
	}
	return r.toJS(t, v)
}

// unwrap returns the Java object behind v, if it is one.
func unwrap(v goja.Value) (*jobj, bool) {
	o, ok := v.(*goja.Object)
	if !ok {
		return nil, false
	}
	j, ok := o.Export().(*jobj)
	return j, ok
}

// javaValue is v as a Java method taking Object receives it: the Go form
// of its CQL value for a Java object, float64 for a number (a Double),
// string, bool, or nil.
func javaValue(v goja.Value) any {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil
	}
	if j, ok := unwrap(v); ok {
		return j.v
	}
	switch x := v.Export().(type) {
	case int64:
		return float64(x)
	case float64, string, bool:
		return x
	}
	return v.String()
}

// invalidType is the driver codec's refusal of a result whose class is not
// the return type's (UDFunction.decompose).
func invalidType(t types.Type) error {
	return &Exception{Class: "org.apache.cassandra.cql3.functions.types.exceptions.InvalidTypeException",
		Message: "Invalid value for CQL type " + cqlName(t)}
}

// cqlName is the driver's DataType.Name of t, as the codec's message
// prints it.
func cqlName(t types.Type) string {
	if t.UDT != nil {
		return "udt"
	}
	if t.Custom != "" {
		return "custom"
	}
	return t.Kind.String()
}

// result converts the script's completion value to return type t as
// ScriptBasedUDFunction.executeScriptInternal does: null stays null; an
// object of the return type's class is kept; a Number of another class is
// converted with intValue(), longValue(), ... (a BigInteger through
// BigDecimal, a BigDecimal from its toString); anything else is refused by
// the codec.
func (r *rt) result(t types.Type, v goja.Value) (any, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, nil
	}
	class := ""
	var val any
	if j, ok := unwrap(v); ok {
		class, val = j.class, j.v
	} else {
		switch x := v.Export().(type) {
		case int64:
			class, val = "java.lang.Double", float64(x)
		case float64:
			class, val = "java.lang.Double", x
		case string:
			class, val = "java.lang.String", x
		case bool:
			class, val = "java.lang.Boolean", x
		default:
			return nil, invalidType(t)
		}
	}
	want := javaClass(t)
	if assignable(want, class) {
		x, _ := fromJava(t, val)
		if _, err := types.Encode(t, x); err != nil {
			// A collection or tuple of other element types: the codec's
			// cast of an element fails.
			return nil, &Exception{Class: "java.lang.ClassCastException", Message: err.Error()}
		}
		return x, nil
	}
	if !isNumberClass(class) || !isNumberClass(want) {
		return nil, invalidType(t)
	}
	x, err := convertNumber(want, class, val)
	if err != nil {
		return nil, err
	}
	return fromJava(t, x)
}

// assignable is Class.isAssignableFrom for the classes of the shim.
func assignable(want, class string) bool {
	if want == class {
		return true
	}
	switch want {
	case "java.util.List":
		return class == "java.util.ArrayList"
	case "java.util.Set":
		return class == "java.util.LinkedHashSet"
	case "java.util.Map":
		return class == "java.util.LinkedHashMap"
	}
	return false
}

// fromJava is the Go form types.Encode takes for t of a value of t's Java
// class.
func fromJava(t types.Type, v any) (any, error) {
	if t.Kind == types.Time {
		if n, ok := v.(int64); ok {
			return time.Duration(n), nil
		}
	}
	return v, nil
}

// convertNumber converts v, a Number of class class, to class want as
// ScriptBasedUDFunction does.
func convertNumber(want, class string, v any) (any, error) {
	switch want {
	case "java.lang.Integer":
		return int32(longValue(v, 32)), nil
	case "java.lang.Long":
		return longValue(v, 64), nil
	case "java.lang.Short":
		return int16(longValue(v, 16)), nil
	case "java.lang.Byte":
		return int8(longValue(v, 8)), nil
	case "java.lang.Float":
		f, _ := toFloat(v)
		return float32(f), nil
	case "java.lang.Double":
		f, _ := toFloat(v)
		return f, nil
	case "java.math.BigInteger":
		switch x := v.(type) {
		case types.DecimalValue:
			return decimalToBigInt(x), nil
		case float64, float32:
			d, err := parseBigDecimal(numberString(x))
			if err != nil {
				return nil, err
			}
			return decimalToBigInt(d), nil
		}
		return big.NewInt(longValue(v, 64)), nil
	case "java.math.BigDecimal":
		return parseBigDecimal(numberString(v))
	}
	return nil, fmt.Errorf("%w: conversion to %s", ErrInternal, want)
}

// numberString is a Java Number's toString.
func numberString(v any) string {
	switch x := v.(type) {
	case float64:
		return types.JavaFloat(x, 64)
	case float32:
		return types.JavaFloat(float64(x), 32)
	}
	return fmt.Sprint(v)
}

// parseBigDecimal is new BigDecimal(String), whose NumberFormatException
// ("NaN", "Infinity") the call ends with.
func parseBigDecimal(s string) (types.DecimalValue, error) {
	d, ok := types.ParseDecimal(s)
	if !ok {
		return types.DecimalValue{}, &Exception{Class: "java.lang.NumberFormatException",
			Message: "Character " + string(s[0]) + " is neither a decimal digit number, decimal point, nor \"e\" notation exponential mark."}
	}
	return d, nil
}

// decimalToBigInt is BigDecimal.toBigInteger: the integer part, truncated
// toward zero.
func decimalToBigInt(d types.DecimalValue) *big.Int {
	n := new(big.Int).Set(d.Unscaled)
	if d.Scale <= 0 {
		return n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-d.Scale)), nil))
	}
	return n.Quo(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil))
}

// toFloat is a Number's doubleValue.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f, true
	case types.DecimalValue:
		f, _ := strconv.ParseFloat(x.String(), 64)
		return f, true
	}
	return 0, false
}

// longValue is a Number's intValue() (bits 32), longValue() (64),
// shortValue() (16) or byteValue() (8), sign-extended: a double or float
// goes through Java's saturating (int) or (long) cast first, a BigInteger
// or BigDecimal keeps its low bits.
func longValue(v any, bits int) int64 {
	var n int64
	switch x := v.(type) {
	case float64, float32:
		f, _ := toFloat(x)
		lim := 64
		if bits < 64 {
			lim = 32
		}
		n = saturate(f, lim)
	case int8:
		n = int64(x)
	case int16:
		n = int64(x)
	case int32:
		n = int64(x)
	case int64:
		n = x
	case *big.Int:
		n = lowBits(x)
	case types.DecimalValue:
		n = lowBits(decimalToBigInt(x))
	}
	switch bits {
	case 32:
		return int64(int32(n))
	case 16:
		return int64(int16(n))
	case 8:
		return int64(int8(n))
	}
	return n
}

// saturate is Java's (int) (bits 32) or (long) cast of a double.
func saturate(f float64, bits int) int64 {
	if math.IsNaN(f) {
		return 0
	}
	lo, hi := float64(math.MinInt32), float64(math.MaxInt32)
	if bits == 64 {
		lo, hi = -9223372036854775808.0, 9223372036854775807.0
	}
	switch {
	case f <= lo:
		if bits == 64 {
			return math.MinInt64
		}
		return math.MinInt32
	case f >= hi:
		if bits == 64 {
			return math.MaxInt64
		}
		return math.MaxInt32
	}
	return int64(f)
}

// lowBits is BigInteger.longValue: the low 64 bits in two's complement.
func lowBits(x *big.Int) int64 {
	m := new(big.Int).And(x, new(big.Int).SetUint64(math.MaxUint64))
	return int64(m.Uint64())
}

// goValue converts a script value to the Go form of CQL type t, as a Java
// method taking that type's class receives it (Nashorn's conversion of a
// number to Integer, Long, ...). ok is false when it cannot.
func goValue(t types.Type, v goja.Value) (any, bool) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, true
	}
	want := javaClass(t)
	if j, ok := unwrap(v); ok {
		if assignable(want, j.class) {
			x, _ := fromJava(t, j.v)
			return x, true
		}
		if isNumberClass(j.class) && isNumberClass(want) {
			x, err := convertNumber(want, j.class, j.v)
			return x, err == nil
		}
		return nil, false
	}
	switch x := v.Export().(type) {
	case int64, float64:
		f, _ := toFloat(x)
		if !isNumberClass(want) {
			return nil, false
		}
		out, err := convertNumber(want, "java.lang.Double", f)
		if err != nil {
			return nil, false
		}
		y, _ := fromJava(t, out)
		return y, true
	case string:
		if want == "java.lang.String" {
			return x, true
		}
	case bool:
		if want == "java.lang.Boolean" {
			return x, true
		}
	}
	return nil, false
}

// javaEquals is Object.equals between two script values, comparing their
// Java values (numbers by double value).
func (r *rt) javaEquals(a, b goja.Value) bool {
	x, y := javaValue(a), javaValue(b)
	if fx, ok := toFloat(x); ok {
		fy, ok := toFloat(y)
		return ok && fx == fy
	}
	switch xv := x.(type) {
	case []byte:
		yv, ok := y.([]byte)
		return ok && bytes.Equal(xv, yv)
	case string, bool, nil:
		return x == y
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}
