package javaudf

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/minicass/minicass/types"
)

// construct runs new T(args).
func construct(fr *frame, t *jtype, args []any, line int) any {
	if t == nil {
		panic(&UnsupportedError{Line: line, Construct: "new of an unknown class"})
	}
	arg := func(i int) any {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	if _, ok := exceptionClasses[t.name]; ok {
		e := &jexception{class: t.name, qualify: qualifiedException(t.name)}
		switch len(args) {
		case 1:
			if c, ok := args[0].(*jexception); ok {
				e.cause = c
				e.msg, e.hasMsg = c.toString(), true
			} else if args[0] != nil {
				e.msg, e.hasMsg = javaString(args[0]), true
			}
		case 2:
			if args[0] != nil {
				e.msg, e.hasMsg = javaString(args[0]), true
			}
			e.cause, _ = args[1].(*jexception)
		}
		return e
	}
	switch t.name {
	case "Object":
		return &jlist{immutable: true} // an object with identity only
	case "ArrayList", "LinkedList":
		l := &jlist{}
		if len(args) == 1 && !isNum(args[0]) {
			if args[0] == nil {
				throwNPE()
			}
			l.elems = iterItems(args[0])
		} else if len(args) == 1 && toInt64(args[0]) < 0 {
			throwJava("IllegalArgumentException", "Illegal Capacity: "+itoa(toInt64(args[0])))
		}
		return l
	case "HashSet", "LinkedHashSet", "TreeSet":
		s := &jset{sorted: t.name == "TreeSet"}
		if t.name == "HashSet" {
			s.hashCap = defaultCapacity
		}
		if len(args) >= 1 && isNum(args[0]) {
			n := toInt64(args[0])
			if n < 0 {
				throwJava("IllegalArgumentException", "Illegal initial capacity: "+itoa(n))
			}
			checkElems(n)
			if s.hashCap > 0 {
				s.hashCap = tableSizeFor(int(n))
			}
		} else if len(args) == 1 {
			if args[0] == nil {
				throwNPE()
			}
			items := iterItems(args[0])
			if s.hashCap > 0 {
				s.hashCap = tableSizeFor(max(int(float32(len(items))/0.75)+1, defaultCapacity))
			}
			for _, v := range items {
				s.add(v)
			}
		}
		return s
	case "HashMap", "LinkedHashMap", "TreeMap":
		m := &jmap{sorted: t.name == "TreeMap"}
		if t.name == "HashMap" {
			m.hashCap = defaultCapacity
		}
		if len(args) >= 1 && isNum(args[0]) {
			n := toInt64(args[0])
			if n < 0 {
				throwJava("IllegalArgumentException", "Illegal initial capacity: "+itoa(n))
			}
			checkElems(n)
			if m.hashCap > 0 {
				m.hashCap = tableSizeFor(int(n))
			}
		} else if len(args) == 1 {
			src, ok := args[0].(*jmap)
			if !ok {
				throwNPE()
			}
			if m.hashCap > 0 && len(src.keys) > 0 {
				m.hashCap = max(tableSizeFor(int(float32(len(src.keys))/0.75+1)), 1)
			}
			for _, i := range src.order() {
				m.put(src.keys[i], src.vals[i])
			}
		}
		return m
	case "StringBuilder", "StringBuffer":
		b := &jbuilder{}
		if len(args) == 1 && !isNum(args[0]) {
			if args[0] == nil {
				throwNPE()
			}
			b.s = toUTF16(javaString(args[0]))
		}
		return b
	case "String":
		if len(args) == 0 {
			return ""
		}
		switch x := args[0].(type) {
		case *jarray:
			if x.elem != nil && x.elem.name == "byte" {
				return string(bytesOfArray(x))
			}
			return charArrayString(x)
		case nil:
			throwNPE()
		}
		return javaString(args[0])
	case "Integer", "Long", "Short", "Byte", "Double", "Float", "Boolean", "Character":
		return boxCall(t.name, "valueOf", args, line)
	case "Date":
		if len(args) == 0 {
			return time.Now().UTC().Truncate(time.Millisecond)
		}
		return time.UnixMilli(toInt64(arg(0))).UTC()
	case "UUID":
		var u types.UUIDValue
		hi, lo := uint64(toInt64(arg(0))), uint64(toInt64(arg(1)))
		for i := range 8 {
			u[i] = byte(hi >> (56 - 8*i))
			u[8+i] = byte(lo >> (56 - 8*i))
		}
		return u
	case "BigInteger":
		s, ok := arg(0).(string)
		if !ok {
			throwNPE()
		}
		radix := 10
		if len(args) == 2 {
			radix = int(toInt64(args[1]))
		}
		n, ok := new(big.Int).SetString(strings.TrimPrefix(s, "+"), radix)
		if !ok || strings.HasPrefix(s, "+-") || strings.ContainsAny(s, "_ ") {
			if s == "" {
				throwJava("NumberFormatException", "Zero length BigInteger")
			}
			throwJava("NumberFormatException", "For input string: \""+s+"\"")
		}
		return n
	case "BigDecimal":
		switch x := arg(0).(type) {
		case string:
			d, ok := types.ParseDecimal(x)
			if !ok {
				throwJava("NumberFormatException", "Character "+firstBad(x)+" is neither a decimal digit number, decimal point, nor \"e\" notation exponential mark.")
			}
			return d
		case *big.Int:
			sc := int32(0)
			if len(args) == 2 {
				sc = int32(toInt64(args[1]))
			}
			return types.DecimalValue{Unscaled: new(big.Int).Set(x), Scale: sc}
		case float64, float32:
			return exactDecimal(toFloat64(x))
		case nil:
			throwNPE()
		}
		return types.DecimalValue{Unscaled: big.NewInt(toInt64(arg(0)))}
	}
	panic(&UnsupportedError{Line: line, Construct: "new " + t.name})
}

func firstBad(s string) string {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return string(c)
		}
	}
	return "?"
}

