package javaudf

import (
	"slices"
	"strings"
)

// The instance methods of String and StringBuilder (StringBuffer).

// stringMethod runs a String method on s.
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
		limit := 0
		if len(args) == 2 {
			limit = intArg(args, 1)
		}
		parts := javaSplit(s, javaRegex(strArg(args, 0), line), limit)
		arr := &jarray{elem: tStr, vals: make([]any, len(parts))}
		for i, p := range parts {
			arr.vals[i] = p
		}
		return arr
	case "matches":
		return javaRegex("^(?:"+strArg(args, 0)+")$", line).MatchString(s)
	case "replaceAll", "replaceFirst":
		if args[0] == nil || args[1] == nil {
			throwNPE()
		}
		return javaReplace(s, javaRegex(strArg(args, 0), line), strArg(args, 1), name == "replaceAll", line)
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

// builderMethod runs a StringBuilder method on b.
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
