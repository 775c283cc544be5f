package minicass

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"net"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/minicass/minicass/types"
)

// Unmarshaler is implemented by Scan destinations that decode a value
// themselves. b is the value in its native-protocol serialized form (nil
// for null) and is only valid during the call.
type Unmarshaler interface {
	UnmarshalCQL(t types.Type, b []byte) error
}

var (
	timeType        = reflect.TypeFor[time.Time]()
	durationType    = reflect.TypeFor[time.Duration]()
	bigIntType      = reflect.TypeFor[big.Int]()
	ipType          = reflect.TypeFor[net.IP]()
	uuidType        = reflect.TypeFor[types.UUIDValue]()
	dateType        = reflect.TypeFor[types.DateValue]()
	cqlDurationType = reflect.TypeFor[types.DurationValue]()
	decimalType     = reflect.TypeFor[types.DecimalValue]()
	mapEntriesType  = reflect.TypeFor[[]types.MapEntry]()
	unmarshalerType = reflect.TypeFor[Unmarshaler]()
)

// scanValue stores the serialized value b of type t into dest, which must be
// a non-nil pointer. The conversions are listed on Rows.Scan.
func scanValue(dest any, t types.Type, b []byte) error {
	return scanValueInto(dest, &t, b, nil, 1)
}

// scanValueInto is scanValue with an arena for the copies of blobs scanned
// into *[]byte (see copyBlob); a nil arena gives each copy its own
// allocation. rowsLeft is the number of rows still to be scanned with the
// arena, this one included. t is passed by reference: a row's scan calls it
// for every value.
func scanValueInto(dest any, t *types.Type, b []byte, arena *[]byte, rowsLeft int) error {
	// The common destinations first: pointers to types of the standard
	// library or unnamed ones, which cannot be Unmarshalers.
	if d, ok := dest.(*[]byte); ok && d != nil && t.Kind == types.Blob {
		*d = copyBlob(arena, b, rowsLeft)
		return nil
	}
	if ok, err := scanFast(dest, t, b); ok {
		return err
	}
	return scanGeneral(dest, *t, b)
}

// scanGeneral is scanValue for the destinations scanFast does not handle.
func scanGeneral(dest any, t types.Type, b []byte) error {
	if u, ok := dest.(Unmarshaler); ok {
		return u.UnmarshalCQL(t, b)
	}
	rv := reflect.ValueOf(dest)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("%w: destination %T is not a non-nil pointer", ErrScan, dest)
	}
	if b != nil {
		if err := types.Validate(t, b); err != nil {
			return fmt.Errorf("%w: %w", ErrScan, err)
		}
	}
	return assign(rv.Elem(), t, b)
}

