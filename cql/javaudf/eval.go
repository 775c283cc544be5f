package javaudf

import (
	"context"
	"math"
)

// The evaluator walks the checked tree. Java values are Go values (see
// values.go); a thrown Java exception travels as a panic of *javaThrow, a
// timeout as a panic of timeoutSignal, both recovered by Call (and
// javaThrow by try statements).

type timeoutSignal struct{ err error }

// checkEvery is how many steps (statements, loop iterations, calls) run
// between two looks at the context.
const checkEvery = 16

type frame struct {
	fn    *Function
	slots []any
	ctx   context.Context
	steps int
}

// tick counts one step and every checkEvery steps looks at the context,
// ending the call (timeoutSignal) when it is done.
func (fr *frame) tick() {
	fr.steps++
	if fr.steps%checkEvery == 0 {
		if err := fr.ctx.Err(); err != nil {
			panic(timeoutSignal{err})
		}
	}
}

type ctlKind uint8

const (
	ctlNone ctlKind = iota
	ctlBreak
	ctlContinue
	ctlReturn
)

type ctl struct {
	kind  ctlKind
	label string
	val   any
}

func (fr *frame) execAll(ss []stmt) ctl {
	for _, s := range ss {
		if c := fr.exec(s); c.kind != ctlNone {
			return c
		}
	}
	return ctl{}
}

// loopCtl handles break and continue in a loop labelled label; it
// returns whether the loop ends and the control to pass up.
func loopCtl(c ctl, label string) (stop bool, up ctl) {
	switch c.kind {
	case ctlBreak:
		if c.label == "" || c.label == label {
			return true, ctl{}
		}
		return true, c
	case ctlContinue:
		if c.label == "" || c.label == label {
			return false, ctl{}
		}
		return true, c
	case ctlReturn:
		return true, c
	}
	return false, ctl{}
}

func (fr *frame) exec(s stmt) ctl {
	fr.tick()
	return fr.execLabeled(s, "")
}

// execLabeled runs s; label is the label of a loop statement, for its
// break and continue.
func (fr *frame) execLabeled(s stmt, label string) ctl {
	switch s := s.(type) {
	case *blockStmt:
		return fr.execAll(s.stmts)
	case *localVarStmt:
		for _, v := range s.vars {
			var val any
			if v.init != nil {
				if al, ok := v.init.(*arrayLit); ok {
					val = fr.arrayLit(al, v.jt)
				} else {
					val = coerce(fr.eval(v.init), v.jt)
				}
			} else {
				val = zeroOf(v.jt)
			}
			fr.slots[v.slot] = val
		}
	case *exprStmt:
		fr.eval(s.x)
	case *ifStmt:
		if fr.truth(s.cond) {
			return fr.exec(s.then)
		} else if s.els != nil {
			return fr.exec(s.els)
		}
	case *whileStmt:
		for fr.truth(s.cond) {
			fr.tick()
			if stop, up := loopCtl(fr.exec(s.body), label); stop {
				return up
			}
		}
	case *doStmt:
		for {
			fr.tick()
			if stop, up := loopCtl(fr.exec(s.body), label); stop {
				return up
			}
			if !fr.truth(s.cond) {
				break
			}
		}
	case *forStmt:
		for _, i := range s.init {
			fr.exec(i)
		}
		for s.cond == nil || fr.truth(s.cond) {
			fr.tick()
			if stop, up := loopCtl(fr.exec(s.body), label); stop {
				return up
			}
			for _, u := range s.update {
				fr.eval(u)
			}
		}
	case *foreachStmt:
		coll := fr.eval(s.x)
		if coll == nil {
			throwNPE()
		}
		for _, item := range iterItems(coll) {
			fr.tick()
			fr.slots[s.v.slot] = coerce(item, s.v.jt)
			if stop, up := loopCtl(fr.exec(s.body), label); stop {
				return up
			}
		}
	case *returnStmt:
		if s.x == nil {
			return ctl{kind: ctlReturn}
		}
		return ctl{kind: ctlReturn, val: coerce(fr.eval(s.x), fr.fn.retJava)}
	case *throwStmt:
		v := fr.eval(s.x)
		exc, ok := v.(*jexception)
		if !ok {
			throwNPE()
		}
		panic(&javaThrow{exc})
	case *breakStmt:
		return ctl{kind: ctlBreak, label: s.label}
	case *continueStmt:
		return ctl{kind: ctlContinue, label: s.label}
	case *labeledStmt:
		c := fr.execLabeled(s.body, s.label)
		if c.kind == ctlBreak && c.label == s.label {
			return ctl{}
		}
		return c
	case *tryStmt:
		return fr.execTry(s)
	case *switchStmt:
		return fr.execSwitch(s)
	case *syncStmt:
		return fr.exec(s.body)
	}
	return ctl{}
}

