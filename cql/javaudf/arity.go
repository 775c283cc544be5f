package javaudf

// The number of arguments each builtin method takes, which the checker
// enforces as Java's overload resolution would (the implementations index
// their arguments freely). A method missing here takes any number.

// arityRange is the inclusive range of argument counts a method accepts;
// max < 0 means any number from min.
type arityRange struct{ min, max int }

func ar(min, max int) arityRange { return arityRange{min, max} }

// instanceArity gives the argument counts of instance methods by name,
// with per-group exceptions in groupArity.
var instanceArity = map[string]arityRange{
	"size": ar(0, 0), "isEmpty": ar(0, 0), "length": ar(0, 0), "toString": ar(0, 0), "hashCode": ar(0, 0),
	"iterator": ar(0, 0), "clear": ar(0, 0), "keySet": ar(0, 0), "values": ar(0, 0), "entrySet": ar(0, 0),
	"getKey": ar(0, 0), "getValue": ar(0, 0), "setValue": ar(1, 1), "hasNext": ar(0, 0), "next": ar(0, 0),
	"intValue": ar(0, 0), "longValue": ar(0, 0), "doubleValue": ar(0, 0), "floatValue": ar(0, 0),
	"shortValue": ar(0, 0), "byteValue": ar(0, 0), "booleanValue": ar(0, 0), "charValue": ar(0, 0),
	"toUpperCase": ar(0, 0), "toLowerCase": ar(0, 0), "trim": ar(0, 0), "strip": ar(0, 0), "intern": ar(0, 0),
	"stripLeading": ar(0, 0), "stripTrailing": ar(0, 0), "isBlank": ar(0, 0), "toCharArray": ar(0, 0),
	"getBytes": ar(0, 0), "reverse": ar(0, 0), "getMessage": ar(0, 0), "getLocalizedMessage": ar(0, 0),
	"getCause": ar(0, 0), "getTime": ar(0, 0), "first": ar(0, 0), "last": ar(0, 0), "pollFirst": ar(0, 0),
	"pollLast": ar(0, 0), "firstKey": ar(0, 0), "lastKey": ar(0, 0), "remaining": ar(0, 0),
	"hasRemaining": ar(0, 0), "array": ar(0, 0), "capacity": ar(0, 0), "limit": ar(0, 0), "position": ar(0, 0),
	"duplicate": ar(0, 0), "slice": ar(0, 0), "flip": ar(0, 0), "rewind": ar(0, 0), "negate": ar(0, 0),
	"abs": ar(0, 0), "signum": ar(0, 0), "scale": ar(0, 0), "precision": ar(0, 0), "unscaledValue": ar(0, 0),
	"toBigInteger": ar(0, 0), "toPlainString": ar(0, 0), "stripTrailingZeros": ar(0, 0), "bitLength": ar(0, 0),
	"not": ar(0, 0), "version": ar(0, 0), "variant": ar(0, 0), "timestamp": ar(0, 0),
	"getMostSignificantBits": ar(0, 0), "getLeastSignificantBits": ar(0, 0), "getDaysSinceEpoch": ar(0, 0),
	"getMillisSinceEpoch": ar(0, 0), "getYear": ar(0, 0), "getMonth": ar(0, 0), "getDay": ar(0, 0),
	"getMonths": ar(0, 0), "getDays": ar(0, 0), "getNanoseconds": ar(0, 0), "getHostAddress": ar(0, 0),
	"getAddress": ar(0, 0), "toArray": ar(0, 0), "isNaN": ar(0, 0), "isInfinite": ar(0, 0), "clone": ar(0, 0),
	"isDirect": ar(0, 0), "isReadOnly": ar(0, 0), "hasArray": ar(0, 0), "arrayOffset": ar(0, 0),
	"asReadOnlyBuffer": ar(0, 0), "intValueExact": ar(0, 0), "longValueExact": ar(0, 0),
	"equals": ar(1, 1), "compareTo": ar(1, 1), "compareToIgnoreCase": ar(1, 1), "equalsIgnoreCase": ar(1, 1),
	"contentEquals": ar(1, 1), "contains": ar(1, 1), "containsAll": ar(1, 1), "containsKey": ar(1, 1),
	"containsValue": ar(1, 1), "removeAll": ar(1, 1), "retainAll": ar(1, 1), "remove": ar(1, 1),
	"put": ar(2, 2), "putIfAbsent": ar(2, 2), "getOrDefault": ar(2, 2), "replace": ar(2, 2), "putAll": ar(1, 1),
	"charAt": ar(1, 1), "codePointAt": ar(1, 1), "substring": ar(1, 2), "subSequence": ar(2, 2),
	"indexOf": ar(1, 2), "lastIndexOf": ar(1, 1), "startsWith": ar(1, 2), "endsWith": ar(1, 1),
	"concat": ar(1, 1), "repeat": ar(1, 1), "split": ar(1, 2), "matches": ar(1, 1), "replaceAll": ar(2, 2), "replaceFirst": ar(2, 2), "subList": ar(2, 2),
	"set": ar(2, 2), "add": ar(1, 2), "addAll": ar(1, 2), "sort": ar(1, 1), "append": ar(1, 3),
	"insert": ar(2, 2), "deleteCharAt": ar(1, 1), "delete": ar(2, 2), "setLength": ar(1, 1),
	"setCharAt": ar(2, 2), "before": ar(1, 1), "after": ar(1, 1), "subtract": ar(1, 1), "multiply": ar(1, 1),
	"divide": ar(1, 1), "mod": ar(1, 1), "pow": ar(1, 1), "max": ar(1, 1), "min": ar(1, 1), "gcd": ar(1, 1),
	"shiftLeft": ar(1, 1), "shiftRight": ar(1, 1), "and": ar(1, 1), "or": ar(1, 1), "xor": ar(1, 1),
	"testBit": ar(1, 1), "isNull": ar(1, 1), "setToNull": ar(1, 1), "getList": ar(2, 2), "getSet": ar(2, 2),
	"getMap": ar(3, 3), "newReturnUDTValue": ar(0, 0), "newReturnTupleValue": ar(0, 0),
	"newArgUDTValue": ar(1, 1), "newArgTupleValue": ar(1, 1), "newUDTValue": ar(1, 1), "newTupleValue": ar(1, 1),
	"getInt": ar(0, 1), "getLong": ar(0, 1), "getShort": ar(0, 1), "getDouble": ar(0, 1), "getFloat": ar(0, 1),
	"getChar": ar(0, 1),
}

