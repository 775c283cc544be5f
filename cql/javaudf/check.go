package javaudf

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// The checking pass: it resolves names (locals to frame slots, dotted names
// to classes and static fields), computes the static type of expressions
// where it can, and reports what Java's compiler reports for the subset
// (unresolved names and types, type mismatches on assignment and return,
// duplicate locals) and what Cassandra's byte-code verifier refuses
// (synchronized, Object.wait/notify/clone/finalize, network look-ups).

type local struct {
	slot int
	jt   *jtype
}

type checker struct {
	scopes   []map[string]*local
	nslots   int
	probs    []Problem
	verifier map[string]bool
	ret      *jtype
	// unsup is the first construct outside the subset met.
	unsup *UnsupportedError
	// catching holds, per enclosing try block being checked, the types
	// its catch clauses catch.
	catching [][]*jtype
	// bcv is the byte-code verifier whose rules the calls are checked
	// against (udfVerifier when nil).
	bcv *byteCodeVerifier
	// cls is the class whose method VerifyClass checks, nil for a UDF
	// body: class names then resolve through the class's imports, and
	// classes the interpreter does not implement are still named (by
	// their internal name) so that calls of them can be verified.
	cls *classScope
}

// invoke records a call of method name of class owner (internal name; ""
// when unknown), as the verifier sees it.
func (c *checker) invoke(owner, name string) {
	if owner == "" {
		return
	}
	v := c.bcv
	if v == nil {
		v = udfVerifier
	}
	v.invocation(owner, name, c.verifier)
}

// unimplementedCtors are the constructors (by argument types; null
// matches a reference type) of classes Cassandra's UDF
// class loader shows and its verifier refuses every call of, which the
// interpreter does not implement: java.net.SocketException's two in JDK 11.
var unimplementedCtors = map[string][][]string{
	"java.net.SocketException": {{}, {"String"}},
}

// unimplementedCtor records, for `new X(args)` of a class in
// unimplementedCtors written by its full name, the constructor call the
// verifier refuses ("call to java.net.SocketException.<init>()"), so that
// CREATE FUNCTION gives 4.1's validation error rather than
// ErrUnsupported. A call that matches no constructor is left to
// ErrUnsupported: Cassandra's compiler would refuse it.
func (c *checker) unimplementedCtor(tr *typeRef, args []*jtype) {
	if tr == nil || tr.dims != 0 || len(tr.args) != 0 {
		return
	}
	for _, sig := range unimplementedCtors[tr.name] {
		if len(sig) != len(args) {
			continue
		}
		ok := true
		for i, a := range args {
			if a == nil || !(a.name == sig[i] && a.dims == 0 || a == tNull || a.name == "null") {
				ok = false
			}
		}
		if ok {
			c.invoke(strings.ReplaceAll(tr.name, ".", "/"), "<init>")
			return
		}
	}
}

// classRef resolves a written class name in a class VerifyClass checks: a
// class the interpreter implements by its simple name, any other by its
// internal name (a jtype the checker does not know). It reports false for
// a name the class cannot resolve.
func (c *checker) classRef(name string) (string, bool) {
	in, ok := c.cls.resolve(name)
	if !ok {
		return "", false
	}
	if simple, known := classNames[name]; known && internalNames[simple] == in {
		return simple, true
	}
	for simple, i := range internalNames {
		if i == in {
			if _, known := classNames[simple]; known {
				return simple, true
			}
		}
	}
	return in, true
}

// resolveRef is typeOfRef for a class VerifyClass checks.
func (c *checker) resolveRef(tr *typeRef) *jtype {
	if primitiveNames[tr.name] {
		return &jtype{name: tr.name, dims: tr.dims}
	}
	if tr.name == "?" {
		if len(tr.args) == 1 {
			return c.resolveRef(tr.args[0])
		}
		return tObject
	}
	n, ok := c.classRef(tr.name)
	if !ok {
		c.errorf(tr.line, "%s cannot be resolved to a type", tr.name)
		return nil
	}
	t := &jtype{name: n, dims: tr.dims}
	for _, a := range tr.args {
		at := c.resolveRef(a)
		if at == nil {
			return nil
		}
		t.args = append(t.args, at)
	}
	return t
}

