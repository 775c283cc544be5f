package jsudf

import (
	"github.com/dop251/goja"
)

// goja runs its built-in functions in Go, where neither an interrupt nor
// the heap watchdog can stop them: 'x'.repeat(1 << 40) or new
// Array(1 << 30).join() would allocate or loop without bound. The guards
// below refuse such calls up front with java.lang.OutOfMemoryError, before
// the built-in runs: a string result longer than maxGuardedLength UTF-16
// units, or an array method, apply, JSON.stringify or Array.from on an
// array(-like) longer than maxGuardedLength. The list is not exhaustive
// (docs/compatibility.md): it covers the built-ins that turn a length
// alone into work.
const maxGuardedLength = 1 << 22

// arrayMethods are the Array.prototype methods that loop over the whole
// length in Go.
var arrayMethods = []string{"join", "toString", "fill", "map", "forEach", "reduce", "reduceRight", "filter",
	"indexOf", "lastIndexOf", "reverse", "sort", "copyWithin", "every", "some", "includes", "find", "findIndex",
	"findLast", "findLastIndex", "flat", "flatMap", "slice", "splice", "concat", "keys", "values", "entries",
	"toLocaleString", "with", "toReversed", "toSorted", "toSpliced", "at", "unshift"}

// guardWords are the identifiers through which a body may reach a guarded
// built-in, an array to convert implicitly (its toString is join), or code
// built at run time: a body whose source holds none of them, and no '[',
// '`' or '\\' (computed member names, templates, escapes that spell an
// identifier), cannot call a guarded built-in, and runs without the guards,
// whose set-up is most of a small call's cost.
var guardWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range arrayMethods {
		m[w] = true
	}
	for _, w := range []string{"repeat", "padStart", "padEnd", "split", "match", "matchAll", "replace", "replaceAll", "apply", "call",
		"bind", "stringify", "from", "Array", "eval", "Function", "JSON", "Reflect", "Object", "String",
		"constructor", "prototype", "arguments", "this", "globalThis", "__proto__", "getPrototypeOf",
		"Symbol", "Proxy", "Promise", "RegExp", "new"} {
		m[w] = true
	}
	return m
}()

// javaWords are the globals install defines: a body that names none of
// them (and needs no guard, so cannot look a global up by a computed name)
// runs without them.
var javaWords = map[string]bool{"java": true, "javax": true, "com": true, "org": true, "edu": true,
	"javafx": true, "Packages": true, "Java": true, "udfContext": true}

// needsGuard reports whether body may reach a guarded built-in (see
// guardWords). It reads the raw source, string literals and comments
// included, so it errs on the side of guarding.
func needsGuard(body string) bool { return scanWords(body, guardWords) }

// needsJava reports whether body may reach the globals of install.
func needsJava(body string) bool { return needsGuard(body) || scanWords(body, javaWords) }

// scanWords reports whether body holds one of words as an identifier (or
// '[', '`', '\\' or a non-ASCII byte, which may spell one).
func scanWords(body string, words map[string]bool) bool {
	start := -1
	for i := 0; i <= len(body); i++ {
		var c byte
		if i < len(body) {
			c = body[i]
		}
		if c == '[' || c == '`' || c == '\\' || c >= 0x80 {
			return true
		}
		ident := c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		switch {
		case ident && start < 0:
			start = i
		case !ident && start >= 0:
			if words[body[start:i]] {
				return true
			}
			start = -1
		}
	}
	return false
}

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
	// split, match and matchAll make an array of up to the string's
	// length; replace and
	// replaceAll may repeat a replacement once per unit.
	for _, m := range []string{"split", "match", "matchAll"} {
		wrap("String", m, func(c goja.FunctionCall) bool { return len(c.This.String()) > maxGuardedLength })
	}
	for _, m := range []string{"replace", "replaceAll"} {
		wrap("String", m, func(c goja.FunctionCall) bool {
			n := len(c.This.String())
			if s, ok := c.Argument(1).Export().(string); ok {
				return n > maxGuardedLength || (n+1)*len(s) > maxGuardedLength
			}
			return n > maxGuardedLength
		})
	}
	for _, m := range arrayMethods {
		wrap("Array", m, func(c goja.FunctionCall) bool { return length(c.This) > maxGuardedLength })
	}
	// f.apply(this, arrayLike) copies arrayLike's length into an argument
	// list; JSON.stringify and Array.from walk a whole length.
	wrap("Function", "apply", func(c goja.FunctionCall) bool { return length(c.Argument(1)) > maxGuardedLength })
	wrapStatic := func(name, fn string, arg int) {
		o := vm.Get(name).ToObject(vm)
		orig, ok := goja.AssertFunction(o.Get(fn))
		if !ok {
			return
		}
		_ = o.Set(fn, func(c goja.FunctionCall) goja.Value {
			if length(c.Argument(arg)) > maxGuardedLength {
				oom()
			}
			v, err := orig(c.This, c.Arguments...)
			if err != nil {
				panic(err)
			}
			return v
		})
	}
	wrapStatic("JSON", "stringify", 0)
	wrapStatic("Array", "from", 0)
	wrapStatic("Reflect", "apply", 2)
	wrapStatic("Reflect", "construct", 1)
}
