package jsudf

import (
	"github.com/dop251/goja"
)

// goja runs its built-in functions in Go, where neither an interrupt nor
// the heap watchdog can stop them: 'x'.repeat(1 << 40) or new
// Array(1 << 30).join() would allocate or loop without bound. The guards
// below refuse such calls up front with java.lang.OutOfMemoryError, before
// the built-in runs: a string result longer than maxGuardedLength UTF-16
// units, or an array method on an array longer than maxGuardedLength.
const maxGuardedLength = 1 << 22

// arrayMethods are the Array.prototype methods that loop over the whole
// length in Go.
var arrayMethods = []string{"join", "toString", "fill", "map", "forEach", "reduce", "reduceRight", "filter",
	"indexOf", "lastIndexOf", "reverse", "sort", "copyWithin", "every", "some", "includes", "find", "findIndex",
	"findLast", "findLastIndex", "flat", "flatMap", "slice", "splice", "concat", "keys", "values", "entries",
	"toLocaleString", "with", "toReversed", "toSorted", "toSpliced", "at", "unshift"}

// guard installs the guards in r's runtime.
func (r *rt) guard() {
	vm := r.vm
	oom := func() {
		panic(vm.NewGoError(&Exception{Class: "java.lang.OutOfMemoryError", Message: "Java heap space"}))
	}
	wrap := func(ctor, name string, over func(c goja.FunctionCall) bool) {
		proto := vm.Get(ctor).ToObject(vm).Get("prototype").ToObject(vm)
		orig, ok := goja.AssertFunction(proto.Get(name))
		if !ok {
			return
		}
		_ = proto.Set(name, func(c goja.FunctionCall) goja.Value {
			if over(c) {
				oom()
			}
			v, err := orig(c.This, c.Arguments...)
			if err != nil {
				panic(err)
			}
			return v
		})
	}
	length := func(v goja.Value) int64 {
		if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
			return 0
		}
		o := v.ToObject(vm)
		return o.Get("length").ToInteger()
	}
	wrap("String", "repeat", func(c goja.FunctionCall) bool {
		n := c.Argument(0).ToFloat()
		return float64(len(c.This.String()))*n > maxGuardedLength
	})
	for _, m := range []string{"padStart", "padEnd"} {
		wrap("String", m, func(c goja.FunctionCall) bool { return c.Argument(0).ToFloat() > maxGuardedLength })
	}
	for _, m := range arrayMethods {
		wrap("Array", m, func(c goja.FunctionCall) bool { return length(c.This) > maxGuardedLength })
	}
}
