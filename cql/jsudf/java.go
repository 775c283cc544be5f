package jsudf

import (
	"math"
	"math/big"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"

	"github.com/minicass/minicass/types"
)

// The Java side of a script: Nashorn lets a script call the methods of the
// Java objects it is given and reach classes through the `java` package
// object (java.lang.Math), `Packages` and `Java.type("...")`, filtered by
// 4.1's ClassFilter (UDFunction.secureResource). The shim implements the
// methods below; a class the filter hides reads as a package (Nashorn's
// JavaPackage), so using it is a TypeError, and Java.type of it throws
// java.lang.ClassNotFoundException, as in 4.1.

type method = func(goja.FunctionCall) goja.Value

// throwJava throws a Java exception of class c into the script.
func (r *rt) throwJava(c, msg string) {
	j := &jobj{r: r, class: c, members: map[string]goja.Value{"message": r.vm.ToValue(msg)}}
	j.members["getMessage"] = r.vm.ToValue(func(goja.FunctionCall) goja.Value { return r.vm.ToValue(msg) })
	panic(r.vm.NewDynamicObject(j))
}

// index reads a call's argument i as a Java int.
func (r *rt) index(c goja.FunctionCall, i int) int {
	f, _ := toFloat(javaValue(c.Argument(i)))
	return int(saturate(f, 32))
}

// valueMethods are the methods of the scalar classes (numbers, Date,
// UUID, LocalDate, Duration, ByteBuffer, InetAddress).
func valueMethods(j *jobj, name string) method {
	r := j.r
	num := func(c string, bits int) method {
		return func(goja.FunctionCall) goja.Value {
			switch c {
			case "java.lang.Double":
				f, _ := toFloat(j.v)
				return r.vm.ToValue(f)
			case "java.lang.Float":
				f, _ := toFloat(j.v)
				return r.number(c, float32(f))
			}
			n := longValue(j.v, bits)
			switch bits {
			case 32:
				return r.vm.ToValue(float64(n))
			case 16:
				return r.number(c, int16(n))
			case 8:
				return r.number(c, int8(n))
			}
			return r.number(c, n)
		}
	}
	if isNumberClass(j.class) {
		switch name {
		case "intValue":
			return num("java.lang.Integer", 32)
		case "longValue":
			return num("java.lang.Long", 64)
		case "shortValue":
			return num("java.lang.Short", 16)
		case "byteValue":
			return num("java.lang.Byte", 8)
		case "doubleValue":
			return num("java.lang.Double", 64)
		case "floatValue":
			return num("java.lang.Float", 32)
		}
	}
	switch v := j.v.(type) {
	case time.Time:
		if name == "getTime" {
			return func(goja.FunctionCall) goja.Value { return r.number("java.lang.Long", v.UnixMilli()) }
		}
	case types.UUIDValue:
		switch name {
		case "version":
			return func(goja.FunctionCall) goja.Value { return r.vm.ToValue(float64(v[6] >> 4)) }
		case "getMostSignificantBits":
			return func(goja.FunctionCall) goja.Value { return r.number("java.lang.Long", beInt64(v[:8])) }
		case "getLeastSignificantBits":
			return func(goja.FunctionCall) goja.Value { return r.number("java.lang.Long", beInt64(v[8:])) }
		}
	case types.DateValue:
		d := time.Unix(int64(v)*86400, 0).UTC()
		switch name {
		case "getDaysSinceEpoch":
			return func(goja.FunctionCall) goja.Value { return r.vm.ToValue(float64(v)) }
		case "getYear":
			return func(goja.FunctionCall) goja.Value { return r.vm.ToValue(float64(d.Year())) }
		case "getMonth":
			return func(goja.FunctionCall) goja.Value { return r.vm.ToValue(float64(d.Month())) }
		case "getDay":
			return func(goja.FunctionCall) goja.Value { return r.vm.ToValue(float64(d.Day())) }
		}
	case types.DurationValue:
		switch name {
		case "getMonths":
			return func(goja.FunctionCall) goja.Value { return r.vm.ToValue(float64(v.Months)) }
		case "getDays":
			return func(goja.FunctionCall) goja.Value { return r.vm.ToValue(float64(v.Days)) }
		case "getNanoseconds":
			return func(goja.FunctionCall) goja.Value { return r.number("java.lang.Long", v.Nanos) }
		}
	case []byte:
		switch name {
		case "remaining", "limit", "capacity":
			return func(goja.FunctionCall) goja.Value { return r.vm.ToValue(float64(len(v))) }
		case "position":
			return func(goja.FunctionCall) goja.Value { return r.vm.ToValue(0.0) }
		case "get":
			return func(c goja.FunctionCall) goja.Value {
				i := r.index(c, 0)
				if i < 0 || i >= len(v) {
					r.throwJava("java.lang.IndexOutOfBoundsException", "")
				}
				return r.number("java.lang.Byte", int8(v[i]))
			}
		}
	case net.IP:
		if name == "getHostAddress" {
			return func(goja.FunctionCall) goja.Value { return r.vm.ToValue(v.String()) }
		}
	}
	return nil
}

