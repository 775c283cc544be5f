package javaudf

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// parser is a recursive-descent parser over the tokens of a body. It
// backtracks (by resetting p.i) to tell declarations from expressions and
// casts from parenthesized expressions. Problems are raised as panics of
// *Problem or *UnsupportedError and recovered by parseBody.
type parser struct {
	toks  []token
	i     int
	depth int
	// classMode is set for the source of a whole class (VerifyClass),
	// whose members may be methods and member classes, and whose
	// expressions may create anonymous classes.
	classMode bool
}

// enter counts one level of nesting and refuses bodies nested deeper than
// maxDepth; the caller defers p.leave().
func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.unsupported(p.peek(), "nesting deeper than 200 levels")
	}
}

func (p *parser) leave() { p.depth-- }

// parseBody parses the statements of a method body.
//
// A body may close the generated method early and declare class members
// after it (UFVerifierTest does, to reach the byte-code verifier); those
// members come back as the verifier's messages in members.
func parseBody(src string) (stmts []stmt, members []string, err error) {
	toks, lerr := lex(src)
	if lerr != nil {
		return nil, nil, lexFailure(lerr)
	}
	p := &parser{toks: toks}
	defer func() {
		if r := recover(); r != nil {
			err = parseFailure(r)
		}
	}()
	for p.peek().kind != tEOF {
		if p.isOp("}") {
			p.i++
			members = p.members()
			break
		}
		stmts = append(stmts, p.statement())
	}
	return stmts, members, nil
}

// members parses class members after a body that closed the generated
// method, up to the end of the source (where the template's closing brace
// ends the last member), and returns the verifier's messages about them.
func (p *parser) members() []string {
	errs := map[string]bool{}
	instanceInit, clinit := memberComplaints(p.classBody(true), errs)
	if instanceInit {
		// The generated constructor holds the instance initializers.
		errs["initializer declared"] = true
	}
	if clinit {
		errs["static initializer declared"] = true
	}
	return sortedComplaints(errs)
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) isOp(s string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == s
}

func (p *parser) isKw(s string) bool {
	t := p.peek()
	return t.kind == tKeyword && t.text == s
}

