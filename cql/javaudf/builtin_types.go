package javaudf

// The static result types of instance methods, by receiver class.

// groupOf maps a class to the group of classes sharing its methods.
func groupOf(n string) string {
	switch n {
	case "List", "ArrayList", "LinkedList", "Collection", "Iterable", "AbstractList":
		return "List"
	case "Set", "HashSet", "TreeSet", "LinkedHashSet", "SortedSet", "NavigableSet":
		return "Set"
	case "Map", "HashMap", "TreeMap", "LinkedHashMap", "SortedMap", "NavigableMap":
		return "Map"
	case "Integer", "Long", "Short", "Byte", "Double", "Float", "Number":
		return "Number"
	case "StringBuilder", "StringBuffer":
		return "StringBuilder"
	case "UDTValue", "TupleValue":
		return "UDT"
	case "CharSequence":
		return "String"
	}
	if _, ok := exceptionClasses[n]; ok {
		return "Throwable"
	}
	return n
}

func arg(ts []*jtype, i int) *jtype {
	if i < len(ts) && ts[i] != nil {
		return ts[i]
	}
	return nil
}

func typeArg(t *jtype, i int) *jtype {
	if t != nil && i < len(t.args) {
		return t.args[i]
	}
	return nil
}

// methodType returns the result type of calling name on a receiver of
// static type rt, and whether the interpreter has the method.
func methodType(rt *jtype, name string, ats []*jtype) (*jtype, bool) {
	if rt.dims > 0 {
		switch name {
		case "clone":
			return rt, true
		case "length":
			return nil, false
		}
	}
	switch name {
	case "equals":
		return tBool, true
	case "hashCode":
		return tInt32, true
	case "toString":
		if len(ats) == 0 {
			return tStr, true
		}
	case "getClass":
		if len(ats) == 0 {
			return &jtype{name: "Class"}, true
		}
	}
	if rt.dims > 0 {
		return nil, false
	}
	g := groupOf(rt.name)
	switch g {
	case "Class":
		switch name {
		case "getName", "getSimpleName", "getCanonicalName", "getTypeName":
			if len(ats) == 0 {
				return tStr, true
			}
		case "isInterface", "isArray", "isPrimitive":
			if len(ats) == 0 {
				return tBool, true
			}
		case "isInstance":
			if len(ats) == 1 {
				return tBool, true
			}
		case "getClassLoader":
			// Typed so that the verifier sees the calls on its result; it
			// refuses the call itself, so it never runs.
			return &jtype{name: "ClassLoader"}, true
		}
		return nil, false
	case "Object", "Comparable":
		if name == "compareTo" {
			return tInt32, true
		}
		return nil, false
	case "String":
		switch name {
		case "length", "indexOf", "lastIndexOf", "compareTo", "compareToIgnoreCase", "codePointAt":
			return tInt32, true
		case "charAt":
			return tChar16, true
		case "isEmpty", "contains", "startsWith", "endsWith", "equalsIgnoreCase", "isBlank", "contentEquals", "matches":
			return tBool, true
		case "substring", "toUpperCase", "toLowerCase", "trim", "concat", "replace", "intern", "strip",
			"replaceAll", "replaceFirst",
			"repeat", "stripLeading", "stripTrailing", "subSequence":
			return tStr, true
		case "split":
			return &jtype{name: "String", dims: 1}, true
		case "toCharArray":
			return &jtype{name: "char", dims: 1}, true
		case "getBytes":
			return &jtype{name: "byte", dims: 1}, true
		}
	case "Number":
		switch name {
		case "intValue":
			return tInt32, true
		case "longValue":
			return tInt64, true
		case "doubleValue":
			return tFloat64, true
		case "floatValue":
			return tFloat32, true
		case "shortValue":
			return tInt16, true
		case "byteValue":
			return tInt8, true
		case "compareTo":
			return tInt32, true
		case "isNaN", "isInfinite":
			return tBool, true
		}
	case "Boolean":
		switch name {
		case "booleanValue":
			return tBool, true
		case "compareTo":
			return tInt32, true
		}
	case "Character":
		switch name {
		case "charValue":
			return tChar16, true
		case "compareTo":
			return tInt32, true
		}
	case "List", "Set":
		e := typeArg(rt, 0)
		switch name {
		case "size", "indexOf", "lastIndexOf":
			return tInt32, true
		case "isEmpty", "contains", "containsAll", "addAll", "removeAll", "retainAll":
			return tBool, true
		case "add":
			if len(ats) == 2 {
				return tVoid, true
			}
			return tBool, true
		case "remove":
			if g == "List" && len(ats) == 1 && ats[0] != nil && ats[0].isPrim() {
				return e, true
			}
			return tBool, true
		case "get", "set", "first", "last", "pollFirst", "pollLast":
			if name == "get" && g == "Set" {
				return nil, false
			}
			return e, true
		case "clear", "sort":
			return tVoid, true
		case "iterator":
			return &jtype{name: "Iterator", args: []*jtype{e}}, true
		case "subList":
			if g == "Set" {
				return nil, false
			}
			return rt, true
		case "toArray":
			return &jtype{name: "Object", dims: 1}, true
		}
	case "Map":
		k, v := typeArg(rt, 0), typeArg(rt, 1)
		switch name {
		case "size":
			return tInt32, true
		case "isEmpty", "containsKey", "containsValue":
			return tBool, true
		case "get", "put", "remove", "getOrDefault", "putIfAbsent", "replace":
			return v, true
		case "putAll", "clear":
			return tVoid, true
		case "keySet", "navigableKeySet":
			return &jtype{name: "Set", args: []*jtype{k}}, true
		case "values":
			return &jtype{name: "Collection", args: []*jtype{v}}, true
		case "entrySet":
			return &jtype{name: "Set", args: []*jtype{{name: "Map.Entry", args: []*jtype{k, v}}}}, true
		case "firstKey", "lastKey":
			return k, true
		}
	case "Map.Entry":
		switch name {
		case "getKey":
			return typeArg(rt, 0), true
		case "getValue", "setValue":
			return typeArg(rt, 1), true
		}
	case "Iterator":
		switch name {
		case "hasNext":
			return tBool, true
		case "next":
			return typeArg(rt, 0), true
		case "remove":
			return nil, false
		}
	case "StringBuilder":
		switch name {
		case "append", "insert", "reverse", "deleteCharAt", "delete":
			return rt, true
		case "length", "indexOf", "capacity":
			return tInt32, true
		case "charAt":
			return tChar16, true
		case "setLength", "setCharAt":
			return tVoid, true
		case "substring":
			return tStr, true
		}
	case "Throwable":
		switch name {
		case "getMessage", "getLocalizedMessage":
			return tStr, true
		case "getCause":
			return &jtype{name: "Throwable"}, true
		}
	case "Date":
		switch name {
		case "getTime":
			return tInt64, true
		case "before", "after":
			return tBool, true
		case "compareTo":
			return tInt32, true
		}
	case "UUID":
		switch name {
		case "version", "variant", "compareTo":
			return tInt32, true
		case "timestamp", "getMostSignificantBits", "getLeastSignificantBits":
			return tInt64, true
		}
	case "LocalDate":
		switch name {
		case "getDaysSinceEpoch", "getYear", "getMonth", "getDay":
			return tInt32, true
		case "getMillisSinceEpoch":
			return tInt64, true
		}
	case "Duration":
		switch name {
		case "getMonths", "getDays":
			return tInt32, true
		case "getNanoseconds":
			return tInt64, true
		}
	case "InetAddress", "Inet4Address", "Inet6Address":
		switch name {
		case "getHostAddress":
			return tStr, true
		case "getAddress":
			return &jtype{name: "byte", dims: 1}, true
		}
	case "ByteBuffer":
		switch name {
		case "remaining", "position", "limit", "capacity", "getInt", "arrayOffset":
			return tInt32, true
		case "get":
			if len(ats) == 1 && ats[0] != nil && ats[0].dims > 0 {
				return rt, true
			}
			return tInt8, true
		case "getLong":
			return tInt64, true
		case "getShort":
			return tInt16, true
		case "getDouble":
			return tFloat64, true
		case "getFloat":
			return tFloat32, true
		case "getChar":
			return tChar16, true
		case "array":
			return &jtype{name: "byte", dims: 1}, true
		case "hasRemaining", "hasArray", "isDirect", "isReadOnly":
			return tBool, true
		case "duplicate", "slice", "put", "putInt", "putLong", "putShort", "putDouble", "putFloat", "flip",
			"rewind", "clear", "asReadOnlyBuffer":
			return rt, true
		}
	case "BigInteger":
		switch name {
		case "add", "subtract", "multiply", "divide", "mod", "remainder", "pow", "negate", "abs", "max", "min",
			"gcd", "shiftLeft", "shiftRight", "and", "or", "xor", "not":
			return rt, true
		case "compareTo", "signum", "intValue", "bitLength", "intValueExact":
			return tInt32, true
		case "longValue", "longValueExact":
			return tInt64, true
		case "doubleValue":
			return tFloat64, true
		case "floatValue":
			return tFloat32, true
		case "testBit":
			return tBool, true
		}
	case "BigDecimal":
		switch name {
		case "add", "subtract", "multiply", "negate", "abs", "max", "min", "stripTrailingZeros":
			return rt, true
		case "compareTo", "signum", "intValue", "scale", "precision":
			return tInt32, true
		case "longValue":
			return tInt64, true
		case "doubleValue":
			return tFloat64, true
		case "floatValue":
			return tFloat32, true
		case "unscaledValue", "toBigInteger":
			return &jtype{name: "BigInteger"}, true
		case "toPlainString":
			return tStr, true
		}
	case "UDFContext":
		switch name {
		case "newArgUDTValue", "newReturnUDTValue", "newUDTValue":
			return &jtype{name: "UDTValue"}, true
		case "newArgTupleValue", "newReturnTupleValue", "newTupleValue":
			return &jtype{name: "TupleValue"}, true
		}
	case "UDT":
		return udtMethodType(rt, name, ats)
	}
	return nil, false
}

