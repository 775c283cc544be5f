package javaudf

import (
	"sort"
	"strings"
)

// The byte-code verifier. Cassandra 4.1 compiles a Java UDF's class and
// hands its byte code to UDFByteCodeVerifier, whose ASM visitors refuse
// what a sandbox cannot stop: fields, initializers, member classes, extra
// methods, monitors and calls of chosen methods. minicass has no byte code,
// so it applies the same rules to what the source says the compiler would
// emit: the calls a body spells (method calls and instance creations, by
// the owner class the compiler names in the call), synchronized blocks, and
// the class's members. Calls the compiler adds on its own (boxing, string
// concatenation, the iterator of an enhanced for) are not seen; they matter
// only to a disallowed package that covers java/.

// Class names, as the verifier compares them (internal form, '/'
// separated).
const (
	javaUDFInternal = "org/apache/cassandra/cql3/functions/JavaUDF"
	objectInternal  = "java/lang/Object"
	// ctorDesc is the descriptor of JavaUDF's constructor
	// (UDFByteCodeVerifier.CTOR_SIG), which the class's constructor must
	// take.
	ctorDesc = "(Lorg/apache/cassandra/cql3/functions/types/TypeCodec;[Lorg/apache/cassandra/cql3/functions/types/TypeCodec;Lorg/apache/cassandra/cql3/functions/UDFContext;)V"
	// executeImplDesc and executeAggregateImplDesc are the descriptors of
	// the two methods the verifier expects.
	executeImplDesc          = "(Lorg/apache/cassandra/transport/ProtocolVersion;Ljava/util/List;)Ljava/nio/ByteBuffer;"
	executeAggregateImplDesc = "(Lorg/apache/cassandra/transport/ProtocolVersion;Ljava/lang/Object;Ljava/util/List;)Ljava/lang/Object;"
)

// byteCodeVerifier holds UDFByteCodeVerifier's configuration: the classes
// any call to which is refused (addDisallowedClass), the methods refused per
// owner class (addDisallowedMethodCall), and the package prefixes refused
// (addDisallowedPackage), all in internal form.
type byteCodeVerifier struct {
	classes  map[string]bool
	methods  map[string]map[string]bool
	packages []string
}

// newByteCodeVerifier returns the verifier `new UDFByteCodeVerifier()`
// builds: it refuses Object's clone, finalize, notify, notifyAll and wait.
func newByteCodeVerifier() *byteCodeVerifier {
	v := &byteCodeVerifier{classes: map[string]bool{}, methods: map[string]map[string]bool{}}
	for _, m := range []string{"clone", "finalize", "notify", "notifyAll", "wait"} {
		v.disallowMethod(objectInternal, m)
	}
	return v
}

func (v *byteCodeVerifier) disallowMethod(owner, name string) {
	if v.methods[owner] == nil {
		v.methods[owner] = map[string]bool{}
	}
	v.methods[owner][name] = true
}

// udfVerifier is the verifier JavaBasedUDFunction (4.1) checks every
// compiled UDF class with: the base rules plus class loading and resource
// look-ups, direct buffers, and the DNS and network look-ups of java.net.
var udfVerifier = func() *byteCodeVerifier {
	v := newByteCodeVerifier()
	for _, m := range []string{"forName", "getClassLoader", "getResource", "getResourceAsStream"} {
		v.disallowMethod("java/lang/Class", m)
	}
	for _, m := range []string{"clearAssertionStatus", "getResource", "getResourceAsStream", "getResources",
		"getSystemClassLoader", "getSystemResource", "getSystemResourceAsStream", "getSystemResources", "loadClass",
		"setClassAssertionStatus", "setDefaultAssertionStatus", "setPackageAssertionStatus"} {
		v.disallowMethod("java/lang/ClassLoader", m)
	}
	v.disallowMethod("java/nio/ByteBuffer", "allocateDirect")
	for _, ia := range []string{"java/net/InetAddress", "java/net/Inet4Address", "java/net/Inet6Address"} {
		for _, m := range []string{"getByAddress", "getAllByName", "getByName", "getLocalHost", "getHostName",
			"getCanonicalHostName", "isReachable"} {
			v.disallowMethod(ia, m)
		}
	}
	v.classes["java/net/NetworkInterface"] = true
	v.classes["java/net/SocketException"] = true
	return v
}()

// invocation applies ExecuteImplVisitor.visitMethodInsn's rules to a call
// of method name (<init> for an instance creation) of class owner, adding
// its complaints to errs.
func (v *byteCodeVerifier) invocation(owner, name string, errs map[string]bool) {
	refuse := func() { errs["call to "+strings.ReplaceAll(owner, "/", ".")+"."+name+"()"] = true }
	if v.classes[owner] || v.methods[owner][name] {
		refuse()
	}
	if owner != javaUDFInternal {
		for _, p := range v.packages {
			if strings.HasPrefix(owner, p) {
				refuse()
			}
		}
	}
}

