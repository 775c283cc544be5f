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

func intArg(args []any, i int) int {
	if i >= len(args) || args[i] == nil {
		throwNPE()
	}
	return int(toInt64(args[i]))
}

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
		if len(args) == 0 {
			return hashCode(recv)
		}
	case "toString":
		if len(args) == 0 {
			return javaString(recv)
		}
	}
	switch r := recv.(type) {
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

func dateArg(args []any) time.Time {
	t, ok := args[0].(time.Time)
	if !ok {
		throwNPE()
	}
	return t
}

func stringMethod(s, name string, args []any, line int) any {
	switch name {
	case "length":
		return int32(jlen(s))
	case "isEmpty":
		return s == ""
	case "isBlank":
		return strings.TrimSpace(s) == ""
	case "charAt":
		return jcharAt(s, intArg(args, 0))
	case "codePointAt":
		return int32(jcharAt(s, intArg(args, 0)))
	case "substring", "subSequence":
		b := intArg(args, 0)
		e := jlen(s)
		if len(args) == 2 {
			e = intArg(args, 1)
		}
		return jsubstring(s, b, e)
	case "indexOf":
		from := 0
		if len(args) == 2 {
			from = intArg(args, 1)
		}
		if c, ok := args[0].(jchar); ok {
			return int32(jindexOf(s, string(rune(c)), from))
		}
		if isNum(args[0]) {
			return int32(jindexOf(s, string(rune(toInt64(args[0]))), from))
		}
		return int32(jindexOf(s, strArg(args, 0), from))
	case "lastIndexOf":
		if c, ok := args[0].(jchar); ok {
			return int32(jlastIndexOf(s, string(rune(c))))
		}
		return int32(jlastIndexOf(s, strArg(args, 0)))
	case "contains":
		return strings.Contains(s, strArg(args, 0))
	case "startsWith":
		if len(args) == 2 {
			off := intArg(args, 1)
			if off < 0 || off > jlen(s) {
				return false
			}
			return strings.HasPrefix(jsubstring(s, off, jlen(s)), strArg(args, 0))
		}
		return strings.HasPrefix(s, strArg(args, 0))
	case "endsWith":
		return strings.HasSuffix(s, strArg(args, 0))
	case "equalsIgnoreCase":
		o, ok := args[0].(string)
		return ok && strings.EqualFold(s, o)
	case "contentEquals":
		return s == javaString(args[0])
	case "compareTo":
		return int32(compareStrings(s, strArg(args, 0)))
	case "compareToIgnoreCase":
		return int32(compareStrings(strings.ToLower(strings.ToUpper(s)), strings.ToLower(strings.ToUpper(strArg(args, 0)))))
	case "toUpperCase":
		return strings.ToUpper(s)
	case "toLowerCase":
		return strings.ToLower(s)
	case "trim":
		return javaTrim(s)
	case "strip":
		return strings.TrimSpace(s)
	case "stripLeading":
		return strings.TrimLeft(s, " \t\n\r\f\v")
	case "stripTrailing":
		return strings.TrimRight(s, " \t\n\r\f\v")
	case "concat":
		o := strArg(args, 0)
		checkChars(len(s) + len(o))
		return s + o
	case "intern":
		return s
	case "repeat":
		n := intArg(args, 0)
		if n < 0 {
			throwJava("IllegalArgumentException", "count is negative: "+itoa(int64(n)))
		}
		checkChars(len(s) * min(n, maxChars+1))
		return strings.Repeat(s, n)
	case "replace":
		if args[0] == nil || args[1] == nil {
			throwNPE()
		}
		old, repl := javaString(args[0]), javaString(args[1])
		n := strings.Count(s, old)
		checkChars(len(s) + n*(len(repl)-len(old)))
		return strings.ReplaceAll(s, old, repl)
	case "split":
		if len(args) == 1 && isLiteralRegex(strArg(args, 0)) {
			parts := strings.Split(s, unescapeRegex(strArg(args, 0)))
			if s == "" {
				parts = []string{""}
			}
			for len(parts) > 1 && parts[len(parts)-1] == "" {
				parts = parts[:len(parts)-1]
			}
			if len(parts) == 1 && parts[0] == "" && s != "" {
				parts = nil
			}
			arr := &jarray{elem: tStr, vals: make([]any, len(parts))}
			for i, p := range parts {
				arr.vals[i] = p
			}
			return arr
		}
		panic(&UnsupportedError{Line: line, Construct: "String.split with a regular expression"})
	case "toCharArray":
		u := toUTF16(s)
		arr := &jarray{elem: tChar16, vals: make([]any, len(u))}
		for i, c := range u {
			arr.vals[i] = jchar(c)
		}
		return arr
	case "getBytes":
		b := []byte(s)
		arr := &jarray{elem: tInt8, vals: make([]any, len(b))}
		for i, c := range b {
			arr.vals[i] = int8(c)
		}
		return arr
	}
	panic(&UnsupportedError{Line: line, Construct: "the method String." + name})
}

// isLiteralRegex reports whether a split pattern matches only itself (no
// metacharacters, or escaped ones).
func isLiteralRegex(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' {
			i++
			if i < len(p) && (p[i] >= 'a' && p[i] <= 'z' || p[i] >= 'A' && p[i] <= 'Z' || p[i] >= '0' && p[i] <= '9') {
				return false
			}
			continue
		}
		if strings.IndexByte(".$|()[{^?*+", c) >= 0 {
			return false
		}
	}
	return p != ""
}