// udtMethodType types the getters and setters of UDTValue and TupleValue.
func udtMethodType(rt *jtype, name string, ats []*jtype) (*jtype, bool) {
	switch name {
	case "isNull":
		return tBool, true
	case "getInt":
		return tInt32, true
	case "getLong", "getTime":
		return tInt64, true
	case "getShort":
		return tInt16, true
	case "getByte":
		return tInt8, true
	case "getBool":
		return tBool, true
	case "getFloat":
		return tFloat32, true
	case "getDouble":
		return tFloat64, true
	case "getString":
		return tStr, true
	case "getVarint":
		return &jtype{name: "BigInteger"}, true
	case "getDecimal":
		return &jtype{name: "BigDecimal"}, true
	case "getUUID":
		return &jtype{name: "UUID"}, true
	case "getTimestamp":
		return &jtype{name: "Date"}, true
	case "getDate":
		return &jtype{name: "LocalDate"}, true
	case "getDuration":
		return &jtype{name: "Duration"}, true
	case "getBytes", "getBytesUnsafe":
		return &jtype{name: "ByteBuffer"}, true
	case "getInet":
		return &jtype{name: "InetAddress"}, true
	case "getUDTValue":
		return &jtype{name: "UDTValue"}, true
	case "getTupleValue":
		return &jtype{name: "TupleValue"}, true
	case "getList":
		return &jtype{name: "List", args: []*jtype{classArg(ats, 1)}}, true
	case "getSet":
		return &jtype{name: "Set", args: []*jtype{classArg(ats, 1)}}, true
	case "getMap":
		return &jtype{name: "Map", args: []*jtype{classArg(ats, 1), classArg(ats, 2)}}, true
	case "getObject", "get":
		return tObject, true
	case "setInt", "setLong", "setShort", "setByte", "setBool", "setFloat", "setDouble", "setString",
		"setVarint", "setDecimal", "setUUID", "setTimestamp", "setDate", "setTime", "setDuration", "setBytes",
		"setInet", "setUDTValue", "setTupleValue", "setList", "setSet", "setMap", "setToNull", "set":
		return rt, true
	}
	return nil, false
}

// classArg returns nil: Class arguments (Integer.class) give raw
// collections whose element type the checker does not track.
func classArg(ats []*jtype, i int) *jtype { return nil }