// groupArity overrides instanceArity for some groups.
var groupArity = map[string]map[string]arityRange{
	"List":       {"get": ar(1, 1), "remove": ar(1, 1), "sort": ar(1, 1)},
	"Map":        {"get": ar(1, 1), "remove": ar(1, 1)},
	"ByteBuffer": {"get": ar(0, 1), "put": ar(1, 2), "putInt": ar(1, 2), "putLong": ar(1, 2), "putShort": ar(1, 2), "putDouble": ar(1, 2), "putFloat": ar(1, 2), "clear": ar(0, 0)},
	"UDT": {"get": ar(1, 2), "getInt": ar(1, 1), "getLong": ar(1, 1), "getShort": ar(1, 1), "getDouble": ar(1, 1),
		"getFloat": ar(1, 1), "getByte": ar(1, 1), "getBool": ar(1, 1), "getString": ar(1, 1), "getVarint": ar(1, 1),
		"getDecimal": ar(1, 1), "getUUID": ar(1, 1), "getTimestamp": ar(1, 1), "getDate": ar(1, 1), "getTime": ar(1, 1),
		"getDuration": ar(1, 1), "getBytes": ar(1, 1), "getBytesUnsafe": ar(1, 1), "getInet": ar(1, 1),
		"getUDTValue": ar(1, 1), "getTupleValue": ar(1, 1), "getObject": ar(1, 1), "set": ar(2, 3)},
	"BigDecimal": {"add": ar(1, 1), "setScale": ar(1, 2), "divide": ar(1, 3), "remainder": ar(1, 1)},
	"BigInteger": {"add": ar(1, 1), "remainder": ar(1, 1), "modPow": ar(2, 2)},
	"Set":        {"sort": ar(-1, -1)},
}