// catching runs body, returning the Java exception it throws, if any.
func (fr *frame) catching(body stmt) (c ctl, thrown *jexception) {
	defer func() {
		if r := recover(); r != nil {
			if jt, ok := r.(*javaThrow); ok {
				thrown = jt.exc
				return
			}
			panic(r)
		}
	}()
	return fr.exec(body), nil
}

func (fr *frame) execTry(s *tryStmt) ctl {
	c, thrown := fr.catching(s.body)
	if thrown != nil {
		for _, cc := range s.catches {
			if !catches(cc, thrown) {
				continue
			}
			fr.slots[cc.v.slot] = thrown
			if s.finally == nil {
				return fr.exec(cc.body)
			}
			c, thrown = fr.catching(cc.body)
			break
		}
	}
	if s.finally != nil {
		if fc := fr.exec(s.finally); fc.kind != ctlNone {
			return fc
		}
	}
	if thrown != nil {
		panic(&javaThrow{thrown})
	}
	return c
}

func catches(cc *catchClause, exc *jexception) bool {
	for _, jt := range cc.jts {
		if jt == nil || isSubclass(exc.class, jt.name) {
			return true
		}
	}
	return false
}

func (fr *frame) execSwitch(s *switchStmt) ctl {
	v := fr.eval(s.x)
	if v == nil {
		throwNPE()
	}
	start := -1
	for i, sc := range s.cases {
		for _, l := range sc.labels {
			if javaEquals(unboxNum(v), unboxNum(fr.eval(l))) || numEq(v, fr.eval(l)) {
				start = i
				break
			}
		}
		if start >= 0 {
			break
		}
	}
	if start < 0 {
		for i, sc := range s.cases {
			if sc.isDef {
				start = i
			}
		}
	}
	if start < 0 {
		return ctl{}
	}
	for _, sc := range s.cases[start:] {
		c := fr.execAll(sc.body)
		if c.kind == ctlBreak && c.label == "" {
			return ctl{}
		}
		if c.kind != ctlNone {
			return c
		}
	}
	return ctl{}
}

func numEq(a, b any) bool {
	if isNum(a) && isNum(b) {
		return compareNum(a, b) == 0
	}
	return false
}

func unboxNum(v any) any { return v }

func (fr *frame) truth(x expr) bool {
	v := fr.eval(x)
	b, ok := v.(bool)
	if !ok {
		throwNPE()
	}
	return b
}

func (fr *frame) arrayLit(a *arrayLit, jt *jtype) *jarray {
	var elem *jtype
	if jt != nil && jt.dims > 0 {
		cp := *jt
		cp.dims--
		elem = &cp
	}
	arr := &jarray{elem: elem, vals: make([]any, len(a.elems))}
	for i, e := range a.elems {
		if sub, ok := e.(*arrayLit); ok {
			arr.vals[i] = fr.arrayLit(sub, elem)
		} else {
			arr.vals[i] = coerce(fr.eval(e), elem)
		}
	}
	return arr
}