// exactDecimal is new BigDecimal(double): the exact binary value.
func exactDecimal(f float64) types.DecimalValue {
	r := new(big.Rat)
	if r.SetFloat64(f) == nil {
		throwJava("NumberFormatException", "Infinite or NaN")
	}
	num, den := r.Num(), r.Denom()
	scale := int32(0)
	ten := big.NewInt(10)
	two := big.NewInt(2)
	// den is a power of two: multiply by 5^k to make it 10^k.
	for den.Cmp(big.NewInt(1)) != 0 {
		den.Quo(den, two)
		num.Mul(num, big.NewInt(5))
		scale++
	}
	_ = ten
	return types.DecimalValue{Unscaled: num, Scale: scale}
}

// javaFormat is String.format for the common conversions (%s %d %f %x %n
// %% with flags and widths); others are outside the subset.
func javaFormat(args []any, line int) string {
	if len(args) == 0 || args[0] == nil {
		throwNPE()
	}
	f := javaString(args[0])
	rest := args[1:]
	if len(rest) == 1 {
		if arr, ok := rest[0].(*jarray); ok {
			rest = arr.vals
		}
	}
	var b strings.Builder
	ai := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		j := i + 1
		for j < len(f) && strings.IndexByte("-+ 0#,.123456789", f[j]) >= 0 {
			j++
		}
		if j >= len(f) {
			throwJava("UnknownFormatConversionException", "Conversion = '%'")
		}
		spec, conv := f[i+1:j], f[j]
		i = j
		if formatWidth(spec) > maxChars {
			outOfMemory()
		}
		switch conv {
		case '%':
			b.WriteByte('%')
			continue
		case 'n':
			b.WriteByte('\n')
			continue
		}
		if ai >= len(rest) {
			throwJava("MissingFormatArgumentException", "Format specifier '%"+spec+string(conv)+"'")
		}
		v := rest[ai]
		ai++
		spec = strings.ReplaceAll(spec, ",", "")
		switch conv {
		case 's', 'S':
			s := fmt.Sprintf("%"+spec+"s", javaString(v))
			if conv == 'S' {
				s = strings.ToUpper(s)
			}
			b.WriteString(s)
		case 'd':
			if v == nil {
				b.WriteString(fmt.Sprintf("%"+spec+"s", "null"))
			} else if n, ok := v.(*big.Int); ok {
				b.WriteString(fmt.Sprintf("%"+spec+"d", n))
			} else {
				b.WriteString(fmt.Sprintf("%"+spec+"d", toInt64(v)))
			}
		case 'x', 'X':
			n := toInt64(v)
			var s string
			if _, long := v.(int64); long {
				s = strconv.FormatUint(uint64(n), 16)
			} else {
				s = strconv.FormatUint(uint64(uint32(n)), 16)
			}
			if conv == 'X' {
				s = strings.ToUpper(s)
			}
			b.WriteString(fmt.Sprintf("%"+spec+"s", s))
		case 'f', 'e', 'E', 'g':
			if !strings.Contains(spec, ".") {
				spec += ".6"
			}
			b.WriteString(fmt.Sprintf("%"+spec+string(conv), toFloat64(v)))
		case 'b':
			b.WriteString(fmt.Sprintf("%"+spec+"s", strconv.FormatBool(v != nil && v != false)))
		case 'c':
			b.WriteString(string(rune(toInt64(v))))
		default:
			panic(&UnsupportedError{Line: line, Construct: "String.format conversion %" + string(conv)})
		}
	}
	checkChars(b.Len())
	return b.String()
}

