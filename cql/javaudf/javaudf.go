package javaudf

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/minicass/minicass/types"
)

// Param is one argument of a function: its CQL name (as written in CREATE
// FUNCTION) and its CQL type.
type Param struct {
	Name string
	Type types.Type
}

// Options carry what a body may reach beyond its arguments, and how
// Cassandra declares the generated method. The zero value declares the
// arguments with primitive Java types, as for RETURNS NULL ON NULL INPUT.
type Options struct {
	// UserType resolves a user type by name in the function's keyspace,
	// for udfContext.newUDTValue("name"). Nil resolves none.
	UserType func(name string) (types.Type, bool)
	// CalledOnNullInput is set for a CALLED ON NULL INPUT function. Its
	// arguments are declared with the boxed Java types (Integer, Double);
	// a RETURNS NULL ON NULL INPUT function (false) gets the primitive
	// types (int, double) instead, as UDHelper.javaTypes gives, so that,
	// for example, `return a / b;` with int a, b divides integers either
	// way but a null can only reach a CALLED ON NULL INPUT body.
	CalledOnNullInput bool
}

// Function is a compiled body. It is safe for concurrent Calls.
type Function struct {
	params  []Param
	ret     types.Type
	retJava *jtype
	body    []stmt
	nslots  int
	opts    Options
	// ctxSlot holds udfContext.
	ctxSlot int
}

// Compile parses and checks body as Cassandra compiles a Java UDF whose
// method is `<java type of ret> executeImpl(<java types of params>)`. It
// refuses what Cassandra refuses at CREATE FUNCTION: compile errors as a
// *CompileError ("Java source compilation failed:\n..."), the byte-code
// verifier's refusals as a *ValidationError ("Java UDF validation failed:
// [...]"), and constructs outside the supported subset as an
// *UnsupportedError (errors.Is ErrUnsupported) naming the construct.
func Compile(params []Param, ret types.Type, body string, opts Options) (f *Function, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("%w: %v\n%s", ErrInternal, r, debug.Stack())
		}
	}()
	// Cassandra 4.0 moved the driver's value classes into its own
	// package and rewrites the old names in bodies (JavaBasedUDFunction).
	body = strings.ReplaceAll(body, "com.datastax.driver.core.", "org.apache.cassandra.cql3.functions.types.")
	stmts, members, err := parseBody(body)
	if err != nil {
		return nil, err
	}
	c := &checker{verifier: map[string]bool{}, ret: javaTypeOf(ret, !opts.CalledOnNullInput)}
	for _, m := range members {
		c.verify(m)
	}
	c.push()
	ctxVar := &varDecl{name: "udfContext", slot: -1}
	c.declare(0, ctxVar, &jtype{name: "UDFContext"})
	c.push()
	for _, p := range params {
		v := &varDecl{name: p.Name, slot: -1}
		c.declare(0, v, javaTypeOf(p.Type, !opts.CalledOnNullInput))
	}
	c.push()
	c.stmts(stmts)
	if len(c.probs) == 0 && completes(stmts) {
		c.errorf(0, "This method must return a result of type %s", c.ret)
	}
	if len(c.probs) > 0 {
		return nil, &CompileError{Problems: c.probs}
	}
	if len(c.verifier) > 0 {
		return nil, &ValidationError{Errors: c.verifierErrors()}
	}
	if c.unsup != nil {
		return nil, c.unsup
	}
	return &Function{params: params, ret: ret, retJava: c.ret, body: stmts, nslots: c.nslots, opts: opts,
		ctxSlot: ctxVar.slot}, nil
}