func (fr *frame) eval(x expr) any {
	switch e := x.(type) {
	case *litExpr:
		return e.val
	case *nameExpr:
		if e.slot < 0 {
			return nil
		}
		return fr.slots[e.slot]
	case *fieldExpr:
		if e.hasStatic {
			return e.static
		}
		v := fr.eval(e.x)
		if v == nil {
			throwNPE()
		}
		if arr, ok := v.(*jarray); ok && e.name == "length" {
			return int32(len(arr.vals))
		}
		panic(&UnsupportedError{Line: e.line, Construct: "field " + e.name})
	case *callExpr:
		fr.tick()
		args := make([]any, len(e.args))
		if e.class != "" {
			for i, a := range e.args {
				args[i] = fr.eval(a)
			}
			return callStatic(fr, e.class, e.name, args, e.line)
		}
		if e.recv == nil {
			for i, a := range e.args {
				args[i] = fr.eval(a)
			}
			return callOwn(fr, e.name, args, e.line)
		}
		recv := fr.eval(e.recv)
		for i, a := range e.args {
			args[i] = fr.eval(a)
		}
		if recv == nil {
			throwNPE()
		}
		if e.byObject {
			if l, ok := recv.(*jlist); ok {
				return l.removeObject(args[0])
			}
		}
		return callMethod(fr, recv, e.name, args, e.line)
	case *newExpr:
		args := make([]any, len(e.args))
		for i, a := range e.args {
			args[i] = fr.eval(a)
		}
		jt, _ := resolveType(e.typ)
		return construct(fr, jt, args, e.line)
	case *newArrayExpr:
		jt, _ := resolveType(e.elem)
		at := &jtype{name: jt.name, args: jt.args, dims: len(e.dims) + e.more}
		if e.init != nil {
			return fr.arrayLit(e.init, at)
		}
		sizes := make([]int, len(e.dims))
		total := int64(1)
		for i, d := range e.dims {
			n := toInt64(fr.eval(d))
			if n < 0 {
				throwJava("NegativeArraySizeException", itoa(n))
			}
			total *= max(n, 1)
			checkElems(total)
			sizes[i] = int(n)
		}
		return newArray(at, sizes)
	case *indexExpr:
		arr := fr.eval(e.x)
		idx := fr.eval(e.idx)
		a, ok := arr.(*jarray)
		if !ok {
			throwNPE()
		}
		return a.vals[a.index(idx)]
	case *unaryExpr:
		v := fr.eval(e.x)
		switch e.op {
		case "!":
			b, ok := v.(bool)
			if !ok {
				throwNPE()
			}
			return !b
		case "-":
			return negate(v)
		case "+":
			return promoteUnary(v)
		case "~":
			return bitNot(v)
		}
	case *incDecExpr:
		old := fr.eval(e.x)
		if old == nil {
			throwNPE()
		}
		op := "+"
		if e.op == "--" {
			op = "-"
		}
		nv := castNum(arith(op, old, int32(1)), old)
		fr.store(e.x, nv)
		if e.prefix {
			return nv
		}
		return old
	case *binaryExpr:
		switch e.op {
		case "&&":
			if !fr.truth(e.l) {
				return false
			}
			return fr.truth(e.r)
		case "||":
			if fr.truth(e.l) {
				return true
			}
			return fr.truth(e.r)
		}
		l, r := fr.eval(e.l), fr.eval(e.r)
		if e.unbox && (l == nil || r == nil) {
			throwNPE()
		}
		if e.strcat {
			ls, rs := javaString(l), javaString(r)
			checkChars(len(ls) + len(rs))
			return ls + rs
		}
		return binop(e.op, l, r, e.num)
	case *assignExpr:
		if e.op == "=" {
			var v any
			if al, ok := e.r.(*arrayLit); ok {
				v = fr.arrayLit(al, e.lt)
			} else {
				v = coerce(fr.eval(e.r), e.lt)
			}
			fr.storeChecked(e.l, v)
			return v
		}
		old := fr.eval(e.l)
		r := fr.eval(e.r)
		var nv any
		if e.strcat {
			ls, rs := javaString(old), javaString(r)
			checkChars(len(ls) + len(rs))
			nv = ls + rs
		} else {
			op := e.op[:len(e.op)-1]
			res := binop(op, old, r, nil)
			if old == nil {
				throwNPE()
			}
			nv = castNum(res, old)
		}
		fr.store(e.l, nv)
		return nv
	case *condExpr:
		var v any
		if fr.truth(e.c) {
			v = fr.eval(e.a)
		} else {
			v = fr.eval(e.b)
		}
		if e.promote != nil {
			if v == nil {
				throwNPE()
			}
			v = convertNum(v, e.promote.name)
		}
		return v
	case *castExpr:
		return castTo(fr.eval(e.x), e.jt)
	case *instanceofExpr:
		return instanceOf(fr.eval(e.x), e.jt)
	case *classLitExpr:
		jt, _ := resolveType(e.typ)
		return &jclass{jt}
	case *arrayLit:
		return fr.arrayLit(e, e.jt)
	}
	return nil
}

