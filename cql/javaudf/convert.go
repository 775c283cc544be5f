package javaudf

import (
	"math/big"
	"net"
	"slices"
	"time"

	"github.com/minicass/minicass/types"
)

// toJava converts an argument in types.Decode's Go form to the Java value
// the driver's codec gives the body (see the type mapping in doc.go).
func toJava(t types.Type, v any) any {
	if v == nil {
		return nil
	}
	if _, empty := v.(types.EmptyValue); empty {
		// The driver's codecs read an empty value as an empty collection,
		// a tuple or UDT value with every field null, and null otherwise.
		switch t.Kind {
		case types.List:
			return &jlist{}
		case types.Set:
			return &jset{}
		case types.Map:
			return &jmap{}
		case types.Tuple:
			return newUDT(t)
		}
		return nil
	}
	switch t.Kind {
	case types.Time:
		if d, ok := v.(time.Duration); ok {
			return int64(d)
		}
	case types.Blob:
		if b, ok := v.([]byte); ok {
			return &jbuffer{b: b}
		}
	case types.List:
		vs, _ := v.([]any)
		l := &jlist{elems: make([]any, len(vs))}
		for i, e := range vs {
			l.elems[i] = toJava(t.Params[0], e)
		}
		return l
	case types.Set:
		vs, _ := v.([]any)
		s := &jset{elems: make([]any, len(vs))}
		for i, e := range vs {
			s.elems[i] = toJava(t.Params[0], e)
		}
		return s
	case types.Map:
		es, _ := v.([]types.MapEntry)
		m := &jmap{keys: make([]any, len(es)), vals: make([]any, len(es))}
		for i, e := range es {
			m.keys[i] = toJava(t.Params[0], e.Key)
			m.vals[i] = toJava(t.Params[1], e.Value)
		}
		return m
	case types.Tuple:
		u := &udtValue{t: t, fields: make([]any, len(t.Params))}
		if t.UDT != nil {
			m, _ := v.(map[string]any)
			for i, name := range t.UDT.Fields {
				u.fields[i] = toJava(t.Params[i], m[name])
			}
			return u
		}
		vs, _ := v.([]any)
		for i := range u.fields {
			if i < len(vs) {
				u.fields[i] = toJava(t.Params[i], vs[i])
			}
		}
		return u
	case types.Counter:
		return v
	}
	return v
}

// fromJava converts the body's result to the Go form types.Encode takes
// for t. A value of the wrong Java class gives a ClassCastException, as the
// return codec's cast would.
func fromJava(t types.Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	mismatch := func() (any, error) {
		exc := recoverThrow(func() { throwClassCast(javaClassName(v), qualifiedClass(javaTypeOf(t, false).name)) })
		return nil, exc
	}
	switch t.Kind {
	case types.Ascii, types.Text:
		if s, ok := v.(string); ok {
			return s, nil
		}
		return mismatch()
	case types.Int:
		if n, ok := v.(int32); ok {
			return n, nil
		}
	case types.Bigint, types.Counter:
		if n, ok := v.(int64); ok {
			return n, nil
		}
	case types.Time:
		if n, ok := v.(int64); ok {
			return time.Duration(n), nil
		}
	case types.Smallint:
		if n, ok := v.(int16); ok {
			return n, nil
		}
	case types.Tinyint:
		if n, ok := v.(int8); ok {
			return n, nil
		}
	case types.Float:
		if n, ok := v.(float32); ok {
			return n, nil
		}
	case types.Double:
		if n, ok := v.(float64); ok {
			return n, nil
		}
	case types.Boolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case types.Varint:
		if n, ok := v.(*big.Int); ok {
			return n, nil
		}
	case types.Decimal:
		if d, ok := v.(types.DecimalValue); ok {
			return d, nil
		}
	case types.UUID, types.TimeUUID:
		if u, ok := v.(types.UUIDValue); ok {
			return u, nil
		}
	case types.Timestamp:
		if d, ok := v.(time.Time); ok {
			return d, nil
		}
	case types.Date:
		if d, ok := v.(types.DateValue); ok {
			return d, nil
		}
	case types.Duration:
		if d, ok := v.(types.DurationValue); ok {
			return d, nil
		}
	case types.Blob:
		if b, ok := v.(*jbuffer); ok {
			return slices.Clone(b.b[b.pos:]), nil
		}
	case types.Inet:
		if ip, ok := v.(net.IP); ok {
			return ip, nil
		}
	case types.List, types.Set:
		var elems []any
		switch c := v.(type) {
		case *jlist:
			elems = c.elems
		case *jset:
			elems = c.elems
		default:
			return mismatch()
		}
		out := make([]any, len(elems))
		for i, e := range elems {
			g, err := fromJava(t.Params[0], e)
			if err != nil {
				return nil, err
			}
			if g == nil {
				return nil, &Exception{Class: "java.lang.NullPointerException", HasMessage: false}
			}
			out[i] = g
		}
		return out, nil
	case types.Map:
		m, ok := v.(*jmap)
		if !ok {
			return mismatch()
		}
		out := make([]types.MapEntry, len(m.keys))
		for i := range m.keys {
			k, err := fromJava(t.Params[0], m.keys[i])
			if err != nil {
				return nil, err
			}
			val, err := fromJava(t.Params[1], m.vals[i])
			if err != nil {
				return nil, err
			}
			if k == nil || val == nil {
				return nil, &Exception{Class: "java.lang.NullPointerException"}
			}
			out[i] = types.MapEntry{Key: k, Value: val}
		}
		return out, nil
	case types.Tuple:
		u, ok := v.(*udtValue)
		if !ok || len(u.fields) != len(t.Params) {
			return mismatch()
		}
		return fromJavaUDT(u), nil
	}
	return mismatch()
}

// fromJavaUDT converts a UDTValue or TupleValue to its Go form; a field
// that does not convert becomes null.
func fromJavaUDT(u *udtValue) any {
	if u.t.UDT != nil {
		m := make(map[string]any, len(u.fields))
		for i, name := range u.t.UDT.Fields {
			g, _ := fromJava(u.t.Params[i], u.fields[i])
			m[name] = g
		}
		return m
	}
	out := make([]any, len(u.fields))
	for i := range u.fields {
		out[i], _ = fromJava(u.t.Params[i], u.fields[i])
	}
	return out
}

// recoverThrow runs f and returns the Java exception it throws as an
// *Exception.
func recoverThrow(f func()) (exc *Exception) {
	defer func() {
		if r := recover(); r != nil {
			jt, ok := r.(*javaThrow)
			if !ok {
				panic(r)
			}
			exc = &Exception{Class: jt.exc.qualify, Message: jt.exc.msg, HasMessage: jt.exc.hasMsg}
		}
	}()
	f()
	return nil
}