// Call runs the body once. args are in types.Decode's Go forms (nil for
// null) in parameter order; the result is in the Go form types.Encode takes
// for the return type (nil for null). A Java exception the body throws
// comes back as *Exception; ctx's deadline is checked as the body runs
// (loops included) and gives ErrTimeout. Callers of a RETURNS NULL ON
// NULL INPUT function return null without calling it when an argument is
// null (or empty for a type whose empty value is meaningless,
// UDFunction.isCallableWrtNullable); should such a call happen anyway, a
// null primitive argument reads as 0 (false).
func (f *Function) Call(ctx context.Context, args []any) (res any, err error) {
	if len(args) != len(f.params) {
		return nil, fmt.Errorf("%w: %d arguments for %d parameters", ErrInternal, len(args), len(f.params))
	}
	fr := &frame{fn: f, slots: make([]any, f.nslots), ctx: ctx}
	defer func() {
		if r := recover(); r != nil {
			res = nil
			switch x := r.(type) {
			case *javaThrow:
				err = &Exception{Class: x.exc.qualify, Message: x.exc.msg, HasMessage: x.exc.hasMsg}
			case timeoutSignal:
				err = fmt.Errorf("%w: %v", ErrTimeout, x.err)
			case *UnsupportedError:
				err = x
			default:
				err = fmt.Errorf("%w: %v\n%s", ErrInternal, r, debug.Stack())
			}
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTimeout, err)
	}
	fr.slots[f.ctxSlot] = &udfContext{fn: f}
	for i, p := range f.params {
		jt := javaTypeOf(p.Type, !f.opts.CalledOnNullInput)
		v := toJava(p.Type, args[i])
		if v == nil && jt.isPrim() {
			v = zeroOf(jt)
		}
		fr.slots[i+1] = v
	}
	c := fr.execAll(f.body)
	if c.kind != ctlReturn {
		return nil, fmt.Errorf("%w: body ended without return", ErrInternal)
	}
	return fromJava(f.ret, c.val)
}

// IsJavaException reports whether err is a Java exception thrown by a body.
func IsJavaException(err error) bool {
	var e *Exception
	return errors.As(err, &e)
}

// completes reports whether a statement list can complete normally (JLS
// 14.22, for the forms the subset has), so that a method body falling off
// its end is refused.
func completes(ss []stmt) bool {
	for _, s := range ss {
		if !stmtCompletes(s) {
			return false
		}
	}
	return true
}

func stmtCompletes(s stmt) bool {
	switch s := s.(type) {
	case *returnStmt, *throwStmt, *breakStmt, *continueStmt:
		return false
	case *blockStmt:
		return completes(s.stmts)
	case *ifStmt:
		if s.els == nil {
			return true
		}
		return stmtCompletes(s.then) || stmtCompletes(s.els)
	case *whileStmt:
		return !isTrue(s.cond) || hasBreak(s.body)
	case *doStmt:
		return (stmtCompletes(s.body) && !isTrue(s.cond)) || hasBreak(s.body)
	case *forStmt:
		return s.cond != nil && !isTrue(s.cond) || hasBreak(s.body)
	case *labeledStmt:
		return stmtCompletes(s.body) || hasBreak(s.body)
	case *tryStmt:
		if s.finally != nil && !completes(s.finally.stmts) {
			return false
		}
		if completes(s.body.stmts) {
			return true
		}
		for _, c := range s.catches {
			if completes(c.body.stmts) {
				return true
			}
		}
		return false
	case *syncStmt:
		return completes(s.body.stmts)
	case *switchStmt:
		hasDefault := false
		for _, c := range s.cases {
			if c.isDef {
				hasDefault = true
			}
		}
		if !hasDefault || len(s.cases) == 0 {
			return true
		}
		for _, c := range s.cases {
			for _, b := range c.body {
				if hasBreak(b) {
					return true
				}
			}
		}
		return completes(s.cases[len(s.cases)-1].body)
	}
	return true
}

func isTrue(x expr) bool {
	l, ok := x.(*litExpr)
	return ok && l.val == true
}

// hasBreak reports whether s contains a break that leaves it (roughly: any
// unlabelled break not inside a nested loop or switch, or a labelled one).
func hasBreak(s stmt) bool {
	switch s := s.(type) {
	case *breakStmt:
		return true
	case *blockStmt:
		for _, x := range s.stmts {
			if hasBreak(x) {
				return true
			}
		}
	case *ifStmt:
		return hasBreak(s.then) || s.els != nil && hasBreak(s.els)
	case *labeledStmt:
		return hasBreak(s.body)
	case *tryStmt:
		if hasBreak(s.body) {
			return true
		}
		for _, c := range s.catches {
			if hasBreak(c.body) {
				return true
			}
		}
		return s.finally != nil && hasBreak(s.finally)
	case *syncStmt:
		return hasBreak(s.body)
	}
	return false
}