func beInt64(b []byte) int64 {
	var n uint64
	for _, x := range b {
		n = n<<8 | uint64(x)
	}
	return int64(n)
}

// elemEqual reports whether script value x equals the element e of CQL
// type t (Object.equals on the Java values: the same serialized bytes).
func (r *rt) elemEqual(t types.Type, e any, x goja.Value) bool {
	g, ok := goValue(t, x)
	if !ok {
		return false
	}
	if g == nil || e == nil {
		return g == nil && e == nil
	}
	a, err1 := types.Encode(t, e)
	b, err2 := types.Encode(t, g)
	return err1 == nil && err2 == nil && string(a) == string(b)
}

// iterator is a java.util.Iterator over vals, bound as Nashorn would.
func (r *rt) iterator(n int, at func(i int) goja.Value) goja.Value {
	i := 0
	it := &jobj{r: r, class: "java.util.Iterator"}
	it.methods = func(_ *jobj, name string) method {
		switch name {
		case "hasNext":
			return func(goja.FunctionCall) goja.Value { return r.vm.ToValue(i < n) }
		case "next":
			return func(goja.FunctionCall) goja.Value {
				if i >= n {
					r.throwJava("java.util.NoSuchElementException", "")
				}
				i++
				return at(i - 1)
			}
		}
		return nil
	}
	return r.vm.NewDynamicObject(it)
}

// collectionMethods are List's and Set's (an ArrayList, a LinkedHashSet).
func collectionMethods(j *jobj, name string) method {
	r := j.r
	et := j.t.Params[0]
	list := func() []any { l, _ := j.v.([]any); return l }
	switch name {
	case "size":
		return func(goja.FunctionCall) goja.Value { return r.vm.ToValue(float64(len(list()))) }
	case "isEmpty":
		return func(goja.FunctionCall) goja.Value { return r.vm.ToValue(len(list()) == 0) }
	case "contains":
		return func(c goja.FunctionCall) goja.Value {
			for _, e := range list() {
				if r.elemEqual(et, e, c.Argument(0)) {
					return r.vm.ToValue(true)
				}
			}
			return r.vm.ToValue(false)
		}
	case "iterator":
		return func(goja.FunctionCall) goja.Value {
			l := list()
			return r.iterator(len(l), func(i int) goja.Value { return r.toJS(et, l[i]) })
		}
	case "add":
		return func(c goja.FunctionCall) goja.Value {
			g, ok := goValue(et, c.Argument(0))
			if !ok {
				r.throwJava("java.lang.ClassCastException", "")
			}
			if j.t.Kind == types.Set {
				for _, e := range list() {
					if r.elemEqual(et, e, c.Argument(0)) {
						return r.vm.ToValue(false)
					}
				}
			}
			j.v = append(list(), g)
			return r.vm.ToValue(true)
		}
	}
	if j.t.Kind != types.List {
		return nil
	}
	switch name {
	case "get":
		return func(c goja.FunctionCall) goja.Value {
			l, i := list(), r.index(c, 0)
			if i < 0 || i >= len(l) {
				r.throwJava("java.lang.IndexOutOfBoundsException", "Index: "+strconv.Itoa(i)+", Size: "+strconv.Itoa(len(l)))
			}
			return r.toJS(et, l[i])
		}
	case "indexOf":
		return func(c goja.FunctionCall) goja.Value {
			for i, e := range list() {
				if r.elemEqual(et, e, c.Argument(0)) {
					return r.vm.ToValue(float64(i))
				}
			}
			return r.vm.ToValue(-1.0)
		}
	}
	return nil
}

