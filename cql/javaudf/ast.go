package javaudf

// The syntax tree of a body. Nodes are pointers to the structs below; the
// checking pass (check.go) fills the resolved fields (slot, static type,
// builtin binding) that the evaluator (eval.go) uses.

// typeRef is a type as written: a (possibly qualified) name with type
// arguments and array dimensions. A wildcard argument has name "?".
type typeRef struct {
	name string
	args []*typeRef
	dims int
	line int
}

type expr interface{ exprLine() int }

type stmt interface{ stmtLine() int }

type pos struct{ line int }

func (p pos) exprLine() int { return p.line }
func (p pos) stmtLine() int { return p.line }

type (
	// litExpr is a literal; val is its Java value (int32, int64, float32,
	// float64, bool, jchar, string or nil for null).
	litExpr struct {
		pos
		val any
	}
	// nameExpr is a simple name: a local variable or parameter once
	// resolved (slot >= 0), else the first part of a class name.
	nameExpr struct {
		pos
		name string
		slot int
		jt   *jtype
	}
	// fieldExpr is x.name: a field of an object, a static field of a
	// class, or part of a qualified name.
	fieldExpr struct {
		pos
		x    expr
		name string
		// resolved: a static field value (Integer.MAX_VALUE), or the
		// length of an array.
		static    any
		hasStatic bool
	}
	// callExpr is recv.name(args), or name(args) when recv is nil.
	callExpr struct {
		pos
		recv expr
		name string
		args []expr
		// class is set when the call is to a static method of a known
		// class (Math.max).
		class string
		// byObject is set for List.remove whose argument's static type is
		// a reference, which Java resolves to remove(Object) rather than
		// remove(int).
		byObject bool
	}
	// newExpr is new T(args), or new T(args) {body} of an anonymous
	// class (VerifyClass only).
	newExpr struct {
		pos
		typ  *typeRef
		args []expr
		anon *classMember
	}
	// newArrayExpr is new T[n]... or new T[] {init}.
	newArrayExpr struct {
		pos
		elem *typeRef
		dims []expr
		more int // trailing [] without sizes
		init *arrayLit
	}
	// arrayLit is {a, b, c} in an array initializer.
	arrayLit struct {
		pos
		elems []expr
		jt    *jtype
	}
	indexExpr struct {
		pos
		x, idx expr
	}
	unaryExpr struct {
		pos
		op string // + - ! ~
		x  expr
	}
	incDecExpr struct {
		pos
		op     string // ++ or --
		prefix bool
		x      expr
		jt     *jtype
	}
	binaryExpr struct {
		pos
		op   string
		l, r expr
		// strcat is set when either operand is a String (op "+").
		strcat bool
		// num is the promoted numeric type of the operands, when known.
		num *jtype
		// unbox is set for == and != between a primitive and a boxed
		// operand, which Java compares as values after unboxing (a null
		// operand throws NullPointerException).
		unbox bool
	}
	assignExpr struct {
		pos
		op     string // = += -= ...
		l, r   expr
		lt     *jtype // the variable's type
		strcat bool
	}
	condExpr struct {
		pos
		c, a, b expr
		promote *jtype // numeric promotion of the branches, when known
	}
	castExpr struct {
		pos
		typ *typeRef
		x   expr
		jt  *jtype
	}
	instanceofExpr struct {
		pos
		x   expr
		typ *typeRef
		jt  *jtype
	}
	// classLitExpr is T.class.
	classLitExpr struct {
		pos
		typ *typeRef
	}
)

type (
	blockStmt struct {
		pos
		stmts []stmt
	}
	varDecl struct {
		name string
		dims int
		init expr
		slot int
		jt   *jtype
	}
	localVarStmt struct {
		pos
		typ  *typeRef
		vars []*varDecl
	}
	exprStmt struct {
		pos
		x expr
	}
	ifStmt struct {
		pos
		cond      expr
		then, els stmt
	}
	whileStmt struct {
		pos
		cond expr
		body stmt
	}
	doStmt struct {
		pos
		body stmt
		cond expr
	}
	forStmt struct {
		pos
		init   []stmt
		cond   expr
		update []expr
		body   stmt
	}
	foreachStmt struct {
		pos
		typ  *typeRef
		v    *varDecl
		x    expr
		body stmt
	}
	returnStmt struct {
		pos
		x expr
	}
	// syncStmt is synchronized (x) body; the verifier refuses it.
	syncStmt struct {
		pos
		x    expr
		body *blockStmt
	}
	throwStmt struct {
		pos
		x expr
	}
	breakStmt struct {
		pos
		label string
	}
	continueStmt struct {
		pos
		label string
	}
	labeledStmt struct {
		pos
		label string
		body  stmt
	}
	catchClause struct {
		types []*typeRef
		jts   []*jtype
		v     *varDecl
		body  *blockStmt
	}
	tryStmt struct {
		pos
		body    *blockStmt
		catches []*catchClause
		finally *blockStmt
	}
	switchCase struct {
		labels []expr // nil labels: default
		isDef  bool
		body   []stmt
	}
	switchStmt struct {
		pos
		x     expr
		cases []*switchCase
	}
	emptyStmt struct{ pos }
)