// formatWidth returns the largest number in a format specifier's flags,
// width and precision.
func formatWidth(spec string) int {
	best, cur := 0, 0
	for i := 0; i < len(spec); i++ {
		if spec[i] >= '0' && spec[i] <= '9' {
			cur = min(cur*10+int(spec[i]-'0'), maxChars+1)
			best = max(best, cur)
			continue
		}
		cur = 0
	}
	return best
}

// add inserts v into the set, reporting whether it was absent.
func (s *jset) add(v any) bool {
	checkElems(int64(len(s.elems)) + 1)
	if s.sorted {
		if v == nil {
			throwNPE()
		}
		i, found := slices.BinarySearchFunc(s.elems, v, compareJava)
		if found {
			return false
		}
		s.elems = slices.Insert(s.elems, i, v)
		return true
	}
	if indexOf(s.elems, v) >= 0 {
		return false
	}
	s.elems = append(s.elems, v)
	if s.hashCap > 0 {
		s.hashCap = grownCapacity(s.hashCap, len(s.elems))
	}
	return true
}

func (s *jset) find(v any) int {
	if s.sorted {
		if v == nil {
			throwNPE()
		}
		i, found := slices.BinarySearchFunc(s.elems, v, compareJava)
		if found {
			return i
		}
		return -1
	}
	return indexOf(s.elems, v)
}

func (m *jmap) find(k any) int {
	if m.sorted {
		if k == nil {
			throwNPE()
		}
		i, found := slices.BinarySearchFunc(m.keys, k, compareJava)
		if found {
			return i
		}
		return -1
	}
	return indexOf(m.keys, k)
}

// put sets k to v, returning the previous value.
func (m *jmap) put(k, v any) any {
	if i := m.find(k); i >= 0 {
		old := m.vals[i]
		m.vals[i] = v
		return old
	}
	checkElems(int64(len(m.keys)) + 1)
	if m.sorted {
		i, _ := slices.BinarySearchFunc(m.keys, k, compareJava)
		m.keys = slices.Insert(m.keys, i, k)
		m.vals = slices.Insert(m.vals, i, v)
		return nil
	}
	m.keys = append(m.keys, k)
	m.vals = append(m.vals, v)
	if m.hashCap > 0 {
		m.hashCap = grownCapacity(m.hashCap, len(m.keys))
	}
	return nil
}

func (m *jmap) remove(k any) any {
	i := m.find(k)
	if i < 0 {
		return nil
	}
	old := m.vals[i]
	m.keys = slices.Delete(m.keys, i, i+1)
	m.vals = slices.Delete(m.vals, i, i+1)
	return old
}
