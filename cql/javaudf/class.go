package javaudf

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Class members: those a body declares after closing the generated method
// early (UFVerifierTest's testInvalidByteCodeUDFs does, to reach the
// verifier), and those of a whole class VerifyClass reads.

type member interface{ memberLine() int }

func (p pos) memberLine() int { return p.line }

// modifiers are a member's or class's modifier keywords.
type modifiers map[string]bool

// accessFlags are the JVM access flags the modifiers give (JVMS 4.6).
func (m modifiers) accessFlags() int {
	flags := map[string]int{"public": 0x1, "private": 0x2, "protected": 0x4, "static": 0x8, "final": 0x10,
		"synchronized": 0x20, "volatile": 0x40, "transient": 0x80, "native": 0x100, "abstract": 0x400,
		"strictfp": 0x800}
	a := 0
	for k := range m {
		a |= flags[k]
	}
	return a
}

type (
	// fieldMember is one declarator of a field declaration.
	fieldMember struct {
		pos
		mods modifiers
		typ  *typeRef
		name string
		init expr // nil when the field has no initializer
	}
	// initMember is an initializer block, static or not.
	initMember struct {
		pos
		static bool
		stmts  []stmt
	}
	// param is a method's formal parameter.
	formalParam struct {
		typ     *typeRef
		name    string
		varargs bool
	}
	// methodMember is a method, or a constructor when ret is nil.
	methodMember struct {
		pos
		mods   modifiers
		ret    *typeRef
		name   string
		params []formalParam
		// ctorCall is a constructor's explicit super(...) or this(...)
		// call, nil when it has none.
		ctorCall *ctorCall
		body     []stmt
		hasBody  bool
	}
	ctorCall struct {
		this bool
		args []expr
	}
	// classMember is a member class (or an anonymous class's body, which
	// has no name).
	classMember struct {
		pos
		mods    modifiers
		name    string
		members []member
	}
)

// classDecl is the class VerifyClass reads, with its package and imports.
type classDecl struct {
	pkg      string
	imports  map[string]string // simple name -> qualified name
	onDemand []string          // packages imported with .*
	mods     modifiers
	name     string
	super    *typeRef
	members  []member
}

// modifiers parses modifier keywords.
func (p *parser) modifiers() modifiers {
	m := modifiers{}
	for {
		t := p.peek()
		if t.kind == tOp && t.text == "@" {
			p.unsupported(t, "annotations")
		}
		if t.kind != tKeyword {
			return m
		}
		switch t.text {
		case "public", "private", "protected", "static", "final", "abstract", "native", "synchronized",
			"transient", "volatile", "strictfp":
			if m[t.text] {
				p.fail(t, "Duplicate modifier for the member")
			}
			m[t.text] = true
			p.i++
		default:
			return m
		}
	}
}