// assign stores b (already validated) into the settable value v.
func assign(v reflect.Value, t types.Type, b []byte) error {
	if v.CanAddr() && v.Kind() != reflect.Pointer && v.Addr().Type().Implements(unmarshalerType) {
		return v.Addr().Interface().(Unmarshaler).UnmarshalCQL(t, b)
	}
	if v.Kind() == reflect.Pointer {
		if b == nil {
			v.SetZero()
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return assign(v.Elem(), t, b)
	}
	if v.Kind() == reflect.Interface && v.NumMethod() == 0 {
		d, err := types.Decode(t, b)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrScan, err)
		}
		if d == nil {
			v.SetZero()
		} else {
			v.Set(reflect.ValueOf(d))
		}
		return nil
	}
	// Null and the empty value of a non-text type scan as the zero value,
	// as gocql does.
	if b == nil || (len(b) == 0 && t.Kind != types.Text && t.Kind != types.Ascii && t.Kind != types.Blob) {
		v.SetZero()
		return nil
	}
	switch t.Kind {
	case types.Ascii, types.Text:
		if v.Kind() == reflect.String {
			v.SetString(string(b))
			return nil
		}
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 && v.Type() != ipType {
			v.SetBytes(append([]byte{}, b...))
			return nil
		}
	case types.Int, types.Bigint, types.Counter, types.Smallint, types.Tinyint:
		n := signed(b)
		switch v.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if v.Type() == durationType {
				break
			}
			if v.OverflowInt(n) {
				return overflow(t, n, v)
			}
			v.SetInt(n)
			return nil
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if n < 0 || v.OverflowUint(uint64(n)) {
				return overflow(t, n, v)
			}
			v.SetUint(uint64(n))
			return nil
		case reflect.Float64:
			v.SetFloat(float64(n))
			return nil
		}
		if v.Type() == bigIntType {
			v.Set(reflect.ValueOf(big.NewInt(n)).Elem())
			return nil
		}
	case types.Varint:
		d, _ := types.Decode(t, b)
		x := d.(*big.Int)
		if v.Type() == bigIntType {
			v.Set(reflect.ValueOf(x).Elem())
			return nil
		}
		switch v.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if !x.IsInt64() || v.OverflowInt(x.Int64()) {
				return fmt.Errorf("%w: varint %s overflows %s", ErrScan, x, v.Type())
			}
			v.SetInt(x.Int64())
			return nil
		case reflect.String:
			v.SetString(x.String())
			return nil
		}
	case types.Float, types.Double:
		var f float64
		if t.Kind == types.Float {
			f = float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
		} else {
			f = math.Float64frombits(binary.BigEndian.Uint64(b))
		}
		switch v.Kind() {
		case reflect.Float64:
			v.SetFloat(f)
			return nil
		case reflect.Float32:
			if t.Kind == types.Float {
				v.SetFloat(f)
				return nil
			}
		}
	case types.Decimal:
		d, _ := types.Decode(t, b)
		dv := d.(types.DecimalValue)
		switch {
		case v.Type() == decimalType:
			v.Set(reflect.ValueOf(dv))
			return nil
		case v.Kind() == reflect.String:
			v.SetString(dv.String())
			return nil
		case v.Kind() == reflect.Float64:
			// As BigDecimal.doubleValue: the nearest double, ±Inf or 0
			// out of range. Parsing the text (scientific notation for a
			// large exponent) costs what its digits cost, where the exact
			// fraction would build 10^exponent.
			f, _ := strconv.ParseFloat(dv.String(), 64)
			v.SetFloat(f)
			return nil
		}
	case types.Boolean:
		if v.Kind() == reflect.Bool {
			v.SetBool(b[0] != 0)
			return nil
		}
	case types.UUID, types.TimeUUID:
		switch {
		case v.Type() == uuidType || (v.Kind() == reflect.Array && v.Len() == 16 && v.Type().Elem().Kind() == reflect.Uint8):
			reflect.Copy(v, reflect.ValueOf(b))
			return nil
		case v.Kind() == reflect.String:
			v.SetString(types.UUIDValue(b).String())
			return nil
		}
	case types.Timestamp:
		ms := signed(b)
		switch {
		case v.Type() == timeType:
			v.Set(reflect.ValueOf(time.UnixMilli(ms).UTC()))
			return nil
		case v.Kind() == reflect.Int64 && v.Type() != durationType:
			v.SetInt(ms)
			return nil
		}
	case types.Date:
		d, _ := types.Decode(t, b)
		dv := d.(types.DateValue)
		switch {
		case v.Type() == dateType:
			v.Set(reflect.ValueOf(dv))
			return nil
		case v.Type() == timeType:
			v.Set(reflect.ValueOf(dv.Time()))
			return nil
		case v.Kind() == reflect.String:
			v.SetString(dv.String())
			return nil
		}
	case types.Time:
		if v.Kind() == reflect.Int64 {
			v.SetInt(signed(b))
			return nil
		}
	case types.Duration:
		d, _ := types.Decode(t, b)
		switch {
		case v.Type() == cqlDurationType:
			v.Set(reflect.ValueOf(d))
			return nil
		case v.Kind() == reflect.String:
			v.SetString(d.(types.DurationValue).String())
			return nil
		}
	case types.Blob:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 && v.Type() != ipType {
			v.SetBytes(append([]byte{}, b...))
			return nil
		}
		if v.Kind() == reflect.String {
			v.SetString(string(b))
			return nil
		}
	case types.Inet:
		switch {
		case v.Type() == ipType:
			v.Set(reflect.ValueOf(net.IP(append([]byte{}, b...))))
			return nil
		case v.Kind() == reflect.String:
			v.SetString(net.IP(b).String())
			return nil
		}
	case types.List, types.Set:
		elems, err := types.DecodeCollection(t, b)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrScan, err)
		}
		return assignSlice(v, t, t.Params[0], elems)
	case types.Tuple:
		fields, err := types.DecodeTuple(t, b)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrScan, err)
		}
		if t.UDT != nil && (v.Kind() == reflect.Struct || v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String) {
			return assignUDT(v, t, fields)
		}
		if v.Kind() == reflect.Slice || v.Kind() == reflect.Array {
			return assignTuple(v, t, fields)
		}
	case types.Map:
		elems, err := types.DecodeCollection(t, b)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrScan, err)
		}
		if v.Kind() == reflect.Map {
			m := reflect.MakeMapWithSize(v.Type(), len(elems)/2)
			for i := 0; i+1 < len(elems); i += 2 {
				k := reflect.New(v.Type().Key()).Elem()
				if err := assign(k, t.Params[0], elems[i]); err != nil {
					return err
				}
				e := reflect.New(v.Type().Elem()).Elem()
				if err := assign(e, t.Params[1], elems[i+1]); err != nil {
					return err
				}
				m.SetMapIndex(k, e)
			}
			v.Set(m)
			return nil
		}
		if v.Type() == mapEntriesType {
			d, _ := types.Decode(t, b)
			v.Set(reflect.ValueOf(d))
			return nil
		}
	}
	return fmt.Errorf("%w: cannot store %s into %s", ErrScan, t, v.Type())
}