// isChecked reports whether an exception class is checked (JLS 11.1.1).
func isChecked(name string) bool {
	return isSubclass(name, "Throwable") && !isSubclass(name, "RuntimeException") && !isSubclass(name, "Error")
}

// caught reports whether an enclosing try block catches exception class
// name.
func (c *checker) caught(name string) bool {
	for _, types := range c.catching {
		for _, t := range types {
			if t == nil || isSubclass(name, t.name) {
				return true
			}
		}
	}
	return false
}

func (c *checker) unsupported(line int, format string, args ...any) {
	if c.unsup == nil {
		c.unsup = &UnsupportedError{Line: line, Construct: fmt.Sprintf(format, args...)}
	}
}

func (c *checker) errorf(line int, format string, args ...any) {
	c.probs = append(c.probs, Problem{Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) verify(msg string) { c.verifier[msg] = true }

func (c *checker) push() { c.scopes = append(c.scopes, map[string]*local{}) }
func (c *checker) pop()  { c.scopes = c.scopes[:len(c.scopes)-1] }

func (c *checker) lookup(name string) *local {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		if l, ok := c.scopes[i][name]; ok {
			return l
		}
	}
	return nil
}

// declare gives v a frame slot in the innermost scope; a name declared in
// an enclosing block of the body is a duplicate (parameters and locals
// share the method's scope, udfContext is a field they may shadow).
func (c *checker) declare(line int, v *varDecl, jt *jtype) {
	for _, sc := range c.scopes[1:] {
		if _, dup := sc[v.name]; dup {
			c.errorf(line, "Duplicate local variable %s", v.name)
		}
	}
	v.slot = c.nslots
	v.jt = jt
	c.nslots++
	c.scopes[len(c.scopes)-1][v.name] = &local{slot: v.slot, jt: jt}
}

// verifierErrors returns the verifier's messages sorted, as Cassandra
// prints its set.
func (c *checker) verifierErrors() []string {
	var out []string
	for m := range c.verifier {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

func (c *checker) typeOfRef(tr *typeRef) *jtype {
	if c.cls != nil && tr != nil {
		return c.resolveRef(tr)
	}
	jt, bad := resolveType(tr)
	if bad != "" {
		c.unresolved(tr.line, bad, " to a type")
		return nil
	}
	return jt
}

// unresolved reports a class name the interpreter does not know: a compile
// error when Cassandra's class loader hides it (or it does not exist), else
// a construct outside the subset.
func (c *checker) unresolved(line int, name, suffix string) {
	if classHidden(name) {
		c.errorf(line, "%s cannot be resolved%s", name, suffix)
		return
	}
	c.unsupported(line, "the class %s", name)
}

// stmts checks a block's statements; a statement after one that cannot
// complete normally is unreachable (JLS 14.22).
func (c *checker) stmts(ss []stmt) {
	for i, s := range ss {
		c.stmt(s)
		if i+1 < len(ss) && !stmtCompletes(s) {
			c.errorf(ss[i+1].stmtLine(), "Unreachable code")
			return
		}
	}
}

// stmt checks one statement.
func (c *checker) stmt(s stmt) {
	switch s := s.(type) {
	case *blockStmt:
		c.push()
		c.stmts(s.stmts)
		c.pop()
	case *localVarStmt:
		base := c.typeOfRef(s.typ)
		for _, v := range s.vars {
			jt := base
			if jt != nil && v.dims > 0 {
				cp := *jt
				cp.dims += v.dims
				jt = &cp
			}
			if v.init != nil {
				if al, ok := v.init.(*arrayLit); ok {
					c.arrayLit(al, jt)
				} else {
					c.assignCheck(v.init, jt)
				}
			}
			c.declare(s.line, v, jt)
		}
	case *exprStmt:
		c.expr(s.x)
	case *ifStmt:
		c.cond(s.cond)
		c.scoped(s.then)
		if s.els != nil {
			c.scoped(s.els)
		}
	case *whileStmt:
		c.cond(s.cond)
		c.scoped(s.body)
	case *doStmt:
		c.scoped(s.body)
		c.cond(s.cond)
	case *forStmt:
		c.push()
		c.stmts(s.init)
		if s.cond != nil {
			c.cond(s.cond)
		}
		for _, u := range s.update {
			c.expr(u)
		}
		c.scoped(s.body)
		c.pop()
	case *foreachStmt:
		xt := c.expr(s.x)
		vt := c.typeOfRef(s.typ)
		var elem *jtype
		if xt != nil {
			switch {
			case xt.dims > 0:
				cp := *xt
				cp.dims--
				elem = &cp
			case isSubclass(xt.name, "Iterable"):
				if len(xt.args) == 1 {
					elem = xt.args[0]
				} else {
					elem = tObject
				}
			case xt.isPrim() || knownClass(xt.name):
				c.errorf(s.line, "Can only iterate over an array or an instance of java.lang.Iterable")
			}
		}
		if elem != nil && vt != nil && !assignable(elem, vt) {
			c.errorf(s.line, "Type mismatch: cannot convert from element type %s to %s", elem, vt)
		}
		c.push()
		c.declare(s.line, s.v, vt)
		c.scoped(s.body)
		c.pop()
	case *returnStmt:
		if s.x == nil {
			if c.ret != nil && c.ret != tVoid {
				c.errorf(s.line, "This method must return a result of type %s", c.ret)
			}
			return
		}
		c.assignCheck(s.x, c.ret)
	case *throwStmt:
		t := c.expr(s.x)
		if t != nil && !t.isPrim() && t.name != "null" && knownClass(t.name) && !isSubclass(t.name, "Throwable") {
			c.errorf(s.line, "No exception of type %s can be thrown; an exception type must be a subclass of Throwable", t)
		}
		// The generated method declares no exceptions: a checked one
		// created here must be caught. (A rethrown variable may be
		// precise-rethrow legal, so only new X(...) is checked.)
		if _, isNew := s.x.(*newExpr); isNew && t != nil && isChecked(t.name) && !c.caught(t.name) {
			c.errorf(s.line, "Unhandled exception type %s", t.name)
		}
	case *breakStmt, *continueStmt, *emptyStmt:
	case *labeledStmt:
		c.stmt(s.body)
	case *tryStmt:
		var caught []*jtype
		for _, cc := range s.catches {
			cc.jts = nil
			for _, tr := range cc.types {
				jt := c.typeOfRef(tr)
				cc.jts = append(cc.jts, jt)
				caught = append(caught, jt)
			}
		}
		c.catching = append(c.catching, caught)
		c.stmt(s.body)
		c.catching = c.catching[:len(c.catching)-1]
		for _, cc := range s.catches {
			c.push()
			var vt *jtype
			if len(cc.jts) == 1 {
				vt = cc.jts[0]
			} else {
				vt = &jtype{name: "Exception"}
			}
			c.declare(cc.body.line, cc.v, vt)
			c.stmt(cc.body)
			c.pop()
		}
		if s.finally != nil {
			c.stmt(s.finally)
		}
	case *switchStmt:
		c.expr(s.x)
		c.push()
		for _, sc := range s.cases {
			for _, l := range sc.labels {
				c.expr(l)
			}
			c.stmts(sc.body)
		}
		c.pop()
	case *syncStmt:
		// MONITORENTER and MONITOREXIT.
		c.verify("use of synchronized")
		c.expr(s.x)
		c.stmt(s.body)
	}
}

// scoped checks a statement in a scope of its own (a declaration as the
// body of an if or loop stays local to it).
func (c *checker) scoped(s stmt) {
	c.push()
	c.stmt(s)
	c.pop()
}

func (c *checker) cond(x expr) {
	t := c.expr(x)
	if t != nil && !(t.name == "boolean" || t.name == "Boolean") || t != nil && t.dims > 0 {
		c.errorf(x.exprLine(), "Type mismatch: cannot convert from %s to boolean", t)
	}
}

// assignCheck checks that x may be assigned to a variable of type to.
func (c *checker) assignCheck(x expr, to *jtype) {
	from := c.expr(x)
	if from == nil || to == nil || assignable(from, to) {
		return
	}
	if constNarrowing(x, from, to) {
		return
	}
	c.errorf(x.exprLine(), "Type mismatch: cannot convert from %s to %s", from, to)
}

// constNarrowing reports whether x is an int constant that fits the byte,
// short or char (or Byte, Short, Character) type to (JLS 5.2).
func constNarrowing(x expr, from, to *jtype) bool {
	if from.name != "int" && from.name != "char" && from.name != "short" && from.name != "byte" {
		return false
	}
	v, ok := constInt(x)
	if !ok {
		return false
	}
	target := to.name
	if p, ok := unboxes[target]; ok {
		target = p
	}
	switch target {
	case "byte":
		return v >= math.MinInt8 && v <= math.MaxInt8
	case "short":
		return v >= math.MinInt16 && v <= math.MaxInt16
	case "char":
		return v >= 0 && v <= math.MaxUint16
	}
	return false
}

func constInt(x expr) (int64, bool) {
	switch e := x.(type) {
	case *litExpr:
		switch v := e.val.(type) {
		case int32:
			return int64(v), true
		case jchar:
			return int64(v), true
		}
	case *unaryExpr:
		if v, ok := constInt(e.x); ok && e.op == "-" {
			return -v, true
		}
	case *castExpr:
		if e.jt != nil && e.jt.isPrim() {
			return constInt(e.x)
		}
	}
	return 0, false
}

func (c *checker) arrayLit(a *arrayLit, jt *jtype) {
	a.jt = jt
	var elem *jtype
	if jt != nil {
		if jt.dims == 0 {
			c.errorf(a.line, "Type mismatch: cannot convert from %s[] to %s", jt, jt)
			return
		}
		cp := *jt
		cp.dims--
		elem = &cp
	}
	for _, e := range a.elems {
		if sub, ok := e.(*arrayLit); ok {
			c.arrayLit(sub, elem)
			continue
		}
		c.assignCheck(e, elem)
	}
}

// dotted returns the dotted name an expression of names spells (a.b.c), or
// "" when it is not one or starts with a local variable.
func (c *checker) dotted(x expr) string {
	switch e := x.(type) {
	case *nameExpr:
		if c.lookup(e.name) != nil || e.name == "this" || e.name == "super" {
			return ""
		}
		return e.name
	case *fieldExpr:
		if d := c.dotted(e.x); d != "" {
			return d + "." + e.name
		}
	}
	return ""
}

// staticFieldRef reports whether x is a static field of a known class
// (Boolean.TRUE), whose methods a call may use.
func (c *checker) staticFieldRef(x expr) bool {
	fe, ok := x.(*fieldExpr)
	if !ok {
		return false
	}
	d := c.dotted(fe.x)
	if d == "" {
		return false
	}
	_, known := classOf(d)
	return known
}

// classOf resolves a dotted name to a class the body may use.
func classOf(d string) (string, bool) {
	n, ok := classNames[d]
	return n, ok
}

// expr checks an expression and returns its static type (nil if unknown).
func (c *checker) expr(x expr) *jtype {
	switch e := x.(type) {
	case *litExpr:
		return litType(e.val)
	case *nameExpr:
		if e.name == "this" || e.name == "super" {
			return &jtype{name: "this"}
		}
		l := c.lookup(e.name)
		if l == nil {
			if _, isClass := classOf(e.name); isClass {
				c.errorf(e.line, "%s cannot be resolved to a variable", e.name)
			} else {
				c.errorf(e.line, "%s cannot be resolved to a variable", e.name)
			}
			return nil
		}
		e.slot, e.jt = l.slot, l.jt
		return l.jt
	case *fieldExpr:
		if d := c.dotted(e.x); d != "" {
			cls, ok := classOf(d)
			if !ok {
				c.unresolved(e.line, d, "")
				return nil
			}
			v, jt, ok := staticField(cls, e.name)
			if !ok {
				c.unsupported(e.line, "the static field %s.%s", cls, e.name)
				return nil
			}
			e.static, e.hasStatic = v, true
			return jt
		}
		t := c.expr(e.x)
		if t != nil && t.dims > 0 && e.name == "length" {
			return tInt32
		}
		if t != nil && knownClass(t.name) {
			c.errorf(e.line, "%s cannot be resolved or is not a field", e.name)
		}
		return nil
	case *callExpr:
		return c.call(e)
	case *newExpr:
		jt := c.typeOfRef(e.typ)
		var ats []*jtype
		for _, a := range e.args {
			ats = append(ats, c.expr(a))
		}
		if jt == nil {
			if c.cls == nil && e.anon == nil {
				c.unimplementedCtor(e.typ, ats)
			}
			return nil
		}
		if e.anon != nil {
			// The compiler names anonymous classes Outer$1, Outer$2, ...
			// in the order they appear.
			c.cls.anon++
			owner := fmt.Sprintf("%s$%d", c.cls.self, c.cls.anon)
			c.invoke(owner, "<init>")
			return &jtype{name: owner}
		}
		if !jt.isPrim() && jt.dims == 0 {
			c.invoke(ownerOf(jt.name), "<init>")
		}
		if strings.Contains(jt.name, "/") {
			return jt
		}
		if jt.isPrim() {
			return jt
		}
		switch jt.name {
		case "List", "Set", "Map", "Collection", "Iterable", "Number", "CharSequence", "Comparable", "SortedMap",
			"SortedSet", "NavigableMap", "NavigableSet", "UDTValue", "TupleValue", "TypeCodec", "Iterator", "Map.Entry",
			"Math", "System", "Collections", "Arrays", "Objects", "ByteBuffer", "AbstractList":
			c.errorf(e.line, "Cannot instantiate the type %s", jt.name)
			return nil
		}
		if len(jt.args) == 0 && len(e.typ.args) == 0 {
			// A raw type stays raw.
		}
		return jt
	case *newArrayExpr:
		jt := c.typeOfRef(e.elem)
		for _, d := range e.dims {
			if t := c.expr(d); t != nil && !assignable(t, tInt32) {
				c.errorf(d.exprLine(), "Type mismatch: cannot convert from %s to int", t)
			}
		}
		if jt == nil {
			return nil
		}
		at := &jtype{name: jt.name, args: jt.args, dims: len(e.dims) + e.more}
		if e.init != nil {
			c.arrayLit(e.init, at)
		}
		return at
	case *arrayLit:
		c.errorf(e.line, "Array constants can only be used in initializers")
		return nil
	case *indexExpr:
		t := c.expr(e.x)
		it := c.expr(e.idx)
		if it != nil && !assignable(it, tInt32) {
			c.errorf(e.line, "Type mismatch: cannot convert from %s to int", it)
		}
		if t == nil {
			return nil
		}
		if t.dims == 0 {
			c.errorf(e.line, "The type of the expression must be an array type but it resolved to %s", t)
			return nil
		}
		cp := *t
		cp.dims--
		return &cp
	case *unaryExpr:
		t := c.expr(e.x)
		if t == nil {
			return nil
		}
		switch e.op {
		case "!":
			if u := unboxed(t); u == nil || u.name != "boolean" {
				c.errorf(e.line, "The operator ! is undefined for the argument type(s) %s", t)
				return nil
			}
			return tBool
		case "~":
			u := unboxed(t)
			if u == nil || numRank[u.name] == 0 || u.name == "float" || u.name == "double" {
				c.errorf(e.line, "The operator ~ is undefined for the argument type(s) %s", t)
				return nil
			}
			return promote(u, tInt32)
		}
		if !isNumericType(t) {
			c.errorf(e.line, "The operator %s is undefined for the argument type(s) %s", e.op, t)
			return nil
		}
		return promote(t, tInt32)
	case *incDecExpr:
		t := c.lvalue(e.x)
		e.jt = t
		if t != nil && !isNumericType(t) {
			c.errorf(e.line, "The operator %s is undefined for the argument type(s) %s", e.op, t)
		}
		return t
	case *binaryExpr:
		return c.binary(e)
	case *assignExpr:
		lt := c.lvalue(e.l)
		e.lt = lt
		if e.op == "=" {
			if al, ok := e.r.(*arrayLit); ok {
				c.arrayLit(al, lt)
				return lt
			}
			c.assignCheck(e.r, lt)
			return lt
		}
		rt := c.expr(e.r)
		if e.op == "+=" && lt != nil && lt.name == "String" && lt.dims == 0 {
			e.strcat = true
			return lt
		}
		if lt != nil && rt != nil {
			op := strings.TrimSuffix(e.op, "=")
			if _, bad := binaryType(op, lt, rt); bad {
				c.errorf(e.line, "The operator %s is undefined for the argument type(s) %s, %s", e.op, lt, rt)
			}
		}
		return lt
	case *condExpr:
		c.cond(e.c)
		a, b := c.expr(e.a), c.expr(e.b)
		if a == nil || b == nil {
			return nil
		}
		if isNumericType(a) && isNumericType(b) && (a.isPrim() || b.isPrim() || a.name != b.name) {
			p := promote(a, b)
			if ua, ub := unboxed(a), unboxed(b); ua.name == ub.name {
				p = ua
			}
			e.promote = p
			return p
		}
		if a.name == "null" {
			return boxedType(b)
		}
		if b.name == "null" {
			return boxedType(a)
		}
		if assignable(a, b) {
			return b
		}
		if assignable(b, a) {
			return a
		}
		return tObject
	case *castExpr:
		t := c.expr(e.x)
		jt := c.typeOfRef(e.typ)
		e.jt = jt
		if t != nil && jt != nil {
			if !castable(t, jt) {
				c.errorf(e.line, "Cannot cast from %s to %s", t, jt)
			}
		}
		return jt
	case *instanceofExpr:
		t := c.expr(e.x)
		jt := c.typeOfRef(e.typ)
		e.jt = jt
		if t != nil && t.isPrim() {
			c.errorf(e.line, "Incompatible conditional operand types %s and %s", t, jt)
		}
		return tBool
	case *classLitExpr:
		c.typeOfRef(e.typ)
		return &jtype{name: "Class"}
	}
	return nil
}

func boxedType(t *jtype) *jtype {
	if t.isPrim() {
		return &jtype{name: boxes[t.name]}
	}
	return t
}

// castable reports whether a cast from a to b compiles (JLS 5.5, roughly).
func castable(a, b *jtype) bool {
	if a.name == "null" {
		return !b.isPrim()
	}
	if a.isPrim() && b.isPrim() {
		return (a.name == "boolean") == (b.name == "boolean")
	}
	if b.isPrim() {
		u := unboxed(a)
		if u == nil {
			return a.name == "Object" || a.name == "Number" || a.name == "Comparable" || !knownClass(a.name)
		}
		return u.name == b.name || assignable(u, b)
	}
	if a.isPrim() {
		return boxes[a.name] == b.name || b.name == "Object" || isSubclass(boxes[a.name], b.name)
	}
	if !knownClass(a.name) || !knownClass(b.name) || a.dims != b.dims {
		return true
	}
	if isSubclass(a.name, b.name) || isSubclass(b.name, a.name) {
		return true
	}
	// Interfaces cast freely to non-final classes.
	switch {
	case isInterface(a.name) && !isFinalClass(b.name), isInterface(b.name) && !isFinalClass(a.name):
		return true
	}
	return false
}

func isInterface(n string) bool {
	switch n {
	case "List", "Set", "Map", "Collection", "Iterable", "CharSequence", "Comparable", "SortedMap", "SortedSet",
		"NavigableMap", "NavigableSet", "Iterator", "Map.Entry":
		return true
	}
	return false
}

func isFinalClass(n string) bool {
	switch n {
	case "String", "Integer", "Long", "Short", "Byte", "Double", "Float", "Boolean", "Character", "Math",
		"StringBuilder", "UUID", "UDTValue", "TupleValue":
		return true
	}
	return false
}

func litType(v any) *jtype {
	switch v.(type) {
	case int32:
		return tInt32
	case int64:
		return tInt64
	case float32:
		return tFloat32
	case float64:
		return tFloat64
	case bool:
		return tBool
	case jchar:
		return tChar16
	case string:
		return tStr
	}
	return tNull
}

// lvalue checks an assignment target and returns its type.
func (c *checker) lvalue(x expr) *jtype {
	switch e := x.(type) {
	case *nameExpr, *indexExpr:
		return c.expr(x)
	case *fieldExpr:
		t := c.expr(x)
		if e.hasStatic {
			c.errorf(e.line, "The final field %s cannot be assigned", e.name)
		}
		return t
	}
	c.errorf(x.exprLine(), "The left-hand side of an assignment must be a variable")
	return nil
}

// binary checks a binary expression and annotates it for the evaluator
// (string concatenation, numeric promotion, unboxing comparison).
func (c *checker) binary(e *binaryExpr) *jtype {
	lt, rt := c.expr(e.l), c.expr(e.r)
	if e.op == "+" && (isString(lt) || isString(rt)) {
		e.strcat = true
		if (lt != nil && lt.name == "void") || (rt != nil && rt.name == "void") {
			c.errorf(e.line, "The operator + is undefined for the argument type(s) %s, %s", lt, rt)
		}
		return tStr
	}
	if lt == nil || rt == nil {
		if e.op == "==" || e.op == "!=" || e.op == "<" || e.op == ">" || e.op == "<=" || e.op == ">=" ||
			e.op == "&&" || e.op == "||" {
			return tBool
		}
		if lt != nil && isNumericType(lt) && (e.op == "<<" || e.op == ">>" || e.op == ">>>") {
			return promote(lt, tInt32)
		}
		return nil
	}
	t, bad := binaryType(e.op, lt, rt)
	if bad {
		c.errorf(e.line, "The operator %s is undefined for the argument type(s) %s, %s", e.op, lt, rt)
		return nil
	}
	if isNumericType(lt) && isNumericType(rt) {
		e.num = promote(lt, rt)
	}
	if (e.op == "==" || e.op == "!=") && (lt.isPrim() || rt.isPrim()) && unboxed(lt) != nil && unboxed(rt) != nil {
		e.unbox = true
	}
	return t
}

func isString(t *jtype) bool { return t != nil && t.name == "String" && t.dims == 0 }

// binaryType returns the result type of a binary operator, and whether the
// operand types are refused.
func binaryType(op string, lt, rt *jtype) (*jtype, bool) {
	switch op {
	case "+", "-", "*", "/", "%":
		if !isNumericType(lt) || !isNumericType(rt) {
			return nil, true
		}
		return promote(lt, rt), false
	case "<", ">", "<=", ">=":
		if !isNumericType(lt) || !isNumericType(rt) {
			return nil, true
		}
		return tBool, false
	case "==", "!=":
		if isNumericType(lt) && isNumericType(rt) && (lt.isPrim() || rt.isPrim()) {
			return tBool, false
		}
		lb, rb := unboxed(lt), unboxed(rt)
		if lb != nil && rb != nil && lb.name == "boolean" && rb.name == "boolean" {
			return tBool, false
		}
		if lt.isPrim() || rt.isPrim() {
			if lt.name == "null" || rt.name == "null" {
				return nil, true
			}
			return nil, !(lt.isPrim() && unboxed(rt) != nil || rt.isPrim() && unboxed(lt) != nil)
		}
		return tBool, false
	case "&&", "||":
		lb, rb := unboxed(lt), unboxed(rt)
		if lb == nil || rb == nil || lb.name != "boolean" || rb.name != "boolean" {
			return nil, true
		}
		return tBool, false
	case "&", "|", "^":
		lb, rb := unboxed(lt), unboxed(rt)
		if lb == nil || rb == nil {
			return nil, true
		}
		if lb.name == "boolean" && rb.name == "boolean" {
			return tBool, false
		}
		if isIntegral(lb) && isIntegral(rb) {
			return promote(lb, rb), false
		}
		return nil, true
	case "<<", ">>", ">>>":
		lb, rb := unboxed(lt), unboxed(rt)
		if lb == nil || rb == nil || !isIntegral(lb) || !isIntegral(rb) {
			return nil, true
		}
		return promote(lb, tInt32), false
	}
	return nil, false
}

func isIntegral(t *jtype) bool {
	switch t.name {
	case "int", "long", "short", "byte", "char":
		return true
	}
	return false
}

// call checks a method call and returns its result type.
func (c *checker) call(e *callExpr) *jtype {
	var ats []*jtype
	argTypes := func() {
		for _, a := range e.args {
			ats = append(ats, c.expr(a))
		}
	}
	if e.recv == nil {
		argTypes()
		switch e.name {
		case "clone", "finalize", "notify", "notifyAll", "wait", "getClass", "hashCode", "toString", "equals":
			// Object's methods, which the compiler names with Object as
			// their owner (JLS 13.1).
			c.invoke(objectInternal, e.name)
		}
		switch e.name {
		case "clone", "finalize", "notify", "notifyAll", "wait":
			return nil
		case "getClass":
			return &jtype{name: "Class"}
		case "hashCode":
			return tInt32
		case "toString":
			return tStr
		case "equals":
			return tBool
		}
		if c.cls != nil {
			c.unsupported(e.line, "calls of the class's own methods")
			return nil
		}
		c.errorf(e.line, "The method %s(%s) is undefined for the type %s", e.name, typeList(ats), "JavaUDF")
		return nil
	}
	if d := c.dotted(e.recv); d != "" && !c.staticFieldRef(e.recv) {
		argTypes()
		if c.cls != nil {
			n, ok := c.classRef(d)
			if !ok {
				c.errorf(e.line, "%s cannot be resolved", d)
				return nil
			}
			if strings.Contains(n, "/") {
				// A class the interpreter does not implement: the call is
				// only verified.
				c.invoke(n, e.name)
				return nil
			}
			d = n
		}
		if (d == "Class" || d == "java.lang.Class") && e.name == "forName" {
			// java.lang.Class always resolves; JavaBasedUDFunction's
			// verifier refuses the call (addDisallowedMethodCall). It
			// throws the checked ClassNotFoundException, which only a
			// catch of Exception or Throwable handles among the classes
			// the interpreter knows.
			if !c.caught("Exception") {
				c.errorf(e.line, "Unhandled exception type ClassNotFoundException")
			}
			c.invoke("java/lang/Class", "forName")
			return &jtype{name: "Class"}
		}
		cls, ok := classOf(d)
		if !ok {
			c.unresolved(e.line, d, "")
			return nil
		}
		e.class = cls
		// The compiler names the class the call is written on as the
		// owner (Inet4Address.getByName, declared by InetAddress).
		c.invoke(ownerOf(cls), e.name)
		if r, ok := staticArityOf(cls, e.name); ok && !r.accepts(len(ats)) {
			// Java may have an overload the interpreter lacks.
			c.unsupported(e.line, "%s.%s with %d arguments", cls, e.name, len(ats))
			return nil
		}
		t, ok := staticMethodType(cls, e.name, ats)
		if !ok {
			c.unsupported(e.line, "the static method %s.%s", cls, e.name)
			return nil
		}
		return t
	}
	rt := c.expr(e.recv)
	argTypes()
	if rt == nil {
		return nil
	}
	if rt.isPrim() {
		c.errorf(e.line, "Cannot invoke %s(%s) on the primitive type %s", e.name, typeList(ats), rt)
		return nil
	}
	switch {
	case e.name == "wait" || e.name == "notify" || e.name == "notifyAll" || e.name == "getClass":
		// Final methods of Object.
		c.invoke(objectInternal, e.name)
	case rt.name == "this":
		switch e.name {
		case "clone", "finalize", "hashCode", "toString", "equals":
			c.invoke(objectInternal, e.name)
		}
	case rt.dims == 0:
		c.invoke(ownerOf(rt.name), e.name)
	}
	if rt.name == "this" {
		return nil
	}
	if strings.Contains(rt.name, "/") {
		// An object of a class the interpreter does not implement.
		return nil
	}
	if r, ok := instanceArityOf(groupOf(rt.name), e.name); ok && !r.accepts(len(ats)) {
		// Java may have an overload the interpreter lacks.
		c.unsupported(e.line, "%s.%s with %d arguments", rt.name, e.name, len(ats))
		return nil
	}
	if e.name == "remove" && len(ats) == 1 && groupOf(rt.name) == "List" {
		e.byObject = ats[0] == nil || !ats[0].isPrim()
	}
	t, ok := methodType(rt, e.name, ats)
	if !ok {
		c.unsupported(e.line, "the method %s.%s", rt.name, e.name)
		return nil
	}
	return t
}

func typeList(ts []*jtype) string {
	var parts []string
	for _, t := range ts {
		parts = append(parts, t.String())
	}
	return strings.Join(parts, ", ")
}