// classBody parses class members up to the closing brace, which it
// consumes. With toEOF the end of the source closes the body too: the
// template's closing brace follows a body that closed the generated method
// early, so an initializer left open there ends with the source as well.
func (p *parser) classBody(toEOF bool) []member {
	p.enter()
	defer p.leave()
	var ms []member
	for {
		t := p.peek()
		if t.kind == tEOF {
			if toEOF {
				return ms
			}
			p.fail(p.toks[max(p.i-1, 0)], "Syntax error, insert \"}\" to complete ClassBody")
		}
		if !toEOF && p.acceptOp("}") {
			return ms
		}
		if p.acceptOp(";") {
			continue
		}
		mods := p.modifiers()
		if p.isOp("{") {
			// An initializer block.
			p.i++
			in := &initMember{pos: pos{t.line}, static: mods["static"]}
			for !p.acceptOp("}") {
				if p.peek().kind == tEOF {
					if toEOF {
						break
					}
					p.fail(p.toks[p.i-1], "Syntax error, insert \"}\" to complete Block")
				}
				in.stmts = append(in.stmts, p.statement())
			}
			ms = append(ms, in)
			continue
		}
		if p.isKw("interface") || p.isKw("enum") {
			p.unsupported(p.peek(), p.peek().text+" declarations")
		}
		if p.acceptKw("class") {
			name := p.ident()
			if p.isOp("<") {
				p.unsupported(p.peek(), "generic classes")
			}
			if p.acceptKw("extends") {
				p.typ()
			}
			if p.acceptKw("implements") {
				p.typ()
				for p.acceptOp(",") {
					p.typ()
				}
			}
			p.expectOp("{")
			cm := &classMember{pos: pos{t.line}, mods: mods, name: name}
			if !p.classMode {
				// After the generated method only a member class with no
				// members is in the subset (the verifier refuses it
				// whatever it holds).
				if !p.acceptOp("}") && p.peek().kind != tEOF {
					p.unsupported(p.peek(), "class declarations")
				}
			} else {
				cm.members = p.classBody(false)
			}
			ms = append(ms, cm)
			continue
		}
		if p.isOp("<") {
			p.unsupported(p.peek(), "generic methods")
		}
		if !p.classMode && p.peek().kind == tIdent && p.peekAt(1).kind == tOp && p.peekAt(1).text == "(" {
			p.unsupported(t, "method declarations")
		}
		if p.peek().kind == tIdent && p.peekAt(1).kind == tOp && p.peekAt(1).text == "(" {
			// A constructor.
			name := p.ident()
			ms = append(ms, p.method(t, mods, nil, name))
			continue
		}
		tr := p.typ()
		name := p.ident()
		if p.isOp("(") {
			if !p.classMode {
				p.unsupported(t, "method declarations")
			}
			ms = append(ms, p.method(t, mods, tr, name))
			continue
		}
		for {
			f := &fieldMember{pos: pos{t.line}, mods: mods, typ: tr, name: name}
			if p.isOp("[") {
				p.unsupported(p.peek(), "array dimensions after a field name")
			}
			if p.acceptOp("=") {
				if p.isOp("{") {
					f.init = p.arrayInit()
				} else {
					f.init = p.expression()
				}
			}
			ms = append(ms, f)
			if !p.acceptOp(",") {
				break
			}
			name = p.ident()
		}
		p.expectOp(";")
	}
}

