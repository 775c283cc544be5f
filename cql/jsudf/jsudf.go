package jsudf

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/dop251/goja"

	"github.com/minicass/minicass/types"
)

// Param is one argument of a function: its CQL name (the script's global
// variable) and its CQL type.
type Param struct {
	Name string
	Type types.Type
}

// Options carry what Compile needs beyond the body.
type Options struct {
	// Function is the function's keyspace-qualified name (ks.f), which
	// the compile error text names.
	Function string
	// Language is the CREATE FUNCTION's language as written (lower case),
	// which the compile error text names.
	Language string
}

// Function is a compiled body. It is safe for concurrent Calls: each call
// runs in a runtime of its own.
type Function struct {
	params []Param
	ret    types.Type
	prog   *goja.Program
	// guarded is set when the body may reach a built-in that guard.go
	// bounds (needsGuard).
	guarded bool
	// java is set when the body may reach the Java globals (needsJava).
	java bool
}

// Errors of a call that are not the body's own.
var (
	// ErrTimeout is returned by Call when its context ends first.
	ErrTimeout = errors.New("jsudf: the function ran out of time")
	// ErrInternal marks a bug of the runtime shim (no panic escapes).
	ErrInternal = errors.New("jsudf: internal error")
)

// CompileError is ScriptBasedUDFunction's refusal of a body that does not
// compile: `Failed to compile function 'ks.f' for language javascript:
// javax.script.ScriptException: ...`, the detail being the engine's.
type CompileError struct {
	Function, Language string
	// Detail is the syntax error as goja words it, with Nashorn's "in
	// <eval> at line number L at column number C" suffix.
	Detail string
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("Failed to compile function '%s' for language %s: javax.script.ScriptException: %s", e.Function, e.Language, e.Detail)
}

// Exception is a Java throwable that a call ends with, as
// FunctionExecutionException prints its cause: Class, then ": " and
// Message. A script's uncaught throw is a java.lang.RuntimeException whose
// message is the ScriptException's; a result the return type's codec
// refuses is an InvalidTypeException.
type Exception struct {
	Class   string
	Message string
}

func (e *Exception) Error() string {
	if e.Message == "" {
		return e.Class
	}
	return e.Class + ": " + e.Message
}

// IsLanguage reports whether language names the one script engine 4.1
// finds (Nashorn, ScriptBasedUDFunction's equalsIgnoreCase("JavaScript")).
func IsLanguage(language string) bool { return strings.EqualFold(language, "javascript") }

// Compile compiles body as ScriptBasedUDFunction does at CREATE FUNCTION.
// A syntax error gives a *CompileError.
func Compile(params []Param, ret types.Type, body string, opts Options) (f *Function, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("%w: %v\n%s", ErrInternal, r, debug.Stack())
		}
	}()
	prog, err := goja.Compile("<eval>", body, false)
	if err != nil {
		return nil, &CompileError{Function: opts.Function, Language: opts.Language, Detail: syntaxDetail(err)}
	}
	return &Function{params: params, ret: ret, prog: prog, guarded: needsGuard(body), java: needsJava(body)}, nil
}

// syntaxDetail words a goja syntax error as a ScriptException message:
// goja's text, then Nashorn's position suffix.
func syntaxDetail(err error) string {
	var se *goja.CompilerSyntaxError
	if errors.As(err, &se) {
		msg := strings.TrimPrefix(se.Message, "SyntaxError: ")
		if se.File != nil {
			p := se.File.Position(se.Offset)
			return fmt.Sprintf("<eval>:%d:%d %s in <eval> at line number %d at column number %d", p.Line, p.Column-1, msg, p.Line, p.Column-1)
		}
		return msg
	}
	return err.Error()
}

// Limits of one call. The heap bound is process-wide (goja has no
// per-runtime accounting): a call is interrupted with an OutOfMemoryError
// when the Go heap grows by more than heapGrowth while it runs.
const (
	maxCallStack = 500
	heapGrowth   = 256 << 20
	heapSample   = 5 * time.Millisecond
)

