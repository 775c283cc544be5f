package javaudf

import (
	"strings"

	"github.com/minicass/minicass/types"
)

// udfContext is the body's udfContext field (UDFContext of Cassandra):
// factories for UDTValue and TupleValue of the function's argument and
// return types, and of the keyspace's user types.
type udfContext struct{ fn *Function }

func (c *udfContext) call(name string, args []any, line int) any {
	switch name {
	case "newReturnUDTValue", "newReturnTupleValue":
		return c.newValue(c.fn.ret, name, "return type")
	case "newArgUDTValue", "newArgTupleValue":
		t, ok := c.argType(args)
		if !ok {
			throwJava("IllegalArgumentException", "Function does not declare an argument named '"+javaString(args[0])+"'")
		}
		return c.newValue(t, name, "argument")
	case "newUDTValue":
		n := strArg(args, 0)
		if c.fn.opts.UserType != nil {
			if t, ok := c.fn.opts.UserType(n); ok && t.UDT != nil {
				return newUDT(t)
			}
		}
		throwJava("IllegalArgumentException", "No UDT named "+n+" in keyspace")
	case "newTupleValue":
		t, err := types.ParseTypeWith(strArg(args, 0), c.fn.opts.UserType)
		if err != nil || t.Kind != types.Tuple || t.UDT != nil {
			throwJava("IllegalArgumentException", "Not a tuple type: "+strArg(args, 0))
		}
		return newUDT(t)
	}
	panic(&UnsupportedError{Line: line, Construct: "udfContext." + name})
}

func (c *udfContext) argType(args []any) (types.Type, bool) {
	if len(args) != 1 {
		return types.Type{}, false
	}
	if isNum(args[0]) {
		i := int(toInt64(args[0]))
		if i < 0 || i >= len(c.fn.params) {
			throwJava("IllegalArgumentException", "Function does not declare an argument with index "+itoa(int64(i)))
		}
		return c.fn.params[i].Type, true
	}
	n := strArg(args, 0)
	for _, p := range c.fn.params {
		if p.Name == n {
			return p.Type, true
		}
	}
	return types.Type{}, false
}

func (c *udfContext) newValue(t types.Type, method, what string) *udtValue {
	udt := strings.Contains(method, "UDT")
	if t.Kind != types.Tuple || (t.UDT != nil) != udt {
		kind := "tuple"
		if udt {
			kind = "UDT"
		}
		throwJava("IllegalStateException", "Function "+what+" is not a "+kind)
	}
	return newUDT(t)
}

func newUDT(t types.Type) *udtValue {
	return &udtValue{t: t, fields: make([]any, len(t.Params))}
}

// fieldIndex resolves a field reference (a name, or an index for both
// UDTValue and TupleValue).
func (u *udtValue) fieldIndex(ref any) int {
	if isNum(ref) {
		i := int(toInt64(ref))
		if i < 0 || i >= len(u.fields) {
			throwJava("IndexOutOfBoundsException", "Index: "+itoa(int64(i))+", Size: "+itoa(int64(len(u.fields))))
		}
		return i
	}
	name, ok := ref.(string)
	if !ok || u.t.UDT == nil {
		throwNPE()
	}
	exact := false
	if len(name) >= 2 && name[0] == '"' && name[len(name)-1] == '"' {
		name, exact = strings.ReplaceAll(name[1:len(name)-1], `""`, `"`), true
	}
	for i, f := range u.t.UDT.Fields {
		if f == name || !exact && f == strings.ToLower(name) {
			return i
		}
	}
	throwJava("IllegalArgumentException", javaString(ref)+" is not a field defined in this UDT")
	return 0
}

// getterKinds lists the CQL kinds each typed getter and setter accepts.
var getterKinds = map[string][]types.Kind{
	"Int":       {types.Int},
	"Long":      {types.Bigint, types.Counter, types.Time},
	"Time":      {types.Time},
	"Short":     {types.Smallint},
	"Byte":      {types.Tinyint},
	"Bool":      {types.Boolean},
	"Float":     {types.Float},
	"Double":    {types.Double},
	"String":    {types.Text, types.Ascii},
	"Varint":    {types.Varint},
	"Decimal":   {types.Decimal},
	"UUID":      {types.UUID, types.TimeUUID},
	"Timestamp": {types.Timestamp},
	"Date":      {types.Date},
	"Duration":  {types.Duration},
	"Bytes":     {types.Blob},
	"Inet":      {types.Inet},
	"List":      {types.List},
	"Set":       {types.Set},
	"Map":       {types.Map},
}

func udtMethod(u *udtValue, name string, args []any, line int) any {
	if len(args) == 0 {
		switch name {
		case "getType":
			panic(&UnsupportedError{Line: line, Construct: "UDTValue.getType"})
		}
		panic(&UnsupportedError{Line: line, Construct: "the method " + simpleClass(u) + "." + name})
	}
	i := u.fieldIndex(args[0])
	ft := u.t.Params[i]
	switch {
	case name == "isNull":
		return u.fields[i] == nil
	case name == "getObject" || name == "get" || name == "getBytesUnsafe":
		return u.fields[i]
	case name == "setToNull":
		u.fields[i] = nil
		return u
	case name == "getUDTValue" || name == "getTupleValue":
		if ft.Kind != types.Tuple || (ft.UDT != nil) != (name == "getUDTValue") {
			codecNotFound(ft, name)
		}
		return u.fields[i]
	case name == "setUDTValue" || name == "setTupleValue":
		if ft.Kind != types.Tuple || (ft.UDT != nil) != (name == "setUDTValue") {
			codecNotFound(ft, name)
		}
		u.fields[i] = args[1]
		return u
	case strings.HasPrefix(name, "get"):
		suffix := name[3:]
		kinds, ok := getterKinds[suffix]
		if !ok {
			break
		}
		if !kindIn(ft.Kind, kinds) {
			codecNotFound(ft, name)
		}
		v := u.fields[i]
		if v == nil {
			switch suffix {
			case "Int":
				return int32(0)
			case "Long", "Time":
				return int64(0)
			case "Short":
				return int16(0)
			case "Byte":
				return int8(0)
			case "Bool":
				return false
			case "Float":
				return float32(0)
			case "Double":
				return float64(0)
			case "List":
				return &jlist{}
			case "Set":
				return &jset{}
			case "Map":
				return &jmap{}
			}
		}
		return v
	case strings.HasPrefix(name, "set") && len(args) >= 2:
		suffix := name[3:]
		kinds, ok := getterKinds[suffix]
		if !ok && name != "set" {
			break
		}
		if ok && !kindIn(ft.Kind, kinds) {
			codecNotFound(ft, name)
		}
		u.fields[i] = toJavaField(ft, args[1])
		return u
	}
	panic(&UnsupportedError{Line: line, Construct: "the method " + simpleClass(u) + "." + name})
}

// toJavaField converts a value set into a field to the field's Java form
// (a primitive widened to the field's class).
func toJavaField(t types.Type, v any) any {
	if v == nil {
		return nil
	}
	switch t.Kind {
	case types.Int:
		return convertNum(v, "int")
	case types.Bigint, types.Counter, types.Time:
		return convertNum(v, "long")
	case types.Smallint:
		return convertNum(v, "short")
	case types.Tinyint:
		return convertNum(v, "byte")
	case types.Float:
		return convertNum(v, "float")
	case types.Double:
		return convertNum(v, "double")
	}
	return v
}

func kindIn(k types.Kind, ks []types.Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

func codecNotFound(t types.Type, method string) {
	throwJava("CodecNotFoundException",
		"Codec not found for requested operation: ["+t.String()+" <-> "+method+"]")
}