// storeChecked stores into an lvalue; array stores check the index.
func (fr *frame) storeChecked(x expr, v any) { fr.store(x, v) }

func (fr *frame) store(x expr, v any) {
	switch e := x.(type) {
	case *nameExpr:
		fr.slots[e.slot] = v
	case *indexExpr:
		arr := fr.eval(e.x)
		a, ok := arr.(*jarray)
		if !ok {
			throwNPE()
		}
		a.vals[a.index(fr.eval(e.idx))] = coerce(v, a.elem)
	default:
		panic(&UnsupportedError{Line: x.exprLine(), Construct: "assignment to a field"})
	}
}

// binop applies a binary operator other than && and || to two values.
func binop(op string, l, r any, num *jtype) any {
	switch op {
	case "==", "!=":
		eq := false
		switch {
		case isNum(l) && isNum(r):
			eq = compareNumEq(l, r)
		case l == nil || r == nil:
			eq = l == nil && r == nil
		default:
			eq = identical(l, r)
		}
		if op == "==" {
			return eq
		}
		return !eq
	case "<", ">", "<=", ">=":
		if l == nil || r == nil {
			throwNPE()
		}
		return compareOp(op, l, r)
	case "&", "|", "^":
		if lb, ok := l.(bool); ok {
			rb, ok := r.(bool)
			if !ok {
				throwNPE()
			}
			switch op {
			case "&":
				return lb && rb
			case "|":
				return lb || rb
			}
			return lb != rb
		}
	}
	if l == nil || r == nil {
		throwNPE()
	}
	return arith(op, l, r)
}

func compareOp(op string, l, r any) bool {
	lf, rf, isFloat := floatPair(l, r)
	if isFloat {
		switch op {
		case "<":
			return lf < rf
		case ">":
			return lf > rf
		case "<=":
			return lf <= rf
		}
		return lf >= rf
	}
	a, b := toInt64(l), toInt64(r)
	switch op {
	case "<":
		return a < b
	case ">":
		return a > b
	case "<=":
		return a <= b
	}
	return a >= b
}

func compareNumEq(l, r any) bool {
	lf, rf, isFloat := floatPair(l, r)
	if isFloat {
		return lf == rf
	}
	return toInt64(l) == toInt64(r)
}

// floatPair converts two numbers to float64 when either is floating
// point (float operands compare as float).
func floatPair(l, r any) (float64, float64, bool) {
	_, lf := l.(float64)
	_, lf32 := l.(float32)
	_, rf := r.(float64)
	_, rf32 := r.(float32)
	if lf || lf32 || rf || rf32 {
		if (lf32 || !lf) && (rf32 || !rf) && (lf32 || rf32) {
			// float arithmetic: both as float32
			return float64(toFloat32(l)), float64(toFloat32(r)), true
		}
		return toFloat64(l), toFloat64(r), true
	}
	return 0, 0, false
}