// regexTimeout bounds one regular expression match. goja matches the
// patterns Go's regexp cannot run (look-around, back references) with
// regexp2, a backtracking engine, in Go code that an interrupt does not
// reach; a match that runs longer gives up (no match), and the call's own
// deadline, as long and started earlier, then ends the call. regexp2's
// default is set here, as nothing else in the module uses it.
const regexTimeout = 1500 * time.Millisecond

func init() { regexp2.DefaultMatchTimeout = regexTimeout }

// interruption is what a watchdog interrupts a runtime with.
type interruption struct{ oom bool }

// Call runs the body once on args, in types.Decode's Go forms (nil for
// null) in parameter order, and returns the script's completion value
// converted to the return type as ScriptBasedUDFunction converts it, in
// types.Encode's Go form (nil for null). A throw the script leaves
// uncaught, and a result the return type refuses, come back as
// *Exception; ctx's end as ErrTimeout.
func (f *Function) Call(ctx context.Context, args []any) (res any, err error) {
	if len(args) != len(f.params) {
		return nil, fmt.Errorf("%w: %d arguments for %d parameters", ErrInternal, len(args), len(f.params))
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTimeout, err)
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("%w: %v\n%s", ErrInternal, r, debug.Stack())
		}
	}()
	vm := goja.New()
	vm.SetMaxCallStackSize(maxCallStack)
	r := &rt{vm: vm, fn: f}
	if f.java {
		r.install()
	}
	if f.guarded {
		r.guard()
	}
	for i, p := range f.params {
		if err := vm.Set(p.Name, r.toJS(p.Type, args[i])); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInternal, err)
		}
	}
	stop := watch(ctx, vm)
	v, err := vm.RunProgram(f.prog)
	stop()
	if err != nil {
		return nil, r.callError(err)
	}
	return r.result(f.ret, v)
}

// watch interrupts vm when ctx ends or the heap grows past its bound; the
// returned func stops watching.
func watch(ctx context.Context, vm *goja.Runtime) func() {
	done := make(chan struct{})
	start := heapBytes()
	go func() {
		t := time.NewTicker(heapSample)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				vm.Interrupt(interruption{})
				return
			case <-t.C:
				if heapBytes() > start+heapGrowth {
					vm.Interrupt(interruption{oom: true})
					return
				}
			}
		}
	}()
	return func() { close(done) }
}

var heapMetric = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

func heapBytes() uint64 {
	s := []metrics.Sample{heapMetric[0]}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// callError turns the failure of RunProgram into Call's error: an uncaught
// throw becomes Nashorn's RuntimeException(ScriptException), an interrupt
// ErrTimeout or an OutOfMemoryError, a stack overflow a StackOverflowError.
func (r *rt) callError(err error) error {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if x, ok := ie.Value().(interruption); ok && x.oom {
			return &Exception{Class: "java.lang.OutOfMemoryError", Message: "Java heap space"}
		}
		return fmt.Errorf("%w: %v", ErrTimeout, ie.Value())
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		return &Exception{Class: "java.lang.StackOverflowError"}
	}
	var jx *Exception
	if errors.As(err, &jx) && jx.Class == "java.lang.OutOfMemoryError" {
		return jx
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		line := 0
		for _, fr := range ex.Stack() {
			if l := fr.Position().Line; l > 0 {
				line = l
				break
			}
		}
		msg := r.thrownText(ex.Value())
		return &Exception{Class: "java.lang.RuntimeException",
			Message: fmt.Sprintf("javax.script.ScriptException: %s in <eval> at line number %d", msg, line)}
	}
	return fmt.Errorf("%w: %v", ErrInternal, err)
}

// thrownText is how a ScriptException words a thrown value: a Java
// throwable as its toString, anything else as JavaScript's String(v).
func (r *rt) thrownText(v goja.Value) string {
	if v == nil {
		return "undefined"
	}
	if o, ok := v.(*goja.Object); ok {
		if j, ok := o.Export().(*jobj); ok {
			return j.String()
		}
	}
	return v.String()
}