// mapMethods are Map's (a LinkedHashMap).
func mapMethods(j *jobj, name string) method {
	r := j.r
	kt, vt := j.t.Params[0], j.t.Params[1]
	entries := func() []types.MapEntry { es, _ := j.v.([]types.MapEntry); return es }
	find := func(k goja.Value) int {
		for i, e := range entries() {
			if r.elemEqual(kt, e.Key, k) {
				return i
			}
		}
		return -1
	}
	view := func(t types.Type, pick func(e types.MapEntry) any) method {
		return func(goja.FunctionCall) goja.Value {
			es := entries()
			vals := make([]any, len(es))
			for i, e := range es {
				vals[i] = pick(e)
			}
			return r.toJS(types.Type{Kind: types.Set, Params: []types.Type{t}}, vals)
		}
	}
	switch name {
	case "size":
		return func(goja.FunctionCall) goja.Value { return r.vm.ToValue(float64(len(entries()))) }
	case "isEmpty":
		return func(goja.FunctionCall) goja.Value { return r.vm.ToValue(len(entries()) == 0) }
	case "get":
		return func(c goja.FunctionCall) goja.Value {
			if i := find(c.Argument(0)); i >= 0 {
				return r.toJS(vt, entries()[i].Value)
			}
			return goja.Null()
		}
	case "containsKey":
		return func(c goja.FunctionCall) goja.Value { return r.vm.ToValue(find(c.Argument(0)) >= 0) }
	case "keySet":
		return view(kt, func(e types.MapEntry) any { return e.Key })
	case "values":
		return func(goja.FunctionCall) goja.Value {
			es := entries()
			vals := make([]any, len(es))
			for i, e := range es {
				vals[i] = e.Value
			}
			return r.toJS(types.Type{Kind: types.List, Params: []types.Type{vt}}, vals)
		}
	case "put":
		return func(c goja.FunctionCall) goja.Value {
			k, ok1 := goValue(kt, c.Argument(0))
			v, ok2 := goValue(vt, c.Argument(1))
			if !ok1 || !ok2 {
				r.throwJava("java.lang.ClassCastException", "")
			}
			if i := find(c.Argument(0)); i >= 0 {
				old := entries()[i].Value
				entries()[i].Value = v
				return r.toJS(vt, old)
			}
			j.v = append(entries(), types.MapEntry{Key: k, Value: v})
			return goja.Null()
		}
	}
	return nil
}

// tupleField resolves a TupleValue's index or a UDTValue's field name.
func (r *rt) tupleField(j *jobj, arg goja.Value) int {
	if j.t.UDT != nil {
		if s, ok := arg.Export().(string); ok {
			for i, f := range j.t.UDT.Fields {
				if f == s {
					return i
				}
			}
			r.throwJava("java.lang.IllegalArgumentException", s+" is not a field defined in this UDT")
		}
	}
	f, ok := toFloat(javaValue(arg))
	i := int(f)
	if !ok || i < 0 || i >= len(j.t.Params) {
		r.throwJava("java.lang.IndexOutOfBoundsException", "Index "+strconv.Itoa(i)+" out of bounds for length "+strconv.Itoa(len(j.t.Params)))
	}
	return i
}