func unescapeRegex(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

func listMethod(l *jlist, name string, args []any, line int) any {
	switch name {
	case "size":
		return int32(len(l.elems))
	case "isEmpty":
		return len(l.elems) == 0
	case "get":
		return l.elems[l.index(args[0])]
	case "set":
		checkMutable(l.immutable)
		i := l.index(args[0])
		old := l.elems[i]
		l.elems[i] = args[1]
		return old
	case "add":
		checkMutable(l.immutable)
		checkElems(int64(len(l.elems)) + 1)
		if len(args) == 2 {
			i := toInt64(args[0])
			if i < 0 || i > int64(len(l.elems)) {
				throwJava("IndexOutOfBoundsException", "Index: "+itoa(i)+", Size: "+itoa(int64(len(l.elems))))
			}
			l.elems = slices.Insert(l.elems, int(i), args[1])
			return nil
		}
		l.elems = append(l.elems, args[0])
		return true
	case "addAll":
		checkMutable(l.immutable)
		items := iterItems(nonNull(args[len(args)-1]))
		checkElems(int64(len(l.elems) + len(items)))
		if len(args) == 2 {
			l.elems = slices.Insert(l.elems, intArg(args, 0), items...)
		} else {
			l.elems = append(l.elems, items...)
		}
		return len(items) > 0
	case "remove":
		checkMutable(l.immutable)
		if isNum(args[0]) {
			i := l.index(args[0])
			old := l.elems[i]
			l.elems = slices.Delete(l.elems, i, i+1)
			return old
		}
		return l.removeObject(args[0])
	case "contains":
		return indexOf(l.elems, args[0]) >= 0
	case "containsAll":
		for _, v := range iterItems(nonNull(args[0])) {
			if indexOf(l.elems, v) < 0 {
				return false
			}
		}
		return true
	case "indexOf":
		return int32(indexOf(l.elems, args[0]))
	case "lastIndexOf":
		for i := len(l.elems) - 1; i >= 0; i-- {
			if javaEquals(l.elems[i], args[0]) {
				return int32(i)
			}
		}
		return int32(-1)
	case "clear":
		checkMutable(l.immutable)
		l.elems = nil
		return nil
	case "iterator":
		return &jiterator{items: slices.Clone(l.elems)}
	case "subList":
		b, e := intArg(args, 0), intArg(args, 1)
		if b < 0 || e > len(l.elems) || b > e {
			throwJava("IndexOutOfBoundsException", "fromIndex: "+itoa(int64(b))+", toIndex: "+itoa(int64(e)))
		}
		return &jlist{elems: slices.Clone(l.elems[b:e])}
	case "sort":
		checkMutable(l.immutable)
		if len(args) == 1 && args[0] != nil {
			panic(&UnsupportedError{Line: line, Construct: "List.sort with a Comparator"})
		}
		sortValues(l.elems)
		return nil
	case "toArray":
		return &jarray{elem: tObject, vals: slices.Clone(l.elems)}
	case "removeAll", "retainAll":
		checkMutable(l.immutable)
		other := iterItems(nonNull(args[0]))
		keep := l.elems[:0:0]
		for _, v := range l.elems {
			if (indexOf(other, v) >= 0) == (name == "retainAll") {
				keep = append(keep, v)
			}
		}
		changed := len(keep) != len(l.elems)
		l.elems = keep
		return changed
	}
	panic(&UnsupportedError{Line: line, Construct: "the method List." + name})
}

// removeObject is List.remove(Object): it removes the first equal
// element and reports whether there was one.
func (l *jlist) removeObject(v any) bool {
	checkMutable(l.immutable)
	if i := indexOf(l.elems, v); i >= 0 {
		l.elems = slices.Delete(l.elems, i, i+1)
		return true
	}
	return false
}

func nonNull(v any) any {
	if v == nil {
		throwNPE()
	}
	return v
}

func setMethod(s *jset, name string, args []any, line int) any {
	switch name {
	case "size":
		return int32(len(s.elems))
	case "isEmpty":
		return len(s.elems) == 0
	case "add":
		checkMutable(s.immutable)
		return s.add(args[0])
	case "addAll":
		checkMutable(s.immutable)
		changed := false
		for _, v := range iterItems(nonNull(args[0])) {
			if s.add(v) {
				changed = true
			}
		}
		return changed
	case "remove":
		checkMutable(s.immutable)
		if i := s.find(args[0]); i >= 0 {
			s.elems = slices.Delete(s.elems, i, i+1)
			return true
		}
		return false
	case "contains":
		return s.find(args[0]) >= 0
	case "containsAll":
		for _, v := range iterItems(nonNull(args[0])) {
			if s.find(v) < 0 {
				return false
			}
		}
		return true
	case "clear":
		checkMutable(s.immutable)
		s.elems = nil
		return nil
	case "iterator":
		return &jiterator{items: slices.Clone(s.elems)}
	case "removeAll", "retainAll":
		checkMutable(s.immutable)
		other := iterItems(nonNull(args[0]))
		keep := s.elems[:0:0]
		for _, v := range s.elems {
			if (indexOf(other, v) >= 0) == (name == "retainAll") {
				keep = append(keep, v)
			}
		}
		changed := len(keep) != len(s.elems)
		s.elems = keep
		return changed
	case "first", "last", "pollFirst", "pollLast":
		if len(s.elems) == 0 {
			if strings.HasPrefix(name, "poll") {
				return nil
			}
			throwJava("NoSuchElementException", "")
		}
		i := 0
		if strings.HasSuffix(name, "ast") {
			i = len(s.elems) - 1
		}
		v := s.elems[i]
		if strings.HasPrefix(name, "poll") {
			s.elems = slices.Delete(s.elems, i, i+1)
		}
		return v
	case "toArray":
		return &jarray{elem: tObject, vals: slices.Clone(s.elems)}
	}
	panic(&UnsupportedError{Line: line, Construct: "the method Set." + name})
}

func mapMethod(m *jmap, name string, args []any, line int) any {
	switch name {
	case "size":
		return int32(len(m.keys))
	case "isEmpty":
		return len(m.keys) == 0
	case "get":
		if i := m.find(args[0]); i >= 0 {
			return m.vals[i]
		}
		return nil
	case "getOrDefault":
		if i := m.find(args[0]); i >= 0 {
			return m.vals[i]
		}
		return args[1]
	case "containsKey":
		return m.find(args[0]) >= 0
	case "containsValue":
		return indexOf(m.vals, args[0]) >= 0
	case "put":
		checkMutable(m.immutable)
		return m.put(args[0], args[1])
	case "putIfAbsent":
		checkMutable(m.immutable)
		if i := m.find(args[0]); i >= 0 && m.vals[i] != nil {
			return m.vals[i]
		}
		return m.put(args[0], args[1])
	case "replace":
		checkMutable(m.immutable)
		if i := m.find(args[0]); i >= 0 {
			old := m.vals[i]
			m.vals[i] = args[1]
			return old
		}
		return nil
	case "putAll":
		checkMutable(m.immutable)
		src, ok := args[0].(*jmap)
		if !ok {
			throwNPE()
		}
		for i := range src.keys {
			m.put(src.keys[i], src.vals[i])
		}
		return nil
	case "remove":
		checkMutable(m.immutable)
		return m.remove(args[0])
	case "clear":
		checkMutable(m.immutable)
		m.keys, m.vals = nil, nil
		return nil
	case "keySet", "navigableKeySet":
		return &jset{elems: slices.Clone(m.keys), sorted: m.sorted}
	case "values":
		return &jlist{elems: slices.Clone(m.vals)}
	case "entrySet":
		out := &jset{}
		for i := range m.keys {
			out.elems = append(out.elems, &jentry{m.keys[i], m.vals[i]})
		}
		return out
	case "firstKey", "lastKey":
		if len(m.keys) == 0 {
			throwJava("NoSuchElementException", "")
		}
		if name == "firstKey" {
			return m.keys[0]
		}
		return m.keys[len(m.keys)-1]
	}
	panic(&UnsupportedError{Line: line, Construct: "the method Map." + name})
}

func builderMethod(b *jbuilder, name string, args []any, line int) any {
	defer func() { checkChars(len(b.s)) }()
	switch name {
	case "append":
		if len(args) == 1 {
			if arr, ok := args[0].(*jarray); ok {
				b.s = append(b.s, toUTF16(charArrayString(arr))...)
				return b
			}
		}
		if len(args) == 3 {
			s := javaString(args[0])
			b.s = append(b.s, toUTF16(jsubstring(s, intArg(args, 1), intArg(args, 2)))...)
			return b
		}
		if c, ok := args[0].(jchar); ok {
			b.s = append(b.s, uint16(c))
			return b
		}
		b.s = append(b.s, toUTF16(javaString(args[0]))...)
		return b
	case "length":
		return int32(len(b.s))
	case "charAt":
		i := intArg(args, 0)
		if i < 0 || i >= len(b.s) {
			throwJava("StringIndexOutOfBoundsException", "index "+itoa(int64(i))+",length "+itoa(int64(len(b.s))))
		}
		return jchar(b.s[i])
	case "reverse":
		slices.Reverse(b.s)
		return b
	case "insert":
		i := intArg(args, 0)
		if i < 0 || i > len(b.s) {
			throwJava("StringIndexOutOfBoundsException", "offset "+itoa(int64(i))+", length "+itoa(int64(len(b.s))))
		}
		var ins []uint16
		if c, ok := args[1].(jchar); ok {
			ins = []uint16{uint16(c)}
		} else {
			ins = toUTF16(javaString(args[1]))
		}
		b.s = slices.Insert(b.s, i, ins...)
		return b
	case "deleteCharAt":
		i := intArg(args, 0)
		if i < 0 || i >= len(b.s) {
			throwJava("StringIndexOutOfBoundsException", "index "+itoa(int64(i))+",length "+itoa(int64(len(b.s))))
		}
		b.s = slices.Delete(b.s, i, i+1)
		return b
	case "delete":
		s, e := intArg(args, 0), min(intArg(args, 1), len(b.s))
		if s < 0 || s > e {
			throwJava("StringIndexOutOfBoundsException", "start "+itoa(int64(s))+", end "+itoa(int64(e))+", length "+itoa(int64(len(b.s))))
		}
		b.s = slices.Delete(b.s, s, e)
		return b
	case "setLength":
		n := intArg(args, 0)
		if n < 0 {
			throwJava("StringIndexOutOfBoundsException", "String index out of range: "+itoa(int64(n)))
		}
		checkChars(n)
		for len(b.s) < n {
			b.s = append(b.s, 0)
		}
		b.s = b.s[:n]
		return nil
	case "setCharAt":
		i := intArg(args, 0)
		if i < 0 || i >= len(b.s) {
			throwJava("StringIndexOutOfBoundsException", "index "+itoa(int64(i))+",length "+itoa(int64(len(b.s))))
		}
		b.s[i] = uint16(toInt64(args[1]))
		return nil
	case "indexOf":
		return int32(jindexOf(utf16String(b.s), strArg(args, 0), 0))
	case "substring":
		s := utf16String(b.s)
		e := jlen(s)
		if len(args) == 2 {
			e = intArg(args, 1)
		}
		return jsubstring(s, intArg(args, 0), e)
	case "capacity":
		return int32(len(b.s) + 16)
	}
	panic(&UnsupportedError{Line: line, Construct: "the method StringBuilder." + name})
}

func bufferMethod(b *jbuffer, name string, args []any, line int) any {
	need := func(n int) int {
		if b.pos+n > len(b.b) {
			throwJava("BufferUnderflowException", "")
		}
		p := b.pos
		return p
	}
	absolute := len(args) == 1 && isNum(args[0])
	at := func(n int) int {
		if absolute {
			i := intArg(args, 0)
			if i < 0 || i+n > len(b.b) {
				throwJava("IndexOutOfBoundsException", "")
			}
			return i
		}
		p := need(n)
		b.pos += n
		return p
	}
	switch name {
	case "remaining":
		return int32(len(b.b) - b.pos)
	case "hasRemaining":
		return b.pos < len(b.b)
	case "position":
		return int32(b.pos)
	case "limit", "capacity":
		return int32(len(b.b))
	case "arrayOffset":
		return int32(0)
	case "hasArray":
		return true
	case "isDirect", "isReadOnly":
		return false
	case "get":
		if len(args) == 1 {
			if arr, ok := args[0].(*jarray); ok {
				p := need(len(arr.vals))
				for i := range arr.vals {
					arr.vals[i] = int8(b.b[p+i])
				}
				b.pos += len(arr.vals)
				return b
			}
		}
		return int8(b.b[at(1)])
	case "getInt":
		p := at(4)
		return int32(be64(b.b[p : p+4]))
	case "getLong":
		p := at(8)
		return int64(be64(b.b[p : p+8]))
	case "getShort":
		p := at(2)
		return int16(be64(b.b[p : p+2]))
	case "getChar":
		p := at(2)
		return jchar(be64(b.b[p : p+2]))
	case "getDouble":
		p := at(8)
		return math.Float64frombits(be64(b.b[p : p+8]))
	case "getFloat":
		p := at(4)
		return math.Float32frombits(uint32(be64(b.b[p : p+4])))
	case "array":
		arr := &jarray{elem: tInt8, vals: make([]any, len(b.b))}
		for i, c := range b.b {
			arr.vals[i] = int8(c)
		}
		return arr
	case "duplicate", "slice", "asReadOnlyBuffer":
		if name == "slice" {
			return &jbuffer{b: b.b[b.pos:]}
		}
		return &jbuffer{b: b.b, pos: b.pos}
	case "rewind":
		b.pos = 0
		return b
	case "put", "putInt", "putLong", "putShort", "putDouble", "putFloat":
		var enc []byte
		v := args[len(args)-1]
		switch name {
		case "put":
			if arr, ok := v.(*jarray); ok {
				enc = bytesOfArray(arr)
			} else if o, ok := v.(*jbuffer); ok {
				enc = o.b[o.pos:]
				o.pos = len(o.b)
			} else {
				enc = []byte{byte(toInt64(v))}
			}
		case "putInt":
			enc = beBytes(uint64(toInt64(v)), 4)
		case "putLong":
			enc = beBytes(uint64(toInt64(v)), 8)
		case "putShort":
			enc = beBytes(uint64(toInt64(v)), 2)
		case "putDouble":
			enc = beBytes(math.Float64bits(toFloat64(v)), 8)
		case "putFloat":
			enc = beBytes(uint64(math.Float32bits(toFloat32(v))), 4)
		}
		if len(args) == 2 {
			i := intArg(args, 0)
			if i < 0 || i+len(enc) > len(b.b) {
				throwJava("IndexOutOfBoundsException", "")
			}
			copy(b.b[i:], enc)
			return b
		}
		if b.pos+len(enc) > len(b.b) {
			throwJava("BufferOverflowException", "")
		}
		copy(b.b[b.pos:], enc)
		b.pos += len(enc)
		return b
	case "flip":
		b.b = b.b[:b.pos]
		b.pos = 0
		return b
	case "clear":
		b.pos = 0
		return b
	}
	panic(&UnsupportedError{Line: line, Construct: "the method ByteBuffer." + name})
}

func beBytes(v uint64, n int) []byte {
	out := make([]byte, n)
	for i := range n {
		out[n-1-i] = byte(v >> (8 * i))
	}
	return out
}

func bigArg(args []any, i int) *big.Int {
	b, ok := args[i].(*big.Int)
	if !ok {
		throwNPE()
	}
	return b
}

func bigIntMethod(r *big.Int, name string, args []any, line int) any {
	n := new(big.Int)
	switch name {
	case "add":
		return n.Add(r, bigArg(args, 0))
	case "subtract":
		return n.Sub(r, bigArg(args, 0))
	case "multiply":
		o := bigArg(args, 0)
		checkBits(int64(r.BitLen()) + int64(o.BitLen()))
		return n.Mul(r, o)
	case "divide", "remainder", "mod":
		d := bigArg(args, 0)
		if d.Sign() == 0 {
			throwJava("ArithmeticException", "BigInteger divide by zero")
		}
		switch name {
		case "divide":
			return n.Quo(r, d)
		case "remainder":
			return n.Rem(r, d)
		}
		if d.Sign() < 0 {
			throwJava("ArithmeticException", "BigInteger: modulus not positive")
		}
		return n.Mod(r, d)
	case "pow":
		e := intArg(args, 0)
		if e < 0 {
			throwJava("ArithmeticException", "Negative exponent")
		}
		if r.CmpAbs(big.NewInt(1)) > 0 {
			checkBits(int64(r.BitLen()) * int64(e))
		}
		return n.Exp(r, big.NewInt(int64(e)), nil)
	case "negate":
		return n.Neg(r)
	case "abs":
		return n.Abs(r)
	case "max", "min":
		o := bigArg(args, 0)
		if (r.Cmp(o) >= 0) == (name == "max") {
			return r
		}
		return o
	case "gcd":
		return n.GCD(nil, nil, new(big.Int).Abs(r), new(big.Int).Abs(bigArg(args, 0)))
	case "compareTo":
		return int32(r.Cmp(bigArg(args, 0)))
	case "signum":
		return int32(r.Sign())
	case "intValue":
		return int32(truncBig(r))
	case "longValue":
		return truncBig(r)
	case "intValueExact", "longValueExact":
		if !r.IsInt64() || name == "intValueExact" && r.Int64() != int64(int32(r.Int64())) {
			throwJava("ArithmeticException", "BigInteger out of "+map[bool]string{true: "int", false: "long"}[name == "intValueExact"]+" range")
		}
		if name == "intValueExact" {
			return int32(r.Int64())
		}
		return r.Int64()
	case "doubleValue":
		f, _ := new(big.Float).SetInt(r).Float64()
		return f
	case "floatValue":
		f, _ := new(big.Float).SetInt(r).Float32()
		return f
	case "bitLength":
		if r.Sign() < 0 {
			return int32(new(big.Int).Not(r).BitLen())
		}
		return int32(r.BitLen())
	case "testBit":
		i := intArg(args, 0)
		if i < 0 {
			throwJava("ArithmeticException", "Negative bit address")
		}
		if i > r.BitLen() {
			return r.Sign() < 0
		}
		return r.Bit(i) == 1
	case "shiftLeft", "shiftRight":
		k := int64(intArg(args, 0))
		if name == "shiftRight" {
			k = -k
		}
		if k >= 0 {
			checkBits(int64(r.BitLen()) + k)
			return n.Lsh(r, uint(k))
		}
		return n.Rsh(r, uint(min(-k, int64(r.BitLen())+1)))
	case "and":
		return n.And(r, bigArg(args, 0))
	case "or":
		return n.Or(r, bigArg(args, 0))
	case "xor":
		return n.Xor(r, bigArg(args, 0))
	case "not":
		return n.Not(r)
	}
	panic(&UnsupportedError{Line: line, Construct: "the method BigInteger." + name})
}

// truncBig is the low 64 bits of r in two's complement.
func truncBig(r *big.Int) int64 {
	m := new(big.Int).And(r, new(big.Int).SetUint64(math.MaxUint64))
	return int64(m.Uint64())
}

func decArg(args []any, i int) types.DecimalValue {
	d, ok := args[i].(types.DecimalValue)
	if !ok {
		throwNPE()
	}
	return d
}

// align returns the unscaled values of a and b at their common scale.
func align(a, b types.DecimalValue) (*big.Int, *big.Int, int32) {
	x, y := new(big.Int).Set(a.Unscaled), new(big.Int).Set(b.Unscaled)
	s := max(a.Scale, b.Scale)
	x.Mul(x, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s-a.Scale)), nil))
	y.Mul(y, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s-b.Scale)), nil))
	return x, y, s
}