func (p *parser) acceptOp(s string) bool {
	if p.isOp(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) acceptKw(s string) bool {
	if p.isKw(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) fail(t token, msg string) {
	panic(&Problem{Line: t.line, Msg: msg})
}

func (p *parser) unsupported(t token, what string) {
	panic(&UnsupportedError{Line: t.line, Construct: what})
}

func (p *parser) expectOp(s string) token {
	t := p.peek()
	if t.kind == tOp && t.text == s {
		p.i++
		return t
	}
	if t.kind == tEOF {
		prev := p.toks[max(p.i-1, 0)]
		p.fail(prev, fmt.Sprintf("Syntax error, insert \"%s\" to complete %s", s, completeWhat(s)))
	}
	p.fail(t, fmt.Sprintf("Syntax error on token \"%s\", %s expected", tokText(t), s))
	return t
}

func completeWhat(s string) string {
	switch s {
	case ";":
		return "BlockStatements"
	case ")":
		return "Expression"
	case "}":
		return "Block"
	}
	return "Statement"
}

func tokText(t token) string {
	if t.kind == tEOF {
		return "EOF"
	}
	return t.text
}

func (p *parser) ident() string {
	t := p.peek()
	if t.kind != tIdent {
		p.fail(t, fmt.Sprintf("Syntax error on token \"%s\", Identifier expected", tokText(t)))
	}
	p.i++
	return t.text
}

// statement parses one block statement (a declaration or a statement).
func (p *parser) statement() stmt {
	p.enter()
	defer p.leave()
	t := p.peek()
	line := t.line
	if t.kind == tOp {
		switch t.text {
		case "{":
			return p.block()
		case ";":
			p.i++
			return &emptyStmt{pos{line}}
		case "@":
			p.unsupported(t, "annotations")
		}
	}
	if t.kind == tKeyword {
		switch t.text {
		case "if":
			p.i++
			p.expectOp("(")
			c := p.expression()
			p.expectOp(")")
			then := p.statement()
			var els stmt
			if p.acceptKw("else") {
				els = p.statement()
			}
			return &ifStmt{pos{line}, c, then, els}
		case "while":
			p.i++
			p.expectOp("(")
			c := p.expression()
			p.expectOp(")")
			return &whileStmt{pos{line}, c, p.statement()}
		case "do":
			p.i++
			body := p.statement()
			if !p.acceptKw("while") {
				p.fail(p.peek(), "Syntax error, insert \"while ( Expression ) ;\" to complete DoStatement")
			}
			p.expectOp("(")
			c := p.expression()
			p.expectOp(")")
			p.expectOp(";")
			return &doStmt{pos{line}, body, c}
		case "for":
			return p.forStatement()
		case "return":
			p.i++
			var x expr
			if !p.isOp(";") {
				x = p.expression()
			}
			p.expectOp(";")
			return &returnStmt{pos{line}, x}
		case "throw":
			p.i++
			x := p.expression()
			p.expectOp(";")
			return &throwStmt{pos{line}, x}
		case "break", "continue":
			p.i++
			label := ""
			if p.peek().kind == tIdent {
				label = p.next().text
			}
			p.expectOp(";")
			if t.text == "break" {
				return &breakStmt{pos{line}, label}
			}
			return &continueStmt{pos{line}, label}
		case "try":
			return p.tryStatement()
		case "switch":
			return p.switchStatement()
		case "synchronized":
			p.i++
			p.expectOp("(")
			x := p.expression()
			p.expectOp(")")
			return &syncStmt{pos{line}, x, p.block()}
		case "class", "interface", "enum", "abstract", "static", "strictfp":
			p.unsupported(t, "local class declarations")
		case "assert":
			p.unsupported(t, "assert")
		case "final":
			p.i++
			return p.localVar(p.typ(), line, true)
		case "else":
			p.fail(t, "Syntax error on token \"else\", delete this token")
		case "case", "default", "catch", "finally":
			p.fail(t, fmt.Sprintf("Syntax error on token \"%s\", delete this token", t.text))
		}
	}
	if t.kind == tIdent && p.peekAt(1).kind == tOp && p.peekAt(1).text == ":" {
		p.i += 2
		return &labeledStmt{pos{line}, t.text, p.statement()}
	}
	// A declaration starts with a type followed by an identifier.
	if p.startsType() {
		save := p.i
		if tr, ok := p.tryType(); ok && p.peek().kind == tIdent {
			k := p.peekAt(1)
			if k.kind == tOp && (k.text == "=" || k.text == ";" || k.text == "," || k.text == "[") {
				return p.localVar(tr, line, true)
			}
			if k.kind == tEOF {
				p.i++
				p.fail(k, "Syntax error, insert \";\" to complete BlockStatements")
			}
		}
		p.i = save
	}
	x := p.expression()
	if _, isName := x.(*nameExpr); isName && p.peek().kind == tEOF {
		// A lone name is read as the type of a declaration.
		panic(&CompileError{Problems: []Problem{
			{Line: t.line, Msg: "Syntax error, insert \"VariableDeclarators\" to complete LocalVariableDeclaration"},
			{Line: t.line, Msg: "Syntax error, insert \";\" to complete BlockStatements"},
		}})
	}
	if tr := exprTypeRef(x); tr != nil && p.isOp(";") {
		// A lone (qualified) name is read as the type of a declaration
		// missing its declarators.
		panic(&CompileError{Problems: []Problem{
			{Line: t.line, Msg: "Syntax error, insert \"VariableDeclarators\" to complete LocalVariableDeclaration"},
			{Line: t.line, Msg: tr.name + " cannot be resolved to a type"},
		}})
	}
	switch x.(type) {
	case *assignExpr, *incDecExpr, *callExpr, *newExpr:
	default:
		if p.isOp(";") || p.peek().kind == tEOF {
			if p.peek().kind == tEOF {
				p.fail(p.toks[p.i-1], "Syntax error, insert \"AssignmentOperator Expression\" to complete Expression")
			}
			p.fail(p.toks[p.i-1], "Syntax error, insert \"AssignmentOperator Expression\" to complete Expression")
		}
	}
	p.expectOp(";")
	return &exprStmt{pos{line}, x}
}

func (p *parser) block() *blockStmt {
	open := p.expectOp("{")
	b := &blockStmt{pos: pos{open.line}}
	for !p.isOp("}") {
		if p.peek().kind == tEOF {
			p.fail(p.toks[p.i-1], "Syntax error, insert \"}\" to complete Block")
		}
		b.stmts = append(b.stmts, p.statement())
	}
	p.i++
	return b
}

func (p *parser) localVar(tr *typeRef, line int, semi bool) *localVarStmt {
	s := &localVarStmt{pos: pos{line}, typ: tr}
	for {
		v := &varDecl{name: p.ident(), slot: -1}
		for p.acceptOp("[") {
			p.expectOp("]")
			v.dims++
		}
		if p.acceptOp("=") {
			if p.isOp("{") {
				v.init = p.arrayInit()
			} else {
				v.init = p.expression()
			}
		}
		s.vars = append(s.vars, v)
		if !p.acceptOp(",") {
			break
		}
	}
	if semi {
		p.expectOp(";")
	}
	return s
}

func (p *parser) arrayInit() *arrayLit {
	p.enter()
	defer p.leave()
	open := p.expectOp("{")
	a := &arrayLit{pos: pos{open.line}}
	for !p.isOp("}") {
		if p.isOp("{") {
			a.elems = append(a.elems, p.arrayInit())
		} else {
			a.elems = append(a.elems, p.expression())
		}
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp("}")
	return a
}

func (p *parser) forStatement() stmt {
	line := p.next().line
	p.expectOp("(")
	// Enhanced for: for (T x : expr)
	save := p.i
	p.acceptKw("final")
	if p.startsType() {
		if tr, ok := p.tryType(); ok && p.peek().kind == tIdent && p.peekAt(1).kind == tOp && p.peekAt(1).text == ":" {
			name := p.next().text
			p.i++
			x := p.expression()
			p.expectOp(")")
			return &foreachStmt{pos{line}, tr, &varDecl{name: name, slot: -1}, x, p.statement()}
		}
	}
	p.i = save
	f := &forStmt{pos: pos{line}}
	if !p.isOp(";") {
		p.acceptKw("final")
		decl := false
		if p.startsType() {
			s2 := p.i
			if tr, ok := p.tryType(); ok && p.peek().kind == tIdent {
				f.init = []stmt{p.localVar(tr, line, false)}
				decl = true
			} else {
				p.i = s2
			}
		}
		if !decl {
			for {
				x := p.expression()
				f.init = append(f.init, &exprStmt{pos{x.exprLine()}, x})
				if !p.acceptOp(",") {
					break
				}
			}
		}
	}
	p.expectOp(";")
	if !p.isOp(";") {
		f.cond = p.expression()
	}
	p.expectOp(";")
	if !p.isOp(")") {
		for {
			f.update = append(f.update, p.expression())
			if !p.acceptOp(",") {
				break
			}
		}
	}
	p.expectOp(")")
	f.body = p.statement()
	return f
}

func (p *parser) tryStatement() stmt {
	t := p.next()
	if p.isOp("(") {
		p.unsupported(t, "try-with-resources")
	}
	s := &tryStmt{pos: pos{t.line}, body: p.block()}
	for p.acceptKw("catch") {
		p.expectOp("(")
		p.acceptKw("final")
		c := &catchClause{}
		c.types = append(c.types, p.typ())
		for p.acceptOp("|") {
			c.types = append(c.types, p.typ())
		}
		c.v = &varDecl{name: p.ident(), slot: -1}
		p.expectOp(")")
		c.body = p.block()
		s.catches = append(s.catches, c)
	}
	if p.acceptKw("finally") {
		s.finally = p.block()
	}
	if len(s.catches) == 0 && s.finally == nil {
		p.fail(p.toks[p.i-1], "Syntax error, insert \"Finally\" to complete BlockStatements")
	}
	return s
}

func (p *parser) switchStatement() stmt {
	t := p.next()
	p.expectOp("(")
	s := &switchStmt{pos: pos{t.line}, x: p.expression()}
	p.expectOp(")")
	p.expectOp("{")
	var cur *switchCase
	for !p.acceptOp("}") {
		switch {
		case p.acceptKw("case"):
			if cur == nil || len(cur.body) > 0 {
				cur = &switchCase{}
				s.cases = append(s.cases, cur)
			}
			cur.labels = append(cur.labels, p.ternary())
			if p.isOp("->") {
				p.unsupported(p.peek(), "switch rules (case ... ->)")
			}
			p.expectOp(":")
		case p.acceptKw("default"):
			if cur == nil || len(cur.body) > 0 {
				cur = &switchCase{}
				s.cases = append(s.cases, cur)
			}
			cur.isDef = true
			p.expectOp(":")
		default:
			if cur == nil {
				p.fail(p.peek(), "Syntax error, insert \"case\" to complete SwitchLabel")
			}
			if p.peek().kind == tEOF {
				p.fail(p.toks[p.i-1], "Syntax error, insert \"}\" to complete SwitchBlock")
			}
			cur.body = append(cur.body, p.statement())
		}
	}
	return s
}

var primitiveNames = map[string]bool{
	"int": true, "long": true, "short": true, "byte": true, "char": true, "float": true,
	"double": true, "boolean": true, "void": true,
}

// startsType reports whether the next token may start a type.
func (p *parser) startsType() bool {
	t := p.peek()
	return t.kind == tIdent || (t.kind == tKeyword && primitiveNames[t.text])
}

// tryType parses a type if one is next, else restores the position.
func (p *parser) tryType() (tr *typeRef, ok bool) {
	save := p.i
	defer func() {
		if r := recover(); r != nil {
			if _, isProb := r.(*Problem); !isProb {
				panic(r)
			}
			p.i = save
			tr, ok = nil, false
		}
	}()
	return p.typ(), true
}

// typ parses a type: a primitive, or a qualified name with type arguments,
// then array dimensions.
func (p *parser) typ() *typeRef {
	p.enter()
	defer p.leave()
	t := p.peek()
	tr := &typeRef{line: t.line}
	if t.kind == tKeyword && primitiveNames[t.text] {
		p.i++
		tr.name = t.text
	} else {
		tr.name = p.ident()
		for p.isOp(".") && p.peekAt(1).kind == tIdent {
			p.i++
			tr.name += "." + p.next().text
		}
		if p.isOp("<") {
			p.i++
			if p.isOp(">") { // diamond
				p.i++
				tr.args = []*typeRef{}
			} else {
				for {
					if p.acceptOp("?") {
						w := &typeRef{name: "?", line: t.line}
						if p.acceptKw("extends") || p.acceptKw("super") {
							w.args = []*typeRef{p.typ()}
						}
						tr.args = append(tr.args, w)
					} else {
						tr.args = append(tr.args, p.typ())
					}
					if !p.acceptOp(",") {
						break
					}
				}
				p.expectOp(">")
			}
		}
	}
	for p.isOp("[") && p.peekAt(1).kind == tOp && p.peekAt(1).text == "]" {
		p.i += 2
		tr.dims++
	}
	return tr
}

// expression parses an expression (assignment level).
func (p *parser) expression() expr {
	p.enter()
	defer p.leave()
	l := p.ternary()
	t := p.peek()
	if t.kind == tOp {
		switch t.text {
		case "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=":
			p.i++
			return p.assign(t, t.text, l)
		case ">":
			// >>= and >>>= arrive as separate tokens.
			if op, n := p.joinedGT(); op == ">>=" || op == ">>>=" {
				p.i += n
				return p.assign(t, op, l)
			}
		case "->":
			p.unsupported(t, "lambda expressions")
		}
	}
	return l
}

func (p *parser) assign(t token, op string, l expr) expr {
	switch l.(type) {
	case *nameExpr, *fieldExpr, *indexExpr:
	default:
		p.fail(t, "The left-hand side of an assignment must be a variable")
	}
	var r expr
	if op == "=" && p.isOp("{") {
		p.fail(p.peek(), "Array constants can only be used in initializers")
	}
	r = p.expression()
	return &assignExpr{pos: pos{t.line}, op: op, l: l, r: r}
}

// joinedGT returns the operator formed by adjacent '>' (and '=') tokens
// at the position, and how many tokens it spans.
func (p *parser) joinedGT() (string, int) {
	op := ">"
	n := 1
	for {
		nt := p.peekAt(n)
		prev := p.peekAt(n - 1)
		if nt.kind != tOp || nt.start != prev.end {
			break
		}
		if nt.text == ">" && !strings.Contains(op, "=") && len(op) < 3 {
			op += ">"
			n++
			continue
		}
		if nt.text == "=" && !strings.Contains(op, "=") {
			op += "="
			n++
			continue
		}
		if nt.text == "==" && op == ">" {
			// ">==" does not occur; leave it.
			break
		}
		break
	}
	return op, n
}

func (p *parser) ternary() expr {
	c := p.binary(0)
	if t := p.peek(); t.kind == tOp && t.text == "?" {
		p.i++
		a := p.ternary()
		p.expectOp(":")
		var b expr
		if p.isLambdaStart() {
			p.unsupported(p.peek(), "lambda expressions")
		}
		b = p.ternary()
		return &condExpr{pos: pos{t.line}, c: c, a: a, b: b}
	}
	return c
}

func (p *parser) isLambdaStart() bool {
	return p.peek().kind == tIdent && p.peekAt(1).kind == tOp && p.peekAt(1).text == "->"
}

// binary operator precedence levels, lowest first.
var binLevels = [][]string{
	{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", ">", "<=", ">=", "instanceof"},
	{"<<", ">>", ">>>"}, {"+", "-"}, {"*", "/", "%"},
}

// binOp returns the binary operator at the position (joining '>' tokens)
// and its token count, or "" when none.
func (p *parser) binOp() (string, int) {
	t := p.peek()
	if t.kind == tKeyword && t.text == "instanceof" {
		return "instanceof", 1
	}
	if t.kind != tOp {
		return "", 0
	}
	if t.text == ">" {
		op, n := p.joinedGT()
		if strings.HasSuffix(op, "=") && op != ">=" {
			return "", 0 // >>= is an assignment
		}
		return op, n
	}
	return t.text, 1
}

func (p *parser) binary(level int) expr {
	if level == len(binLevels) {
		return p.unary()
	}
	l := p.binary(level + 1)
	for {
		op, n := p.binOp()
		found := false
		for _, o := range binLevels[level] {
			if o == op {
				found = true
			}
		}
		if !found {
			return l
		}
		t := p.peek()
		p.i += n
		if op == "instanceof" {
			p.acceptKw("final")
			l = &instanceofExpr{pos: pos{t.line}, x: l, typ: p.typ()}
			continue
		}
		r := p.binary(level + 1)
		l = &binaryExpr{pos: pos{t.line}, op: op, l: l, r: r}
	}
}

func (p *parser) unary() expr {
	p.enter()
	defer p.leave()
	t := p.peek()
	if t.kind == tOp {
		switch t.text {
		case "+", "-":
			p.i++
			// -2147483648 and -9223372036854775808L are literals.
			if t.text == "-" {
				if n := p.peek(); n.kind == tInt {
					if v, ok := p.intLiteral(n, true); ok {
						p.i++
						return p.postfix(&litExpr{pos{n.line}, v})
					}
				}
			}
			return &unaryExpr{pos{t.line}, t.text, p.unary()}
		case "!", "~":
			p.i++
			return &unaryExpr{pos{t.line}, t.text, p.unary()}
		case "++", "--":
			p.i++
			x := p.unary()
			return &incDecExpr{pos: pos{t.line}, op: t.text, prefix: true, x: x}
		case "(":
			if c := p.tryCast(); c != nil {
				return c
			}
		}
	}
	return p.postfixOps(p.postfix(p.primary()))
}

func (p *parser) postfixOps(x expr) expr {
	for {
		t := p.peek()
		if t.kind == tOp && (t.text == "++" || t.text == "--") {
			p.i++
			x = &incDecExpr{pos: pos{t.line}, op: t.text, x: x}
			continue
		}
		return x
	}
}

// tryCast parses (Type) unary if the parenthesis holds a cast.
func (p *parser) tryCast() expr {
	save := p.i
	open := p.next()
	if !p.startsType() {
		p.i = save
		return nil
	}
	prim := p.peek().kind == tKeyword
	tr, ok := p.tryType()
	if !ok || !p.isOp(")") {
		p.i = save
		return nil
	}
	p.i++
	n := p.peek()
	castable := false
	if prim && tr.dims == 0 {
		castable = !(n.kind == tOp && (n.text == ")" || n.text == ";" || n.text == "." || n.text == ","))
	} else {
		switch n.kind {
		case tIdent, tInt, tFloat, tChar, tString:
			castable = true
		case tKeyword:
			castable = n.text == "new" || n.text == "this" || n.text == "true" || n.text == "false" ||
				n.text == "null" || n.text == "super" || primitiveNames[n.text]
		case tOp:
			castable = n.text == "(" || n.text == "!" || n.text == "~"
		}
	}
	if !castable {
		p.i = save
		return nil
	}
	if p.isLambdaStart() {
		p.unsupported(p.peek(), "lambda expressions")
	}
	return &castExpr{pos: pos{open.line}, typ: tr, x: p.unary()}
}

func (p *parser) intLiteral(t token, neg bool) (any, bool) {
	s := strings.ReplaceAll(t.text, "_", "")
	long := strings.HasSuffix(s, "l") || strings.HasSuffix(s, "L")
	if long {
		s = s[:len(s)-1]
	}
	base := 10
	switch {
	case len(s) > 1 && (s[1] == 'x' || s[1] == 'X'):
		base, s = 16, s[2:]
	case len(s) > 1 && (s[1] == 'b' || s[1] == 'B'):
		base, s = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	v, ok := new(big.Int).SetString(s, base)
	if !ok {
		p.fail(t, "Invalid number literal")
	}
	limitBits := 32
	if long {
		limitBits = 64
	}
	if base == 10 {
		lim := new(big.Int).Lsh(big.NewInt(1), uint(limitBits-1))
		if neg {
			if v.Cmp(lim) > 0 {
				p.fail(t, fmt.Sprintf("The literal %s of type %s is out of range ", t.text, map[bool]string{true: "long", false: "int"}[long]))
			}
			v.Neg(v)
		} else if v.Cmp(lim) >= 0 {
			if v.Cmp(lim) == 0 && !neg {
				// Only valid as the operand of unary minus.
			}
			p.fail(t, fmt.Sprintf("The literal %s of type %s is out of range ", t.text, map[bool]string{true: "long", false: "int"}[long]))
		}
	} else {
		if v.BitLen() > limitBits {
			p.fail(t, fmt.Sprintf("The literal %s of type %s is out of range ", t.text, map[bool]string{true: "long", false: "int"}[long]))
		}
		if neg {
			return nil, false
		}
		u := v.Uint64()
		if long {
			return int64(u), true
		}
		return int32(uint32(u)), true
	}
	if long {
		return v.Int64(), true
	}
	return int32(v.Int64()), true
}

func (p *parser) primary() expr {
	t := p.next()
	line := pos{t.line}
	switch t.kind {
	case tInt:
		v, _ := p.intLiteral(t, false)
		return &litExpr{line, v}
	case tFloat:
		s := strings.ReplaceAll(t.text, "_", "")
		single := strings.HasSuffix(s, "f") || strings.HasSuffix(s, "F")
		s = strings.TrimRight(s, "fFdD")
		if single {
			f, err := strconv.ParseFloat(s, 32)
			if err != nil && !isRangeErr(err) || math.IsInf(f, 0) {
				p.fail(t, fmt.Sprintf("The literal %s of type float is out of range ", t.text))
			}
			return &litExpr{line, float32(f)}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !isRangeErr(err) || math.IsInf(f, 0) {
			p.fail(t, fmt.Sprintf("The literal %s of type double is out of range ", t.text))
		}
		return &litExpr{line, f}
	case tString:
		return &litExpr{line, t.str}
	case tChar:
		return &litExpr{line, jchar([]rune(t.str)[0])}
	case tIdent:
		if p.isOp("(") {
			return &callExpr{pos: line, name: t.text, args: p.arguments()}
		}
		if p.isOp("->") {
			p.unsupported(t, "lambda expressions")
		}
		return &nameExpr{pos: line, name: t.text, slot: -1}
	case tKeyword:
		switch t.text {
		case "true":
			return &litExpr{line, true}
		case "false":
			return &litExpr{line, false}
		case "null":
			return &litExpr{line, nil}
		case "new":
			return p.creator(t)
		case "this":
			return &nameExpr{pos: line, name: "this", slot: -1}
		case "super":
			return &nameExpr{pos: line, name: "super", slot: -1}
		}
		if primitiveNames[t.text] {
			// int.class, int[].class
			p.i--
			tr := p.typ()
			if p.acceptOp(".") && p.acceptKw("class") {
				return &classLitExpr{line, tr}
			}
			p.fail(t, fmt.Sprintf("Syntax error on token \"%s\", delete this token", t.text))
		}
	case tOp:
		if t.text == "(" {
			if p.peek().kind == tOp && p.peek().text == ")" || p.isLambdaStart() && false {
				p.unsupported(t, "lambda expressions")
			}
			x := p.expression()
			if p.isOp(",") {
				p.unsupported(t, "lambda expressions")
			}
			p.expectOp(")")
			if p.isOp("->") {
				p.unsupported(t, "lambda expressions")
			}
			return x
		}
	case tEOF:
		p.fail(p.toks[max(p.i-1, 0)], "Syntax error, insert \"Expression\" to complete Expression")
	}
	p.fail(t, fmt.Sprintf("Syntax error on token \"%s\", delete this token", tokText(t)))
	return nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func (p *parser) arguments() []expr {
	p.expectOp("(")
	var args []expr
	for !p.isOp(")") {
		if p.isLambdaStart() {
			p.unsupported(p.peek(), "lambda expressions")
		}
		args = append(args, p.expression())
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return args
}

func (p *parser) creator(nt token) expr {
	line := pos{nt.line}
	t := p.peek()
	tr := &typeRef{line: t.line}
	if t.kind == tKeyword && primitiveNames[t.text] {
		p.i++
		tr.name = t.text
	} else {
		tr = p.typ()
		if tr.dims > 0 {
			// new T[] {...}
			if !p.isOp("{") {
				p.fail(p.peek(), "Syntax error, insert \"ArrayInitializer\" to complete ArrayCreationWithArrayInitializer")
			}
			elem := *tr
			elem.dims = 0
			return &newArrayExpr{pos: line, elem: &elem, more: tr.dims, init: p.arrayInit()}
		}
	}
	if p.isOp("[") {
		a := &newArrayExpr{pos: line, elem: tr}
		for p.isOp("[") {
			p.i++
			if p.isOp("]") {
				p.i++
				a.more++
				continue
			}
			if a.more > 0 {
				p.fail(p.peek(), "Cannot specify an array dimension after an empty dimension")
			}
			a.dims = append(a.dims, p.expression())
			p.expectOp("]")
		}
		if p.isOp("{") {
			if len(a.dims) > 0 {
				p.fail(p.peek(), "Cannot define dimension expressions when an array initializer is provided")
			}
			a.init = p.arrayInit()
		} else if len(a.dims) == 0 {
			p.fail(p.peek(), "Must provide either dimension expressions or an array initializer")
		}
		return a
	}
	if primitiveNames[tr.name] {
		p.fail(p.peek(), "Syntax error, insert \"Dimensions\" to complete ArrayType")
	}
	args := p.arguments()
	if p.isOp("{") {
		if !p.classMode {
			p.unsupported(p.peek(), "anonymous classes")
		}
		// An anonymous class compiles to a class of its own, which the
		// verifier does not read: its body is only parsed.
		open := p.next()
		return &newExpr{pos: line, typ: tr, args: args, anon: &classMember{pos: pos{open.line}, members: p.classBody(false)}}
	}
	return &newExpr{pos: line, typ: tr, args: args}
}

// postfix parses member accesses, calls and indexing after a primary.
func (p *parser) postfix(x expr) expr {
	for {
		t := p.peek()
		if t.kind != tOp {
			return x
		}
		switch t.text {
		case ".":
			p.i++
			n := p.peek()
			if n.kind == tKeyword && n.text == "class" {
				p.i++
				tr := exprTypeRef(x)
				if tr == nil {
					p.fail(n, "Syntax error on token \"class\", Identifier expected")
				}
				x = &classLitExpr{pos{n.line}, tr}
				continue
			}
			if n.kind == tKeyword && (n.text == "new" || n.text == "this" || n.text == "super") {
				p.unsupported(n, "qualified "+n.text)
			}
			if n.kind == tOp && n.text == "<" {
				p.unsupported(n, "explicit type arguments")
			}
			name := p.ident()
			if p.isOp("(") {
				x = &callExpr{pos: pos{n.line}, recv: x, name: name, args: p.arguments()}
			} else {
				x = &fieldExpr{pos: pos{n.line}, x: x, name: name}
			}
		case "[":
			p.i++
			if p.isOp("]") {
				// T[].class
				p.i++
				tr := exprTypeRef(x)
				dims := 1
				for p.acceptOp("[") {
					p.expectOp("]")
					dims++
				}
				if tr != nil && p.acceptOp(".") && p.acceptKw("class") {
					tr.dims = dims
					x = &classLitExpr{pos{t.line}, tr}
					continue
				}
				p.fail(t, "Syntax error on token \"[\", Expression expected after this token")
			}
			idx := p.expression()
			p.expectOp("]")
			x = &indexExpr{pos{t.line}, x, idx}
		case "::":
			p.unsupported(t, "method references")
		default:
			return x
		}
	}
}

// exprTypeRef turns a name or qualified name expression into a typeRef.
func exprTypeRef(x expr) *typeRef {
	switch e := x.(type) {
	case *nameExpr:
		return &typeRef{name: e.name, line: e.line}
	case *fieldExpr:
		if tr := exprTypeRef(e.x); tr != nil {
			tr.name += "." + e.name
			return tr
		}
	}
	return nil
}

// lexFailure is the CompileError of a lexing error: one problem at its line.
func lexFailure(err error) error {
	le := err.(*lexError)
	return &CompileError{Problems: []Problem{{Line: le.line, Msg: le.msg}}}
}

// parseFailure is the error a parser's panic r stands for: a *Problem is a
// one-problem CompileError, and an *UnsupportedError or a *CompileError is
// returned as it is. Any other value is not the parser's and panics again.
func parseFailure(r any) error {
	switch e := r.(type) {
	case *Problem:
		return &CompileError{Problems: []Problem{*e}}
	case *UnsupportedError:
		return e
	case *CompileError:
		return e
	default:
		panic(r)
	}
}