// method parses a method's (or, with a nil ret, a constructor's)
// parameters and body.
func (p *parser) method(t token, mods modifiers, ret *typeRef, name string) *methodMember {
	m := &methodMember{pos: pos{t.line}, mods: mods, ret: ret, name: name}
	p.expectOp("(")
	if !p.acceptOp(")") {
		for {
			p.acceptKw("final")
			pa := formalParam{typ: p.typ()}
			if p.acceptOp("...") {
				pa.varargs = true
				pa.typ.dims++
			}
			pa.name = p.ident()
			m.params = append(m.params, pa)
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
	}
	if p.acceptKw("throws") {
		p.typ()
		for p.acceptOp(",") {
			p.typ()
		}
	}
	if p.acceptOp(";") {
		return m
	}
	m.hasBody = true
	p.expectOp("{")
	if ret == nil && (p.isKw("super") || p.isKw("this")) && p.peekAt(1).kind == tOp && p.peekAt(1).text == "(" {
		m.ctorCall = &ctorCall{this: p.next().text == "this", args: p.arguments()}
		p.expectOp(";")
	}
	for !p.acceptOp("}") {
		if p.peek().kind == tEOF {
			p.fail(p.toks[p.i-1], "Syntax error, insert \"}\" to complete MethodBody")
		}
		m.body = append(m.body, p.statement())
	}
	return m
}

// qualifiedName parses a dotted name, and a trailing .* when star is set
// (which it reports).
func (p *parser) qualifiedName(star bool) (string, bool) {
	n := p.ident()
	for p.acceptOp(".") {
		if star && p.acceptOp("*") {
			return n, true
		}
		n += "." + p.ident()
	}
	return n, false
}

// parseClass parses a compilation unit of one top-level class.
func parseClass(src string) (cd *classDecl, err error) {
	toks, lerr := lex(src)
	if lerr != nil {
		return nil, lexFailure(lerr)
	}
	p := &parser{toks: toks, classMode: true}
	defer func() {
		if r := recover(); r != nil {
			err = parseFailure(r)
		}
	}()
	cd = &classDecl{imports: map[string]string{}}
	if p.acceptKw("package") {
		cd.pkg, _ = p.qualifiedName(false)
		p.expectOp(";")
	}
	for p.acceptKw("import") {
		if p.isKw("static") {
			p.unsupported(p.peek(), "static imports")
		}
		n, star := p.qualifiedName(true)
		if star {
			cd.onDemand = append(cd.onDemand, n)
		} else {
			cd.imports[n[strings.LastIndex(n, ".")+1:]] = n
		}
		p.expectOp(";")
	}
	cd.mods = p.modifiers()
	if p.isKw("interface") || p.isKw("enum") {
		p.unsupported(p.peek(), p.peek().text+" declarations")
	}
	if !p.acceptKw("class") {
		p.fail(p.peek(), fmt.Sprintf("Syntax error on token \"%s\", class expected", tokText(p.peek())))
	}
	cd.name = p.ident()
	if p.isOp("<") {
		p.unsupported(p.peek(), "generic classes")
	}
	if p.acceptKw("extends") {
		cd.super = p.typ()
	}
	if p.acceptKw("implements") {
		p.typ()
		for p.acceptOp(",") {
			p.typ()
		}
	}
	p.expectOp("{")
	cd.members = p.classBody(false)
	if p.peek().kind != tEOF {
		p.unsupported(p.peek(), "more than one class")
	}
	return cd, nil
}

// javaLangNames are the simple names of java.lang's classes that a class
// may use without an import, beyond those the interpreter implements.
var javaLangNames = map[string]bool{
	"Runnable": true, "Thread": true, "ThreadGroup": true, "ThreadLocal": true, "InheritableThreadLocal": true,
	"Runtime": true, "Process": true, "ProcessBuilder": true, "Class": true, "ClassLoader": true,
	"Compiler": true, "Package": true, "SecurityManager": true, "StackTraceElement": true, "Void": true,
	"Enum": true, "Cloneable": true, "AutoCloseable": true, "Appendable": true, "Readable": true,
	"Override": true, "Deprecated": true, "SuppressWarnings": true, "FunctionalInterface": true,
}

// classScope resolves the class names a class's source writes, as the Java
// compiler does: the class and its member classes, single-type imports,
// java.lang, on-demand imports (of the classes the interpreter knows) and
// qualified names.
type classScope struct {
	cd       *classDecl
	self     string // the class's internal name
	memberCl map[string]bool
	anon     int
}

func newClassScope(cd *classDecl) *classScope {
	sc := &classScope{cd: cd, memberCl: map[string]bool{}}
	sc.self = cd.name
	if cd.pkg != "" {
		sc.self = strings.ReplaceAll(cd.pkg, ".", "/") + "/" + cd.name
	}
	for _, m := range cd.members {
		if c, ok := m.(*classMember); ok {
			sc.memberCl[c.name] = true
		}
	}
	return sc
}

// resolve returns the internal name of a written class name.
func (sc *classScope) resolve(name string) (string, bool) {
	parts := strings.Split(name, ".")
	nested := func(outer string, rest []string) string {
		for _, r := range rest {
			outer += "$" + r
		}
		return outer
	}
	first := parts[0]
	switch {
	case first == sc.cd.name:
		return nested(sc.self, parts[1:]), true
	case sc.memberCl[first]:
		return nested(sc.self+"$"+first, parts[1:]), true
	}
	if q, ok := sc.cd.imports[first]; ok {
		return nested(strings.ReplaceAll(q, ".", "/"), parts[1:]), true
	}
	if _, ok := classNames["java.lang."+first]; ok || javaLangNames[first] {
		return nested("java/lang/"+first, parts[1:]), true
	}
	for _, pkg := range sc.cd.onDemand {
		if _, ok := classNames[pkg+"."+first]; ok {
			return nested(strings.ReplaceAll(pkg, ".", "/")+"/"+first, parts[1:]), true
		}
	}
	// A qualified name: the package is the lower-case start.
	for i, part := range parts {
		if part != "" && part[0] >= 'A' && part[0] <= 'Z' {
			if i == 0 {
				return "", false
			}
			return nested(strings.Join(parts[:i], "/")+"/"+part, parts[i+1:]), true
		}
	}
	return "", false
}

// descriptor gives a type's JVM descriptor (JVMS 4.3.2), generics erased.
func (sc *classScope) descriptor(tr *typeRef) (string, bool) {
	d := strings.Repeat("[", tr.dims)
	prims := map[string]string{"int": "I", "long": "J", "short": "S", "byte": "B", "char": "C", "float": "F",
		"double": "D", "boolean": "Z", "void": "V"}
	if p, ok := prims[tr.name]; ok {
		return d + p, true
	}
	in, ok := sc.resolve(tr.name)
	if !ok {
		return "", false
	}
	return d + "L" + in + ";", true
}

// methodDescriptor gives a method's descriptor.
func (sc *classScope) methodDescriptor(m *methodMember) (string, error) {
	var b strings.Builder
	b.WriteByte('(')
	for _, pa := range m.params {
		d, ok := sc.descriptor(pa.typ)
		if !ok {
			return "", sc.unresolved(pa.typ)
		}
		b.WriteString(d)
	}
	b.WriteByte(')')
	if m.ret == nil {
		b.WriteByte('V')
	} else {
		d, ok := sc.descriptor(m.ret)
		if !ok {
			return "", sc.unresolved(m.ret)
		}
		b.WriteString(d)
	}
	return b.String(), nil
}

func (sc *classScope) unresolved(tr *typeRef) error {
	return &CompileError{Problems: []Problem{{Line: tr.line, Msg: tr.name + " cannot be resolved to a type"}}}
}

// VerifyClass applies the checks of Cassandra 4.1's UDFByteCodeVerifier
// (`new UDFByteCodeVerifier()`, with addDisallowedPackage for each of
// disallowedPackages, in internal form such as "org/") to the Java source of
// a whole class, as UFVerifierTest does to its compiled helper classes, and
// returns the complaints sorted as the verifier's set prints them (none for
// a class it accepts).
//
// The source is one top-level class with its package and imports. The
// class's own rules are the verifier's: it must be public final and extend
// org.apache.cassandra.cql3.functions.JavaUDF; its constructor must take
// JavaUDF's (TypeCodec, TypeCodec[], UDFContext), be public and do nothing
// but call super; executeImpl and executeAggregateImpl must be protected;
// any other method, any field, initializer code, static initializer or
// member class is a complaint; so are, in the methods, synchronized blocks
// and calls of Object's clone, finalize, wait, notify and notifyAll and of
// any class in a disallowed package. The methods' bodies are checked as the
// interpreter checks a UDF body (with the class's imports), so they must be
// in its subset; an anonymous class's body, which compiles to a class of
// its own that the verifier does not read, is only parsed. As the verifier
// reads byte code, the calls it sees are those the compiler emits; VerifyClass
// sees those the source spells (see verifier.go). A source outside the
// subset gives an *UnsupportedError, one that Java would not compile a
// *CompileError.
func VerifyClass(src string, disallowedPackages ...string) (complaints []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			complaints, err = nil, fmt.Errorf("%w: %v\n%s", ErrInternal, r, debug.Stack())
		}
	}()
	cd, err := parseClass(src)
	if err != nil {
		return nil, err
	}
	v := newByteCodeVerifier()
	v.packages = append(v.packages, disallowedPackages...)
	sc := newClassScope(cd)
	errs := map[string]bool{}

	// ClassVisitor.visit: the superclass and the access flags (javac sets
	// ACC_SUPER on every class).
	superName := objectInternal
	if cd.super != nil {
		s, ok := sc.resolve(cd.super.name)
		if !ok {
			return nil, sc.unresolved(cd.super)
		}
		superName = s
	}
	if superName != javaUDFInternal {
		errs["class does not extend org.apache.cassandra.cql3.functions.JavaUDF"] = true
	}
	if cd.mods.accessFlags() != 0x1|0x10 {
		errs["class not public final"] = true
	}

	// Fields, initializers and member classes.
	instanceInit, clinit := memberComplaints(cd.members, errs)
	if clinit {
		errs["static initializer declared"] = true
	}

	// Methods and constructors.
	hasCtor := false
	for _, m := range cd.members {
		mm, ok := m.(*methodMember)
		if !ok {
			continue
		}
		desc, err := sc.methodDescriptor(mm)
		if err != nil {
			return nil, err
		}
		access := mm.mods.accessFlags()
		if len(mm.params) > 0 && mm.params[len(mm.params)-1].varargs {
			access |= 0x80 // ACC_VARARGS
		}
		switch {
		case mm.ret == nil && desc == ctorDesc:
			hasCtor = true
			if access != 0x1 {
				errs["constructor not public"] = true
			}
			// ConstructorVisitor: only the call of JavaUDF's constructor,
			// with its arguments loaded, and RETURN.
			cc := mm.ctorCall
			if cc == nil || cc.this || superName != javaUDFInternal || len(cc.args) != 3 {
				errs["initializer declared"] = true
			}
			if cc != nil {
				for _, a := range cc.args {
					if exprEmits(a) {
						errs["initializer declared"] = true
					}
				}
			}
			if instanceInit && (cc == nil || !cc.this) {
				errs["initializer declared"] = true
			}
			for _, s := range mm.body {
				if stmtEmits(s) {
					errs["initializer declared"] = true
				}
			}
			continue
		case mm.ret == nil:
			hasCtor = true
			errs["not allowed method declared: <init>"+desc] = true
			if mm.ctorCall == nil || !mm.ctorCall.this {
				v.invocation(superName, "<init>", errs)
			} else {
				v.invocation(sc.self, "<init>", errs)
			}
		case mm.name == "executeImpl" && desc == executeImplDesc:
			if access != 0x4 {
				errs["executeImpl not protected"] = true
			}
		case mm.name == "executeAggregateImpl" && desc == executeAggregateImplDesc:
			if access != 0x4 {
				errs["executeAggregateImpl not protected"] = true
			}
		default:
			errs["not allowed method declared: "+mm.name+desc] = true
		}
		if err := sc.checkMethod(mm, v, errs); err != nil {
			return nil, err
		}
	}
	if !hasCtor {
		// The default constructor: <init>()V, calling super().
		errs["not allowed method declared: <init>()V"] = true
		v.invocation(superName, "<init>", errs)
	}
	return sortedComplaints(errs), nil
}

