package javaudf

import (
	"slices"
	"strings"
)

// The instance methods of List, Set and Map, and the static methods of
// java.util.Collections.

// listMethod runs a List method on l.
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

// nonNull returns v, throwing NullPointerException for null.
func nonNull(v any) any {
	if v == nil {
		throwNPE()
	}
	return v
}

// setMethod runs a Set method on s.
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
		return &jiterator{items: s.items()}
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
		return &jarray{elem: tObject, vals: s.items()}
	}
	panic(&UnsupportedError{Line: line, Construct: "the method Set." + name})
}

// mapMethod runs a Map method on m.
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
	case "keySet", "navigableKeySet", "values", "entrySet":
		// Views of the map, in its iteration order (not written through,
		// except Map.Entry.setValue).
		var out []any
		for _, i := range m.order() {
			switch name {
			case "values":
				out = append(out, m.vals[i])
			case "entrySet":
				out = append(out, &jentry{k: m.keys[i], v: m.vals[i], m: m})
			default:
				out = append(out, m.keys[i])
			}
		}
		if name == "values" {
			return &jlist{elems: out, immutable: true}
		}
		return &jset{elems: out, sorted: m.sorted && name != "entrySet", immutable: true}
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

// collectionsCall runs a static method of Collections.
func collectionsCall(name string, args []any, line int) any {
	switch name {
	case "emptyList":
		return &jlist{immutable: true}
	case "emptySet":
		return &jset{immutable: true}
	case "emptyMap":
		return &jmap{immutable: true}
	case "singletonList":
		return &jlist{elems: []any{args[0]}, immutable: true}
	case "singleton":
		return &jset{elems: []any{args[0]}, immutable: true}
	case "singletonMap":
		return &jmap{keys: []any{args[0]}, vals: []any{args[1]}, immutable: true}
	case "nCopies":
		n := toInt64(args[0])
		if n < 0 {
			throwJava("IllegalArgumentException", "List length = "+itoa(n))
		}
		checkElems(n)
		l := &jlist{immutable: true}
		for range n {
			l.elems = append(l.elems, args[1])
		}
		return l
	case "unmodifiableList", "synchronizedList":
		l, ok := args[0].(*jlist)
		if !ok {
			throwNPE()
		}
		return &jlist{elems: l.elems, immutable: name == "unmodifiableList"}
	case "unmodifiableSet":
		s, ok := args[0].(*jset)
		if !ok {
			throwNPE()
		}
		return &jset{elems: s.elems, sorted: s.sorted, immutable: true}
	case "unmodifiableMap":
		m, ok := args[0].(*jmap)
		if !ok {
			throwNPE()
		}
		return &jmap{keys: m.keys, vals: m.vals, sorted: m.sorted, immutable: true}
	case "sort":
		l, ok := args[0].(*jlist)
		if !ok {
			throwNPE()
		}
		if len(args) > 1 && args[1] != nil {
			panic(&UnsupportedError{Line: line, Construct: "Collections.sort with a Comparator"})
		}
		checkMutable(l.immutable)
		sortValues(l.elems)
		return nil
	case "reverse":
		l, ok := args[0].(*jlist)
		if !ok {
			throwNPE()
		}
		checkMutable(l.immutable)
		slices.Reverse(l.elems)
		return nil
	case "max", "min":
		items := iterItems(args[0])
		if len(items) == 0 {
			throwJava("NoSuchElementException", "")
		}
		best := items[0]
		for _, v := range items[1:] {
			c := compareJava(v, best)
			if name == "max" && c > 0 || name == "min" && c < 0 {
				best = v
			}
		}
		return best
	case "frequency":
		n := int32(0)
		for _, v := range iterItems(args[0]) {
			if javaEquals(v, args[1]) {
				n++
			}
		}
		return n
	case "swap":
		l, ok := args[0].(*jlist)
		if !ok {
			throwNPE()
		}
		i, j := l.index(args[1]), l.index(args[2])
		l.elems[i], l.elems[j] = l.elems[j], l.elems[i]
		return nil
	}
	panic(&UnsupportedError{Line: line, Construct: "Collections." + name})
}

func checkMutable(immutable bool) {
	if immutable {
		panic(&javaThrow{&jexception{class: "UnsupportedOperationException", qualify: "java.lang.UnsupportedOperationException"}})
	}
}

func (l *jlist) index(v any) int {
	i := toInt64(v)
	if i < 0 || i >= int64(len(l.elems)) {
		throwJava("IndexOutOfBoundsException", "Index "+itoa(i)+" out of bounds for length "+itoa(int64(len(l.elems))))
	}
	return int(i)
}

// sortValues sorts by compareTo (a stable merge sort, as Java's).
func sortValues(vs []any) {
	slices.SortStableFunc(vs, compareJava)
}
