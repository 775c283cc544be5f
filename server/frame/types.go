package frame

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/minicass/minicass/types"
)

// DurationClass is the custom type class name under which protocols v3 and
// v4 send the duration type, which has a type id (0x0015) only from v5.
const DurationClass = "org.apache.cassandra.db.marshal.DurationType"

// v3Classes are the custom type class names under which protocol v3 sends
// the types that got a type id in v4, as Cassandra's DataType.fromType does.
var v3Classes = map[types.Kind]string{
	types.Date:     "org.apache.cassandra.db.marshal.SimpleDateType",
	types.Time:     "org.apache.cassandra.db.marshal.TimeType",
	types.Smallint: "org.apache.cassandra.db.marshal.ShortType",
	types.Tinyint:  "org.apache.cassandra.db.marshal.ByteType",
}

// ColumnSpec describes a result column or a bind marker (types.ColumnSpec).
type ColumnSpec = types.ColumnSpec

// udtID is the [option] id of a user-defined type.
const udtID = 0x0030

// maxTypeDepth bounds the nesting of [option]s a decoder accepts, so that a
// hostile frame cannot exhaust the stack.
const maxTypeDepth = 32

// option writes t as an [option]: the type id, then for collections and
// tuples the parameter types. Before v5, duration is written as the custom
// type DurationClass; in v3, date, time, smallint and tinyint as their
// custom classes too. Frozenness is not part of the wire format.
func (w *Writer) option(t types.Type) error {
	if t.Kind == types.Duration && w.version() < 5 {
		w.Short(0x0000)
		w.String(DurationClass)
		return nil
	}
	if class, ok := v3Classes[t.Kind]; ok && w.version() < 4 {
		w.Short(0x0000)
		w.String(class)
		return nil
	}
	if t.UDT != nil {
		// 0x0030: keyspace, type name, then each field's name and type.
		w.Short(udtID)
		w.String(t.UDT.Keyspace)
		w.String(t.UDT.Name)
		w.short(len(t.Params), "user type")
		for i, p := range t.Params {
			w.String(t.UDT.Fields[i])
			if err := w.option(p); err != nil {
				return err
			}
		}
		return nil
	}
	if t.Custom != "" {
		// A custom type: option 0x0000 and its class name.
		w.Short(0x0000)
		w.String(t.Custom)
		return nil
	}
	id := t.Kind.ProtocolID()
	if id == 0 {
		return fmt.Errorf("%w: %s has no protocol v4 id", ErrUnsupportedType, t.Kind)
	}
	w.Short(id)
	switch t.Kind {
	case types.List, types.Set:
		if len(t.Params) != 1 {
			return fmt.Errorf("%w: %s needs 1 parameter, has %d", ErrInvalidValue, t.Kind, len(t.Params))
		}
		return w.option(t.Params[0])
	case types.Map:
		if len(t.Params) != 2 {
			return fmt.Errorf("%w: map needs 2 parameters, has %d", ErrInvalidValue, len(t.Params))
		}
		if err := w.option(t.Params[0]); err != nil {
			return err
		}
		return w.option(t.Params[1])
	case types.Tuple:
		w.short(len(t.Params), "tuple")
		for _, p := range t.Params {
			if err := w.option(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// kindByProtocolID inverts types.Kind.ProtocolID.
var kindByProtocolID = func() map[uint16]types.Kind {
	m := make(map[uint16]types.Kind)
	for k := types.Kind(1); k.String() != "invalid"; k++ {
		if id := k.ProtocolID(); id != 0 {
			m[id] = k
		}
	}
	return m
}()

// Option reads an [option] naming a type. A top-level collection is returned
// not frozen (the wire does not say); collections nested in another type are
// frozen, as CQL requires of them, and tuples are always frozen.
func (r *Reader) Option() (types.Type, error) { return r.option(0) }

func (r *Reader) option(depth int) (types.Type, error) {
	if depth > maxTypeDepth {
		return types.Type{}, fmt.Errorf("%w: types nested deeper than %d", ErrInvalidValue, maxTypeDepth)
	}
	id := r.Short()
	if r.err != nil {
		return types.Type{}, r.err
	}
	if id == udtID {
		ut := &types.UserType{Keyspace: r.String(), Name: r.String()}
		n := int(r.Short())
		if r.err != nil {
			return types.Type{}, r.err
		}
		if n*4 > r.Remaining() {
			return types.Type{}, fmt.Errorf("%w: user type of %d fields", ErrShortBuffer, n)
		}
		fields := make([]types.Type, 0, n)
		for range n {
			ut.Fields = append(ut.Fields, r.String())
			p, err := r.option(depth + 1)
			if err != nil {
				return types.Type{}, err
			}
			fields = append(fields, p)
		}
		return types.UserTypeOf(ut, fields, true), r.err
	}
	if id == 0x0000 {
		class := r.String()
		if r.err != nil {
			return types.Type{}, r.err
		}
		if class == DurationClass {
			return types.DurationType, nil
		}
		if t, err := types.CustomType(class); err == nil {
			return t, nil
		}
		return types.Type{}, fmt.Errorf("%w: custom type %q", ErrUnsupportedType, class)
	}
	k, ok := kindByProtocolID[id]
	if !ok {
		return types.Type{}, fmt.Errorf("%w: type id 0x%04x", ErrUnsupportedType, id)
	}
	t := types.Type{Kind: k}
	var n int
	switch k {
	case types.List, types.Set:
		n = 1
	case types.Map:
		n = 2
	case types.Tuple:
		n = int(r.Short())
		t.Frozen = true
		if n*2 > r.Remaining() {
			return types.Type{}, fmt.Errorf("%w: tuple of %d fields", ErrShortBuffer, n)
		}
	}
	for range n {
		p, err := r.option(depth + 1)
		if err != nil {
			return types.Type{}, err
		}
		t.Params = append(t.Params, p.Freeze())
	}
	return t, r.err
}

// SortedKeys returns the keys of m in increasing order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp.Compare[string])
	return keys
}