// memberComplaints adds the verifier's complaints about fields and member
// classes to errs, and reports whether instance initializers emit code
// into the constructor and whether the class gets a static initializer.
func memberComplaints(ms []member, errs map[string]bool) (instanceInit, clinit bool) {
	for _, m := range ms {
		switch m := m.(type) {
		case *fieldMember:
			errs["field declared: "+m.name] = true
			if m.init == nil {
				continue
			}
			if m.mods["static"] {
				if !m.mods["final"] || !isConstantInit(m.init) {
					clinit = true
				}
			} else if exprEmits(m.init) {
				instanceInit = true
			}
		case *initMember:
			for _, s := range m.stmts {
				if m.static && stmtHasCode(s) {
					clinit = true
				}
				if !m.static && stmtEmits(s) {
					instanceInit = true
				}
			}
		case *classMember:
			// visitInnerClass: a member class names this class as its
			// outer class (an anonymous or local class names none).
			errs["class declared as inner class"] = true
		}
	}
	return instanceInit, clinit
}

// checkMethod checks a method's body as the interpreter checks a UDF body,
// recording the calls the verifier sees.
func (sc *classScope) checkMethod(m *methodMember, v *byteCodeVerifier, errs map[string]bool) error {
	c := &checker{verifier: errs, bcv: v, cls: sc}
	ret := tVoid
	if m.ret != nil && m.ret.name != "void" {
		ret = c.typeOfRef(m.ret)
	}
	c.ret = ret
	c.push()
	c.push()
	for _, pa := range m.params {
		c.declare(m.line, &varDecl{name: pa.name, slot: -1}, c.typeOfRef(pa.typ))
	}
	if m.ctorCall != nil {
		for _, a := range m.ctorCall.args {
			c.expr(a)
		}
	}
	c.push()
	c.stmts(m.body)
	if len(c.probs) == 0 && m.hasBody && m.ret != nil && m.ret.name != "void" && completes(m.body) {
		c.errorf(m.line, "This method must return a result of type %s", m.ret.name)
	}
	if len(c.probs) > 0 {
		return &CompileError{Problems: c.probs}
	}
	if c.unsup != nil {
		return c.unsup
	}
	return nil
}