// numKind returns the promoted kind of a numeric value: "int" for byte,
// short, char and int.
func numKind(v any) string {
	switch v.(type) {
	case int64:
		return "long"
	case float32:
		return "float"
	case float64:
		return "double"
	}
	return "int"
}

func promotedKind(l, r any) string {
	kl, kr := numKind(l), numKind(r)
	for _, k := range []string{"double", "float", "long"} {
		if kl == k || kr == k {
			return k
		}
	}
	return "int"
}

// arith applies an arithmetic, bitwise or shift operator to two
// non-null numbers, with Java's promotion and overflow.
func arith(op string, l, r any) any {
	if !isNum(l) || !isNum(r) {
		panic(&javaThrow{newException("ClassCastException", "operands are not numbers")})
	}
	switch op {
	case "<<", ">>", ">>>":
		n := toInt64(r)
		if numKind(l) == "long" {
			a := toInt64(l)
			s := uint(n & 63)
			switch op {
			case "<<":
				return a << s
			case ">>":
				return a >> s
			}
			return int64(uint64(a) >> s)
		}
		a := int32(toInt64(l))
		s := uint(n & 31)
		switch op {
		case "<<":
			return a << s
		case ">>":
			return a >> s
		}
		return int32(uint32(a) >> s)
	}
	switch promotedKind(l, r) {
	case "double":
		if v, ok := floatArith(op, toFloat64(l), toFloat64(r)); ok {
			return v
		}
	case "float":
		if v, ok := floatArith(op, toFloat32(l), toFloat32(r)); ok {
			return v
		}
	case "long":
		if v, ok := integerArith(op, toInt64(l), toInt64(r)); ok {
			return v
		}
	default:
		if v, ok := integerArith(op, int32(toInt64(l)), int32(toInt64(r))); ok {
			return v
		}
	}
	panic(&javaThrow{newException("ClassCastException", "bad operator "+op)})
}

// floatArith applies a binary operator of Java's float or double
// arithmetic (IEEE 754: division by zero gives an infinity or NaN, % is
// fmod's remainder, computed in double and rounded back for float). ok is
// false for an operator it does not know.
func floatArith[T float32 | float64](op string, a, b T) (v any, ok bool) {
	switch op {
	case "+":
		return a + b, true
	case "-":
		return a - b, true
	case "*":
		return a * b, true
	case "/":
		return a / b, true
	case "%":
		return T(math.Mod(float64(a), float64(b))), true
	}
	return nil, false
}

// integerArith applies a binary operator of Java's int or long arithmetic:
// + - * wrap on overflow (as Go's fixed-size integers do), / and % throw
// ArithmeticException on a zero divisor, and MIN / -1 is MIN as in Java.
// ok is false for an operator it does not know.
func integerArith[T int32 | int64](op string, a, b T) (v any, ok bool) {
	switch op {
	case "+":
		return a + b, true
	case "-":
		return a - b, true
	case "*":
		return a * b, true
	case "/":
		if b == 0 {
			throwJava("ArithmeticException", "/ by zero")
		}
		return a / b, true
	case "%":
		if b == 0 {
			throwJava("ArithmeticException", "/ by zero")
		}
		return a % b, true
	case "&":
		return a & b, true
	case "|":
		return a | b, true
	case "^":
		return a ^ b, true
	}
	return nil, false
}

func negate(v any) any {
	switch n := v.(type) {
	case nil:
		throwNPE()
	case float64:
		return -n
	case float32:
		return -n
	case int64:
		return -n
	}
	if !isNum(v) {
		throwNPE()
	}
	return -int32(toInt64(v))
}

func promoteUnary(v any) any {
	switch v.(type) {
	case nil:
		throwNPE()
	case float64, float32, int64:
		return v
	}
	return int32(toInt64(v))
}

func bitNot(v any) any {
	switch n := v.(type) {
	case nil:
		throwNPE()
	case int64:
		return ^n
	}
	return ^int32(toInt64(v))
}