func assignSlice(v reflect.Value, t, et types.Type, elems [][]byte) error {
	switch v.Kind() {
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			break
		}
		s := reflect.MakeSlice(v.Type(), len(elems), len(elems))
		for i, e := range elems {
			if err := assign(s.Index(i), et, e); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Map:
		// A set scans into map[T]bool or map[T]struct{}.
		if t.Kind != types.Set {
			break
		}
		ev := v.Type().Elem()
		if ev.Kind() != reflect.Bool && (ev.Kind() != reflect.Struct || ev.NumField() != 0) {
			break
		}
		m := reflect.MakeMapWithSize(v.Type(), len(elems))
		present := reflect.New(ev).Elem()
		if ev.Kind() == reflect.Bool {
			present.SetBool(true)
		}
		for _, e := range elems {
			k := reflect.New(v.Type().Key()).Elem()
			if err := assign(k, et, e); err != nil {
				return err
			}
			m.SetMapIndex(k, present)
		}
		v.Set(m)
		return nil
	}
	return fmt.Errorf("%w: cannot store %s into %s", ErrScan, t, v.Type())
}

// assignUDT stores the fields of a user type value into a struct (fields
// matched by their `cql` tag, else their lower-cased name, as gocql does;
// user type fields without a struct field are skipped) or a map by field
// name.
func assignUDT(v reflect.Value, t types.Type, fields [][]byte) error {
	if v.Kind() == reflect.Map {
		m := reflect.MakeMapWithSize(v.Type(), len(fields))
		for i, f := range fields {
			e := reflect.New(v.Type().Elem()).Elem()
			if err := assign(e, t.Params[i], f); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(t.UDT.Fields[i]).Convert(v.Type().Key()), e)
		}
		v.Set(m)
		return nil
	}
	for i := 0; i < v.NumField(); i++ {
		sf := v.Type().Field(i)
		if !sf.IsExported() {
			continue
		}
		name := sf.Tag.Get("cql")
		if name == "" {
			name = strings.ToLower(sf.Name)
		}
		j := slices.Index(t.UDT.Fields, name)
		if j < 0 {
			continue
		}
		if err := assign(v.Field(i), t.Params[j], fields[j]); err != nil {
			return err
		}
	}
	return nil
}