// tupleGetters maps the driver's typed getters (getInt, getString, ...)
// to the CQL kinds whose fields they read.
var tupleGetters = map[string][]types.Kind{
	"Bool": {types.Boolean}, "Byte": {types.Tinyint}, "Short": {types.Smallint}, "Int": {types.Int},
	"Long": {types.Bigint, types.Counter}, "Timestamp": {types.Timestamp}, "Date": {types.Date},
	"Time": {types.Time}, "Float": {types.Float}, "Double": {types.Double}, "Bytes": {types.Blob},
	"BytesUnsafe": nil, "String": {types.Text, types.Ascii}, "Varint": {types.Varint},
	"Decimal": {types.Decimal}, "UUID": {types.UUID, types.TimeUUID}, "Inet": {types.Inet},
	"List": {types.List}, "Set": {types.Set}, "Map": {types.Map}, "UDTValue": {types.Tuple},
	"TupleValue": {types.Tuple}, "Object": nil,
}

// tupleMethods are TupleValue's and UDTValue's: the typed getters and
// setters by index (or field name), isNull.
func tupleMethods(j *jobj, name string) method {
	r := j.r
	fields := func() []any {
		if m, ok := j.v.(map[string]any); ok {
			out := make([]any, len(j.t.UDT.Fields))
			for i, f := range j.t.UDT.Fields {
				out[i] = m[f]
			}
			j.v = out
		}
		l, _ := j.v.([]any)
		if len(l) < len(j.t.Params) {
			l = append(l, make([]any, len(j.t.Params)-len(l))...)
			j.v = l
		}
		return l
	}
	kindOK := func(kinds []types.Kind, t types.Type) bool {
		if kinds == nil {
			return true
		}
		for _, k := range kinds {
			if t.Kind == k {
				return true
			}
		}
		return false
	}
	if name == "isNull" {
		return func(c goja.FunctionCall) goja.Value {
			return r.vm.ToValue(fields()[r.tupleField(j, c.Argument(0))] == nil)
		}
	}
	if g, ok := strings.CutPrefix(name, "get"); ok {
		kinds, ok := tupleGetters[g]
		if !ok {
			return nil
		}
		return func(c goja.FunctionCall) goja.Value {
			i := r.tupleField(j, c.Argument(0))
			ft := j.t.Params[i]
			if !kindOK(kinds, ft) {
				r.throwJava("org.apache.cassandra.cql3.functions.types.exceptions.CodecNotFoundException",
					"Codec not found for requested operation: ["+ft.String()+" <-> "+g+"]")
			}
			return r.toJS(ft, fields()[i])
		}
	}
	if s, ok := strings.CutPrefix(name, "set"); ok {
		if _, ok := tupleGetters[s]; !ok {
			return nil
		}
		return func(c goja.FunctionCall) goja.Value {
			i := r.tupleField(j, c.Argument(0))
			g, ok := goValue(j.t.Params[i], c.Argument(1))
			if !ok {
				r.throwJava("org.apache.cassandra.cql3.functions.types.exceptions.InvalidTypeException",
					"Value "+strconv.Itoa(i)+" is of type "+j.t.Params[i].String())
			}
			fields()[i] = g
			return r.vm.NewDynamicObject(j)
		}
	}
	return nil
}

// install defines the globals a 4.1 script sees beyond ECMAScript's: the
// Java package objects, Java.type and udfContext.
func (r *rt) install() {
	for _, p := range []string{"java", "javax", "com", "org", "edu", "javafx"} {
		_ = r.vm.Set(p, r.pkg(p))
	}
	_ = r.vm.Set("Packages", r.pkg(""))
	javaObj := r.vm.NewObject()
	_ = javaObj.Set("type", func(c goja.FunctionCall) goja.Value {
		name := c.Argument(0).String()
		if cls := r.class(name); cls != nil {
			return cls
		}
		r.throwJava("java.lang.ClassNotFoundException", name)
		return nil
	})
	_ = r.vm.Set("Java", javaObj)
	_ = r.vm.Set("udfContext", r.udfContext())
}