// staticArity gives the argument counts of static methods by class.
var staticArity = map[string]map[string]arityRange{
	"Math": {"max": ar(2, 2), "min": ar(2, 2), "pow": ar(2, 2), "atan2": ar(2, 2), "hypot": ar(2, 2),
		"IEEEremainder": ar(2, 2), "floorDiv": ar(2, 2), "floorMod": ar(2, 2), "addExact": ar(2, 2),
		"subtractExact": ar(2, 2), "multiplyExact": ar(2, 2), "copySign": ar(2, 2), "scalb": ar(2, 2),
		"random": ar(0, 0), "*": ar(1, 1)},
	"Integer": boxArity, "Long": boxArity, "Short": boxArity, "Byte": boxArity, "Double": boxArity,
	"Float": boxArity, "Boolean": boxArity, "Character": boxArity,
	"String": {"valueOf": ar(1, 1), "copyValueOf": ar(1, 1), "format": ar(1, -1), "join": ar(1, -1)},
	"System": {"currentTimeMillis": ar(0, 0), "nanoTime": ar(0, 0), "lineSeparator": ar(0, 0), "gc": ar(0, 0),
		"getProperty": ar(1, 2), "getenv": ar(1, 1), "exit": ar(1, 1), "identityHashCode": ar(1, 1),
		"setSecurityManager": ar(1, 1), "*": ar(0, -1)},
	"Objects": {"equals": ar(2, 2), "deepEquals": ar(2, 2), "hash": ar(0, -1), "hashCode": ar(1, 1),
		"isNull": ar(1, 1), "nonNull": ar(1, 1), "requireNonNull": ar(1, 2), "toString": ar(1, 2)},
	"Arrays": {"asList": ar(0, -1), "toString": ar(1, 1), "sort": ar(1, 1), "fill": ar(2, 2)},
	"Collections": {"emptyList": ar(0, 0), "emptySet": ar(0, 0), "emptyMap": ar(0, 0), "singleton": ar(1, 1),
		"singletonList": ar(1, 1), "singletonMap": ar(2, 2), "nCopies": ar(2, 2), "unmodifiableList": ar(1, 1),
		"unmodifiableSet": ar(1, 1), "unmodifiableMap": ar(1, 1), "synchronizedList": ar(1, 1), "sort": ar(1, 2),
		"reverse": ar(1, 1), "max": ar(1, 1), "min": ar(1, 1), "frequency": ar(2, 2), "swap": ar(3, 3),
		"shuffle": ar(1, 2)},
	"UUID":       {"randomUUID": ar(0, 0), "fromString": ar(1, 1), "nameUUIDFromBytes": ar(1, 1)},
	"BigInteger": {"valueOf": ar(1, 1)},
	"BigDecimal": {"valueOf": ar(1, 2)},
	"ByteBuffer": {"wrap": ar(1, 1), "allocate": ar(1, 1), "allocateDirect": ar(1, 1)},
	"LocalDate":  {"fromDaysSinceEpoch": ar(1, 1), "fromMillisSinceEpoch": ar(1, 1), "fromYearMonthDay": ar(3, 3)},
	"Duration":   {"newInstance": ar(3, 3), "from": ar(1, 1)},
}

var boxArity = map[string]arityRange{
	"valueOf": ar(1, 2), "parseInt": ar(1, 2), "parseLong": ar(1, 2), "parseShort": ar(1, 2),
	"parseByte": ar(1, 2), "toString": ar(1, 2), "compare": ar(2, 2), "max": ar(2, 2), "min": ar(2, 2),
	"sum": ar(2, 2), "logicalAnd": ar(2, 2), "logicalOr": ar(2, 2), "logicalXor": ar(2, 2),
	"rotateLeft": ar(2, 2), "rotateRight": ar(2, 2), "digit": ar(2, 2), "*": ar(1, 1),
}

func (r arityRange) accepts(n int) bool {
	if r.min < 0 {
		return true
	}
	return n >= r.min && (r.max < 0 || n <= r.max)
}

// instanceArityOf returns the argument counts of an instance method.
func instanceArityOf(group, name string) (arityRange, bool) {
	if g, ok := groupArity[group]; ok {
		if r, ok := g[name]; ok {
			return r, true
		}
	}
	r, ok := instanceArity[name]
	return r, ok
}

// staticArityOf returns the argument counts of a static method.
func staticArityOf(cls, name string) (arityRange, bool) {
	if cls == "StrictMath" {
		cls = "Math"
	}
	g, ok := staticArity[cls]
	if !ok {
		return arityRange{}, false
	}
	if r, ok := g[name]; ok {
		return r, true
	}
	r, ok := g["*"]
	return r, ok
}