// sortedComplaints returns a complaint set in the order of the verifier's
// TreeSet, which Cassandra prints.
func sortedComplaints(errs map[string]bool) []string {
	out := make([]string, 0, len(errs))
	for m := range errs {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// internalNames maps the simple names the checker uses for the classes it
// knows to their internal names (java/util/Map$Entry).
var internalNames = map[string]string{"Class": "java/lang/Class", "ClassLoader": "java/lang/ClassLoader"}

func init() {
	for written, simple := range classNames {
		if !strings.HasSuffix(written, "."+simple) {
			continue
		}
		pkg := strings.TrimSuffix(written, "."+simple)
		internalNames[simple] = strings.ReplaceAll(pkg, ".", "/") + "/" + strings.ReplaceAll(simple, ".", "$")
	}
}

// ownerOf returns the internal name of a class the checker knows by its
// simple name, or the name itself for a class VerifyClass resolved (already
// internal), or "" when neither.
func ownerOf(name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	return internalNames[name]
}

// Code the compiler emits. The verifier's ConstructorVisitor refuses, in the
// constructor, every zero-operand instruction but RETURN and every call but
// JavaUDF's constructor: "initializer declared". Loading a local or a
// field, storing one, and pushing a constant with BIPUSH, SIPUSH or LDC are
// not such instructions, so `int x = 1000;` in an initializer passes while
// `int x = 1;` (ICONST_1) does not.

// exprEmits reports whether evaluating x emits a zero-operand instruction or
// a call.
func exprEmits(x expr) bool {
	switch e := x.(type) {
	case *litExpr:
		switch v := e.val.(type) {
		case nil, bool:
			return true // ACONST_NULL, ICONST_0/1
		case int32:
			return v >= -1 && v <= 5 // ICONST_M1..5, else BIPUSH/SIPUSH/LDC
		case jchar:
			return v <= 5
		case int64:
			return v == 0 || v == 1 // LCONST_0/1
		case float32:
			return (v == 0 && !isNegZero32(v)) || v == 1 || v == 2 // FCONST_0..2
		case float64:
			return (v == 0 && !isNegZero64(v)) || v == 1 // DCONST_0/1
		case string:
			return false // LDC
		}
		return true
	case *unaryExpr:
		// The compiler folds a negated literal into one constant.
		if l, ok := e.x.(*litExpr); ok && e.op == "-" {
			switch v := l.val.(type) {
			case int32:
				return exprEmits(&litExpr{l.pos, -v})
			case int64:
				return exprEmits(&litExpr{l.pos, -v})
			case float32:
				return exprEmits(&litExpr{l.pos, -v})
			case float64:
				return exprEmits(&litExpr{l.pos, -v})
			}
		}
		return true
	case *nameExpr:
		return false // xLOAD or GETFIELD
	case *fieldExpr:
		if n, ok := e.x.(*nameExpr); ok && n.name == "this" {
			return false
		}
		return true
	case *assignExpr:
		if e.op != "=" {
			return true
		}
		switch l := e.l.(type) {
		case *nameExpr:
			return exprEmits(e.r)
		case *fieldExpr:
			if n, ok := l.x.(*nameExpr); ok && n.name == "this" {
				return exprEmits(e.r)
			}
		}
		return true
	}
	return true
}

func isNegZero32(v float32) bool { return v == 0 && 1/float64(v) < 0 }
func isNegZero64(v float64) bool { return v == 0 && 1/v < 0 }

// stmtEmits reports whether a statement of an initializer or constructor
// emits a zero-operand instruction (other than RETURN) or a call.
func stmtEmits(s stmt) bool {
	switch s := s.(type) {
	case *emptyStmt:
		return false
	case *blockStmt:
		for _, x := range s.stmts {
			if stmtEmits(x) {
				return true
			}
		}
		return false
	case *localVarStmt:
		for _, v := range s.vars {
			if v.init != nil && exprEmits(v.init) {
				return true
			}
		}
		return false
	case *exprStmt:
		if a, ok := s.x.(*assignExpr); ok {
			return exprEmits(a)
		}
		return true
	case *returnStmt:
		return s.x != nil
	}
	return true
}

// stmtHasCode reports whether a statement compiles to any instruction at
// all (a static initializer block without code gets no <clinit>).
func stmtHasCode(s stmt) bool {
	switch s := s.(type) {
	case *emptyStmt:
		return false
	case *blockStmt:
		for _, x := range s.stmts {
			if stmtHasCode(x) {
				return true
			}
		}
		return false
	case *localVarStmt:
		for _, v := range s.vars {
			if v.init != nil {
				return true
			}
		}
		return false
	}
	return true
}

// isConstantInit reports whether a final field's initializer is a
// compile-time constant, which the compiler stores as the field's
// ConstantValue rather than as code.
func isConstantInit(x expr) bool {
	switch e := x.(type) {
	case *litExpr:
		return e.val != nil
	case *unaryExpr:
		return (e.op == "-" || e.op == "+") && isConstantInit(e.x)
	}
	return false
}