// pkg is Nashorn's JavaPackage name: its members are classes or
// subpackages.
func (r *rt) pkg(name string) goja.Value {
	return r.vm.NewDynamicObject(&pkgObj{r: r, name: name})
}

// pkgObj is a JavaPackage.
type pkgObj struct {
	r    *rt
	name string
}

func (p *pkgObj) Get(key string) goja.Value {
	switch key {
	case "toString", "valueOf":
		return p.r.vm.ToValue(func(goja.FunctionCall) goja.Value { return p.r.vm.ToValue("[JavaPackage " + p.name + "]") })
	}
	full := key
	if p.name != "" {
		full = p.name + "." + key
	}
	if cls := p.r.class(full); cls != nil {
		return cls
	}
	return p.r.pkg(full)
}

func (p *pkgObj) Set(string, goja.Value) bool { return false }
func (p *pkgObj) Has(string) bool             { return true }
func (p *pkgObj) Delete(string) bool          { return false }
func (p *pkgObj) Keys() []string              { return nil }

// classObject is the java.lang.Class object of class c (X.class).
func (r *rt) classObject(c string) goja.Value {
	j := &jobj{r: r, class: "java.lang.Class", members: map[string]goja.Value{}}
	j.members["getName"] = r.vm.ToValue(func(goja.FunctionCall) goja.Value { return r.vm.ToValue(c) })
	j.members["toString"] = r.vm.ToValue(func(goja.FunctionCall) goja.Value { return r.vm.ToValue("class " + c) })
	return r.vm.NewDynamicObject(j)
}

// class returns the static class object of the Java class named name, or
// nil when 4.1's ClassFilter hides it or the shim does not implement it.
func (r *rt) class(name string) goja.Value {
	if !secureResource(strings.ReplaceAll(name, ".", "/") + ".class") {
		return nil
	}
	statics, ok := r.statics(name)
	if !ok {
		return nil
	}
	o := r.vm.ToValue(func(goja.FunctionCall) goja.Value {
		r.throwJava("java.lang.UnsupportedOperationException", "minicass's JavaScript UDFs cannot construct "+name)
		return nil
	}).(*goja.Object)
	for k, v := range statics {
		_ = o.Set(k, v)
	}
	_ = o.Set("class", r.classObject(name))
	return o
}