func decimalMethod(d types.DecimalValue, name string, args []any, line int) any {
	switch name {
	case "add", "subtract":
		if len(args) != 1 {
			break
		}
		x, y, s := align(d, decArg(args, 0))
		if name == "add" {
			return types.DecimalValue{Unscaled: x.Add(x, y), Scale: s}
		}
		return types.DecimalValue{Unscaled: x.Sub(x, y), Scale: s}
	case "multiply":
		if len(args) != 1 {
			break
		}
		o := decArg(args, 0)
		return types.DecimalValue{Unscaled: new(big.Int).Mul(d.Unscaled, o.Unscaled), Scale: d.Scale + o.Scale}
	case "negate":
		return types.DecimalValue{Unscaled: new(big.Int).Neg(d.Unscaled), Scale: d.Scale}
	case "abs":
		return types.DecimalValue{Unscaled: new(big.Int).Abs(d.Unscaled), Scale: d.Scale}
	case "compareTo":
		return int32(d.Rat().Cmp(decArg(args, 0).Rat()))
	case "max", "min":
		o := decArg(args, 0)
		if (d.Rat().Cmp(o.Rat()) >= 0) == (name == "max") {
			return d
		}
		return o
	case "signum":
		return int32(d.Unscaled.Sign())
	case "scale":
		return d.Scale
	case "precision":
		s := new(big.Int).Abs(d.Unscaled).String()
		return int32(len(s))
	case "unscaledValue":
		return new(big.Int).Set(d.Unscaled)
	case "toBigInteger":
		return new(big.Int).Quo(d.Rat().Num(), d.Rat().Denom())
	case "intValue":
		return int32(truncBig(new(big.Int).Quo(d.Rat().Num(), d.Rat().Denom())))
	case "longValue":
		return truncBig(new(big.Int).Quo(d.Rat().Num(), d.Rat().Denom()))
	case "doubleValue":
		f, _ := d.Rat().Float64()
		return f
	case "floatValue":
		f, _ := d.Rat().Float32()
		return f
	case "toPlainString":
		return plainDecimal(d)
	case "stripTrailingZeros":
		u := new(big.Int).Set(d.Unscaled)
		s := d.Scale
		if u.Sign() == 0 {
			return types.DecimalValue{Unscaled: u}
		}
		ten := big.NewInt(10)
		for {
			q, m := new(big.Int).QuoRem(u, ten, new(big.Int))
			if m.Sign() != 0 {
				break
			}
			u, s = q, s-1
		}
		return types.DecimalValue{Unscaled: u, Scale: s}
	}
	panic(&UnsupportedError{Line: line, Construct: "the method BigDecimal." + name})
}

func plainDecimal(d types.DecimalValue) string {
	s := new(big.Int).Abs(d.Unscaled).String()
	neg := d.Unscaled.Sign() < 0
	if d.Scale <= 0 {
		s += strings.Repeat("0", int(-d.Scale))
	} else {
		for len(s) <= int(d.Scale) {
			s = "0" + s
		}
		s = s[:len(s)-int(d.Scale)] + "." + s[len(s)-int(d.Scale):]
	}
	if neg {
		return "-" + s
	}
	return s
}