func assignTuple(v reflect.Value, t types.Type, fields [][]byte) error {
	if v.Kind() == reflect.Slice {
		v.Set(reflect.MakeSlice(v.Type(), len(fields), len(fields)))
	} else if v.Len() != len(fields) {
		return fmt.Errorf("%w: cannot store %s into %s", ErrScan, t, v.Type())
	}
	for i, f := range fields {
		if err := assign(v.Index(i), t.Params[i], f); err != nil {
			return err
		}
	}
	return nil
}

func signed(b []byte) int64 {
	switch len(b) {
	case 1:
		return int64(int8(b[0]))
	case 2:
		return int64(int16(binary.BigEndian.Uint16(b)))
	case 4:
		return int64(int32(binary.BigEndian.Uint32(b)))
	}
	return int64(binary.BigEndian.Uint64(b))
}

func overflow(t types.Type, n int64, v reflect.Value) error {
	return fmt.Errorf("%w: %s value %d overflows %s", ErrScan, t, n, v.Type())
}

// blobArenaBlock is the largest block copyBlob carves copies from.
const blobArenaBlock = 1024

// copyBlob returns a copy of b (nil for null, an empty non-nil slice for the
// empty value). With an arena, copies of values up to a quarter of
// blobArenaBlock are carved from shared blocks, each copy's capacity capped
// at its length so that appending to it reallocates: the caller owns the
// copy as if it were allocated alone, and a page of rows scanned on one Rows
// allocates a few blocks instead of one slice per value. A new block is
// sized for rowsLeft values of b's length (at most blobArenaBlock), so a
// page of ten small values takes one block of about their size.
func copyBlob(arena *[]byte, b []byte, rowsLeft int) []byte {
	if b == nil {
		return nil
	}
	if arena == nil || len(b) == 0 || len(b) > blobArenaBlock/4 {
		return append([]byte{}, b...)
	}
	if cap(*arena)-len(*arena) < len(b) {
		*arena = make([]byte, 0, min(blobArenaBlock, max(len(b), 16)*max(rowsLeft, 1)))
	}
	start := len(*arena)
	*arena = append(*arena, b...)
	return (*arena)[start:len(*arena):len(*arena)]
}

// scanFast handles the most common destinations without reflection. It
// reports false when dest is not one of them (or b needs the general path).
func scanFast(dest any, t *types.Type, b []byte) (bool, error) {
	k := t.Kind
	switch d := dest.(type) {
	case *string:
		if d != nil && (k == types.Text || k == types.Ascii) {
			if b == nil {
				*d = ""
				return true, nil
			}
			if err := types.Validate(*t, b); err != nil {
				return true, fmt.Errorf("%w: %w", ErrScan, err)
			}
			*d = string(b)
			return true, nil
		}
	case *int:
		if d != nil && (k == types.Int || k == types.Bigint || k == types.Counter) && (len(b) == 4 && k == types.Int || len(b) == 8 && k != types.Int) {
			*d = int(signed(b))
			return true, nil
		}
	case *int64:
		if d != nil && (k == types.Bigint || k == types.Counter || k == types.Timestamp) && len(b) == 8 {
			*d = signed(b)
			return true, nil
		}
	case *int32:
		if d != nil && k == types.Int && len(b) == 4 {
			*d = int32(signed(b))
			return true, nil
		}
	case *time.Time:
		if d != nil && k == types.Timestamp && len(b) == 8 {
			*d = time.UnixMilli(signed(b)).UTC()
			return true, nil
		}
	case *float64:
		if d != nil && k == types.Double && len(b) == 8 {
			*d = math.Float64frombits(binary.BigEndian.Uint64(b))
			return true, nil
		}
	case *bool:
		if d != nil && k == types.Boolean && len(b) == 1 {
			*d = b[0] != 0
			return true, nil
		}
	}
	return false, nil
}