// statics are the static members of the classes the shim implements.
func (r *rt) statics(name string) (map[string]any, bool) {
	vm := r.vm
	f1 := func(fn func(float64) float64) func(goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value { return vm.ToValue(fn(c.Argument(0).ToFloat())) }
	}
	f2 := func(fn func(a, b float64) float64) func(goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value {
			return vm.ToValue(fn(c.Argument(0).ToFloat(), c.Argument(1).ToFloat()))
		}
	}
	valueOf := func(c string, conv func(float64) any) func(goja.FunctionCall) goja.Value {
		return func(call goja.FunctionCall) goja.Value {
			a := call.Argument(0)
			if s, ok := a.Export().(string); ok {
				f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
				if err != nil {
					r.throwJava("java.lang.NumberFormatException", "For input string: \""+s+"\"")
				}
				return r.number(c, conv(f))
			}
			if j, ok := unwrap(a); ok {
				x, err := convertNumber(c, j.class, j.v)
				if err != nil {
					r.throwJava("java.lang.ClassCastException", "")
				}
				return r.number(c, x)
			}
			return r.number(c, conv(a.ToFloat()))
		}
	}
	switch name {
	case "java.lang.Math", "java.lang.StrictMath":
		return map[string]any{
			"PI": math.Pi, "E": math.E,
			"abs": f1(math.Abs), "sin": f1(math.Sin), "cos": f1(math.Cos), "tan": f1(math.Tan),
			"asin": f1(math.Asin), "acos": f1(math.Acos), "atan": f1(math.Atan), "exp": f1(math.Exp),
			"log": f1(math.Log), "log10": f1(math.Log10), "sqrt": f1(math.Sqrt), "cbrt": f1(math.Cbrt),
			"floor": f1(math.Floor), "ceil": f1(math.Ceil), "signum": f1(signum), "rint": f1(math.RoundToEven),
			"pow": f2(math.Pow), "atan2": f2(math.Atan2), "hypot": f2(math.Hypot), "max": f2(math.Max),
			"min": f2(math.Min), "copySign": f2(math.Copysign),
			"round": func(c goja.FunctionCall) goja.Value {
				return r.number("java.lang.Long", saturate(math.Floor(c.Argument(0).ToFloat()+0.5), 64))
			},
		}, true
	case "java.lang.Integer":
		return map[string]any{"MAX_VALUE": float64(math.MaxInt32), "MIN_VALUE": float64(math.MinInt32),
			"valueOf":  valueOf("java.lang.Integer", func(f float64) any { return int32(saturate(f, 32)) }),
			"parseInt": valueOf("java.lang.Integer", func(f float64) any { return int32(saturate(f, 32)) })}, true
	case "java.lang.Long":
		return map[string]any{"MAX_VALUE": r.number("java.lang.Long", int64(math.MaxInt64)), "MIN_VALUE": r.number("java.lang.Long", int64(math.MinInt64)),
			"valueOf":   valueOf("java.lang.Long", func(f float64) any { return saturate(f, 64) }),
			"parseLong": valueOf("java.lang.Long", func(f float64) any { return saturate(f, 64) })}, true
	case "java.lang.Short":
		return map[string]any{"valueOf": valueOf("java.lang.Short", func(f float64) any { return int16(saturate(f, 32)) })}, true
	case "java.lang.Byte":
		return map[string]any{"valueOf": valueOf("java.lang.Byte", func(f float64) any { return int8(saturate(f, 32)) })}, true
	case "java.lang.Double":
		return map[string]any{"MAX_VALUE": math.MaxFloat64, "MIN_VALUE": 4.9e-324, "NaN": math.NaN(),
			"valueOf":     valueOf("java.lang.Double", func(f float64) any { return f }),
			"parseDouble": valueOf("java.lang.Double", func(f float64) any { return f })}, true
	case "java.lang.Float":
		return map[string]any{"valueOf": valueOf("java.lang.Float", func(f float64) any { return float32(f) })}, true
	case "java.lang.String", "java.lang.Boolean", "java.lang.Object", "java.lang.Number":
		return map[string]any{}, true
	case "java.math.BigInteger":
		return map[string]any{"valueOf": valueOf("java.math.BigInteger", func(f float64) any { return big.NewInt(saturate(f, 64)) })}, true
	case "java.math.BigDecimal":
		return map[string]any{"valueOf": func(c goja.FunctionCall) goja.Value {
			d, err := parseBigDecimal(numberString(javaValue(c.Argument(0))))
			if err != nil {
				r.throwJava("java.lang.NumberFormatException", "")
			}
			return r.number("java.math.BigDecimal", d)
		}}, true
	}
	return nil, false
}

func signum(f float64) float64 {
	switch {
	case f > 0:
		return 1
	case f < 0:
		return -1
	}
	return f
}

// udfContext is 4.1's UDFContextWrapper: newReturnUDTValue(),
// newArgUDTValue(name or index), newReturnTupleValue() and
// newArgTupleValue(name or index), each an empty value of that type.
func (r *rt) udfContext() goja.Value {
	o := r.vm.NewObject()
	// empty is UDFContextImpl's newUDTValue (udt) or newTupleValue of t.
	empty := func(t types.Type, udt bool) goja.Value {
		switch {
		case udt && t.UDT == nil:
			r.throwJava("java.lang.IllegalStateException", "Function argument is not a UDT but a "+cqlName(t))
		case !udt && (t.Kind != types.Tuple || t.UDT != nil):
			r.throwJava("java.lang.IllegalStateException", "Function argument is not a tuple type but a "+cqlName(t))
		}
		return r.toJS(t, make([]any, len(t.Params)))
	}
	arg := func(c goja.FunctionCall) types.Type {
		a := c.Argument(0)
		if s, ok := a.Export().(string); ok {
			for _, p := range r.fn.params {
				if p.Name == s {
					return p.Type
				}
			}
			r.throwJava("java.lang.IllegalArgumentException", "Function does not declare an argument named '"+s+"'")
		}
		i := int(a.ToInteger())
		if i < 0 || i >= len(r.fn.params) {
			r.throwJava("java.lang.IllegalArgumentException", "Function does not declare an argument with index "+strconv.Itoa(i))
		}
		return r.fn.params[i].Type
	}
	_ = o.Set("newReturnUDTValue", func(goja.FunctionCall) goja.Value { return empty(r.fn.ret, true) })
	_ = o.Set("newReturnTupleValue", func(goja.FunctionCall) goja.Value { return empty(r.fn.ret, false) })
	_ = o.Set("newArgUDTValue", func(c goja.FunctionCall) goja.Value { return empty(arg(c), true) })
	_ = o.Set("newArgTupleValue", func(c goja.FunctionCall) goja.Value { return empty(arg(c), false) })
	return o
}

// secureResource is UDFunction.secureResource, 4.1's ClassFilter for
// scripts: a class path is shown when an allowed pattern covers it and no
// disallowed one does.
func secureResource(resource string) bool {
	for _, d := range disallowedPatterns {
		if strings.HasPrefix(resource, d) {
			return false
		}
	}
	for _, a := range allowedPatterns {
		if strings.HasPrefix(resource, a) {
			return true
		}
	}
	return false
}

// allowedPatterns and disallowedPatterns are UDFunction's (4.1), the same
// lists cql/javaudf's sandbox uses.
var allowedPatterns = []string{
	"com/google/common/reflect/TypeToken", "java/io/IOException.class", "java/io/Serializable.class",
	"java/lang/", "java/math/", "java/net/InetAddress.class", "java/net/Inet4Address.class",
	"java/net/Inet6Address.class", "java/net/UnknownHostException.class", "java/net/NetworkInterface.class",
	"java/net/SocketException.class", "java/nio/Buffer.class", "java/nio/ByteBuffer.class", "java/text/",
	"java/time/", "java/util/", "org/apache/cassandra/cql3/functions/types/",
	"org/apache/cassandra/cql3/functions/JavaUDF.class", "org/apache/cassandra/cql3/functions/UDFContext.class",
	"org/apache/cassandra/exceptions/", "org/apache/cassandra/transport/ProtocolVersion.class",
}

var disallowedPatterns = []string{
	"com/datastax/driver/core/Cluster.class", "com/datastax/driver/core/Metrics.class",
	"com/datastax/driver/core/NettyOptions.class", "com/datastax/driver/core/Session.class",
	"com/datastax/driver/core/Statement.class", "com/datastax/driver/core/TimestampGenerator.class",
	"java/lang/Compiler.class", "java/lang/InheritableThreadLocal.class", "java/lang/Package.class",
	"java/lang/Process.class", "java/lang/ProcessBuilder.class", "java/lang/ProcessEnvironment.class",
	"java/lang/ProcessImpl.class", "java/lang/Runnable.class", "java/lang/Runtime.class",
	"java/lang/Shutdown.class", "java/lang/Thread.class", "java/lang/ThreadGroup.class",
	"java/lang/ThreadLocal.class", "java/lang/instrument/", "java/lang/invoke/", "java/lang/management/",
	"java/lang/ref/", "java/lang/reflect/", "java/util/ServiceLoader.class", "java/util/Timer.class",
	"java/util/concurrent/", "java/util/function/", "java/util/jar/", "java/util/logging/",
	"java/util/prefs/", "java/util/spi/", "java/util/stream/", "java/util/zip/",
}
