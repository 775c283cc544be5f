package parser

import "fmt"

// Expressions follow Cassandra's term and selector rules:
//
//	term      := mul (('+' | '-') mul)*
//	mul       := group (('*' | '/' | '%') group)*
//	group     := '-' simple | simple
//	simple    := constant | NULL | marker | [..] | {..} | (..) | f(args)
//	           | '(' type ')' simple | CAST '(' simple AS native ')'
//
// Selectors use the same grammar where a bare identifier is a column, plus
// count(*), writetime(c), ttl(c) and field access expr.field.
//
// Depth. An expression may be at most MaxDepth levels deep: every operator,
// parenthesis, collection or tuple literal, function call, cast, type hint,
// negation and element or field access is a level, counted on the tree the
// parser builds (a chain 1 + 1 + ... + 1 of n operators is n levels deep,
// since each operator nests the ones before it). Two counters enforce it:
// p.nest counts the parse functions active on the stack, so that a deep
// input fails before it can exhaust the stack, and p.height is the height
// of the expression the last parse function returned, so that chains,
// which the parser reads in a loop, are bounded too. Types nest under the
// same limit (frozen<list<...>>).

// MaxDepth is the deepest an expression or a type may nest (see above). No
// real statement comes near it; Cassandra 4.1's parser and compiler, which
// recurse on the JVM's 256 KiB thread stacks, fail with a StackOverflowError
// long before it on a statement nested this deep (docs/compatibility.md).
const MaxDepth = 1000

// enter counts one more active nesting level and fails past MaxDepth; leave
// undoes it.
func (p *parser) enter() error {
	p.nest++
	if p.nest > MaxDepth {
		return p.tooDeep()
	}
	return nil
}

func (p *parser) leave() { p.nest-- }

// grow records h as the height of the expression being returned and fails
// past MaxDepth.
func (p *parser) grow(h int) error {
	p.height = h
	if h > MaxDepth {
		return p.tooDeep()
	}
	return nil
}

// tooDeep is the error for an expression or type nested past MaxDepth.
func (p *parser) tooDeep() error {
	return p.errAt(fmt.Sprintf("expression nested too deeply: more than %d levels", MaxDepth))
}

// heights wraps an element parser so that it records the greatest height
// of the elements it returned in *h.
func (p *parser) heights(h *int, elem func() (Expr, error)) func() (Expr, error) {
	return func() (Expr, error) {
		e, err := elem()
		*h = max(*h, p.height)
		return e, err
	}
}

// parseTerm parses a term (no column references).
func (p *parser) parseTerm() (Expr, error) { return p.parseExpr(false) }

// parseExpr parses a term, or a selector when sel is set.
func (p *parser) parseExpr(sel bool) (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	left, err := p.parseMul(sel)
	if err != nil {
		return nil, err
	}
	h := p.height
	defer func() { p.height = h }()
	for {
		var op ArithOp
		switch p.peek().kind {
		case tPlus:
			op = OpAdd
		case tMinus:
			op = OpSub
		default:
			return left, nil
		}
		// In a term, "v + c" where c is a bare column name is UPDATE's list
		// prepend (c = v + c), not arithmetic: stop before the operator.
		if !sel && isIdentTok(p.peekAt(1)) && p.peekAt(2).kind != tLParen && p.peekAt(2).kind != tDot {
			return left, nil
		}
		p.i++
		right, err := p.parseMul(sel)
		if err != nil {
			return nil, err
		}
		if h = max(h, p.height) + 1; h > MaxDepth {
			return nil, p.tooDeep()
		}
		left = &BinaryExpr{Op: op, Left: left, Right: right}
	}
}

func (p *parser) parseMul(sel bool) (Expr, error) {
	left, err := p.parseGroup(sel)
	if err != nil {
		return nil, err
	}
	h := p.height
	defer func() { p.height = h }()
	for {
		var op ArithOp
		switch p.peek().kind {
		case tStar:
			op = OpMul
		case tSlash:
			op = OpDiv
		case tPercent:
			op = OpMod
		default:
			return left, nil
		}
		p.i++
		right, err := p.parseGroup(sel)
		if err != nil {
			return nil, err
		}
		if h = max(h, p.height) + 1; h > MaxDepth {
			return nil, p.tooDeep()
		}
		left = &BinaryExpr{Op: op, Left: left, Right: right}
	}
}

func (p *parser) parseGroup(sel bool) (Expr, error) {
	if p.peek().kind == tMinus && !(p.peekAt(1).kind == tIdent && p.peekAt(1).kw == kwInfinity) {
		p.i++
		e, err := p.parseSimple(sel)
		if err != nil {
			return nil, err
		}
		return &Neg{Expr: e}, p.grow(p.height + 1)
	}
	return p.parseSimple(sel)
}

// parseConstant parses a constant and returns nil, nil if the current token
// is not one.
func (p *parser) parseConstant() (*Constant, error) {
	t := p.peek()
	var kind ConstKind
	raw := t.text
	switch t.kind {
	case tString:
		kind = ConstString
	case tInteger:
		kind = ConstInteger
	case tFloat:
		kind = ConstFloat
	case tBoolean:
		kind = ConstBoolean
	case tUUID:
		kind = ConstUUID
	case tHex:
		kind = ConstHex
	case tDuration:
		kind = ConstDuration
	case tIdent:
		switch t.kw {
		case kwNan:
			kind, raw = ConstFloat, "NaN"
		case kwInfinity:
			kind, raw = ConstFloat, "Infinity"
		default:
			return nil, nil
		}
	case tMinus:
		if n := p.peekAt(1); n.kind == tIdent && n.kw == kwInfinity {
			p.i += 2
			p.height = 1
			return &Constant{Kind: ConstFloat, Raw: "-Infinity"}, nil
		}
		return nil, nil
	default:
		return nil, nil
	}
	p.i++
	p.height = 1
	return &Constant{Kind: kind, Raw: raw}, nil
}

// parseMarker parses ? or :name and registers it.
func (p *parser) parseMarker() (*BindMarker, error) {
	var name Ident
	if !p.accept(tQMark) {
		if err := p.expect(tColon); err != nil {
			return nil, err
		}
		id, err := p.ident()
		if err != nil {
			return nil, err
		}
		name = id
	}
	m := &BindMarker{Index: len(p.binds), Name: name}
	p.binds = append(p.binds, string(name))
	p.height = 1
	return m, nil
}

// canStartSimple reports whether t can begin a simple term or selector.
// next is the token after t: '-' begins one only before INFINITY, where
// the two make a constant (Cql.g's constant rule), so (float) -INFINITY is
// a type hint of a constant.
func canStartSimple(t, next *token) bool {
	switch t.kind {
	case tMinus:
		return next.kind == tIdent && next.kw == kwInfinity
	case tString, tInteger, tFloat, tBoolean, tUUID, tHex, tDuration, tQMark, tColon,
		tLParen, tLBracket, tLBrace, tQuotedIdent:
		return true
	case tIdent:
		return !t.kw.reserved() || t.kw == kwNull || t.kw == kwNan || t.kw == kwInfinity || t.kw == kwToken
	}
	return false
}

func (p *parser) parseSimple(sel bool) (Expr, error) {
	c, err := p.parseConstant()
	if err != nil || c != nil {
		return c, err
	}
	t := p.peek()
	switch t.kind {
	case tQMark, tColon:
		return p.parseMarker()
	case tLBracket:
		p.i++
		h := 0
		elems, err := optionalList(p, tRBracket, p.heights(&h, func() (Expr, error) { return p.parseExpr(sel) }))
		if err != nil {
			return nil, err
		}
		return &ListLit{Elems: elems}, p.grow(h + 1)
	case tLBrace:
		return p.parseBraces(sel)
	case tLParen:
		if h, ok := p.tryTypeHint(sel); ok {
			return h, nil
		}
		return p.parseTupleLit(sel)
	case tIdent, tQuotedIdent:
		if t.kind == tIdent && t.kw == kwNull {
			p.i++
			p.height = 1
			return &Constant{Kind: ConstNull, Raw: "NULL"}, nil
		}
		if t.kind == tIdent && t.kw == kwCast && p.peekAt(1).kind == tLParen {
			return p.withModifiers(sel, p.parseCast)
		}
		// fn( and ks.fn( are calls. Like ANTLR's prediction, look ahead only
		// past a token that can start one (a reserved word cannot) and past
		// the dot only when a name follows it, so that an error's snippet
		// ends where Cassandra's does (parser.far).
		if !isFunctionNameTok(t) {
			break
		}
		if p.peekAt(1).kind == tLParen || (p.peekAt(1).kind == tDot && isFunctionNameTok(p.peekAt(2)) && p.peekAt(3).kind == tLParen) {
			return p.withModifiers(sel, p.parseCall)
		}
		if sel && isIdentTok(t) {
			p.i++
			return p.selectorModifiers(&ColumnRef{Name: Ident(t.val)}, 1)
		}
		if isIdentTok(t) && p.peekAt(1).kind != tDot {
			// A name can only start a function call here; Cassandra's parser
			// decides that on the token after it, which its error names.
			return nil, p.noViableAhead()
		}
	}
	return nil, p.noViable()
}

// withModifiers parses a function call or cast with parse and, in a
// selector, the field and element selections that may follow it
// (selectionGroupWithField: max(b).x).
func (p *parser) withModifiers(sel bool, parse func(bool) (Expr, error)) (Expr, error) {
	e, err := parse(sel)
	if err != nil || !sel {
		return e, err
	}
	return p.selectorModifiers(e, p.height)
}

// selectorModifiers parses the .field and [key] selections after the
// selector e, whose nesting height is h.
func (p *parser) selectorModifiers(e Expr, h int) (Expr, error) {
	for p.peek().kind == tDot || p.peek().kind == tLBracket {
		if p.peek().kind == tLBracket {
			var err error
			p.height = 0
			if e, err = p.parseElementAccess(e); err != nil {
				return nil, err
			}
			if h = max(h, p.height) + 1; h > MaxDepth {
				return nil, p.tooDeep()
			}
			continue
		}
		if !isIdentTok(p.peekAt(1)) {
			p.i++
			return nil, p.errAtPrev()
		}
		p.i++
		f, _ := p.ident()
		e = &FieldAccess{Expr: e, Field: f}
		if h++; h > MaxDepth {
			return nil, p.tooDeep()
		}
	}
	p.height = h
	return e, nil
}

// parseElementAccess parses [key] or [from..to] after a selector.
func (p *parser) parseElementAccess(e Expr) (Expr, error) {
	p.i++ // [
	out := &ElementAccess{Expr: e}
	h := 0
	term := p.heights(&h, p.parseTerm)
	isRange := func() bool { return p.peek().kind == tDot && p.peekAt(1).kind == tDot }
	if !isRange() {
		k, err := term()
		if err != nil {
			return nil, err
		}
		out.Key = k
	}
	if isRange() {
		p.i += 2
		out.Slice, out.From, out.Key = true, out.Key, nil
		if p.peek().kind != tRBracket {
			to, err := term()
			if err != nil {
				return nil, err
			}
			out.To = to
		}
	}
	if err := p.expect(tRBracket); err != nil {
		return nil, err
	}
	p.height = h
	return out, nil
}

// errAtPrev reports "no viable alternative" at the previous token (used for
// a dangling '.', as Cassandra reports "no viable alternative at input '.'").
func (p *parser) errAtPrev() error {
	p.i--
	return p.noViable()
}

// tryTypeHint parses '(' type ')' simple if the input has that shape;
// otherwise it consumes nothing.
func (p *parser) tryTypeHint(sel bool) (Expr, bool) {
	save, nb := p.i, len(p.binds)
	p.i++
	typ, err := p.parseType()
	if err == nil && p.accept(tRParen) && canStartSimple(p.peek(), p.peekAt(1)) {
		e, err := p.parseSimple(sel)
		if err == nil && p.grow(p.height+1) == nil {
			return &TypeHint{Type: typ, Expr: e}, true
		}
	}
	p.i, p.binds = save, p.binds[:nb]
	return nil, false
}

// parseTupleLit parses (e1, e2, ...).
func (p *parser) parseTupleLit(sel bool) (*TupleLit, error) {
	h := 0
	elems, err := enclosedList(p, tLParen, tRParen, p.heights(&h, func() (Expr, error) { return p.parseExpr(sel) }))
	if err != nil {
		return nil, err
	}
	return &TupleLit{Elems: elems}, p.grow(h + 1)
}

// parseBraces parses {}, {k: v, ...}, {a, b} or {field: v, ...}.
func (p *parser) parseBraces(sel bool) (Expr, error) {
	p.i++ // {
	if p.accept(tRBrace) {
		p.height = 1
		return &EmptyBraces{}, nil
	}
	h := 0
	expr := p.heights(&h, func() (Expr, error) { return p.parseExpr(sel) })
	if isIdentTok(p.peek()) && p.peekAt(1).kind == tColon {
		fields, err := closedList(p, tRBrace, func() (UDTField, error) {
			name, err := p.ident()
			if err != nil {
				return UDTField{}, err
			}
			if err := p.expect(tColon); err != nil {
				return UDTField{}, err
			}
			v, err := expr()
			return UDTField{Name: name, Value: v}, err
		})
		if err != nil {
			return nil, err
		}
		return &UDTLit{Fields: fields}, p.grow(h + 1)
	}
	first, err := expr()
	if err != nil {
		return nil, err
	}
	if p.accept(tColon) {
		m := &MapLit{}
		k := first
		for {
			v, err := expr()
			if err != nil {
				return nil, err
			}
			m.Entries = append(m.Entries, MapEntry{Key: k, Value: v})
			if !p.accept(tComma) {
				break
			}
			if k, err = expr(); err != nil {
				return nil, err
			}
			if err := p.expect(tColon); err != nil {
				return nil, err
			}
		}
		if err := p.expect(tRBrace); err != nil {
			return nil, err
		}
		return m, p.grow(h + 1)
	}
	s := &SetLit{Elems: []Expr{first}}
	for p.accept(tComma) {
		e, err := expr()
		if err != nil {
			return nil, err
		}
		s.Elems = append(s.Elems, e)
	}
	if err := p.expect(tRBrace); err != nil {
		return nil, err
	}
	return s, p.grow(h + 1)
}

func (p *parser) parseCast(sel bool) (Expr, error) {
	p.i += 2 // CAST (
	e, err := p.parseSimpleOrSelector(sel)
	if err != nil {
		return nil, err
	}
	h := p.height + 1
	if err := p.expectKw(kwAs); err != nil {
		return nil, err
	}
	typ, err := p.parseType()
	if err != nil {
		return nil, err
	}
	if !typ.Kind.IsNative() || typ.Frozen {
		return nil, p.noViable()
	}
	if err := p.expect(tRParen); err != nil {
		return nil, err
	}
	return &Cast{Expr: e, Type: typ}, p.grow(h)
}

// parseSimpleOrSelector parses CAST's operand: a simple term, or a full
// selector in selector mode.
func (p *parser) parseSimpleOrSelector(sel bool) (Expr, error) {
	if sel {
		return p.parseExpr(true)
	}
	return p.parseSimple(false)
}

// parseCall parses [ks.]f(args), count(*), writetime(c) and ttl(c).
func (p *parser) parseCall(sel bool) (Expr, error) {
	t := p.peek()
	var ks Ident
	if p.peekAt(1).kind == tDot {
		if !isIdentTok(t) {
			return nil, p.noViable()
		}
		ks = Ident(t.val)
		p.i += 2
		t = p.peek()
	}
	if !(isIdentTok(t) || (t.kind == tIdent && t.kw == kwToken)) {
		return nil, p.noViable()
	}
	name := Ident(t.val)
	p.i += 2 // name (
	if ks == "" && t.kind == tIdent {
		switch t.kw {
		case kwCount:
			if p.accept(tStar) {
				p.height = 1
				return &FuncCall{Name: name, Star: true}, p.expect(tRParen)
			}
		case kwWritetime, kwTTL:
			if sel {
				col, err := p.ident()
				if err != nil {
					return nil, err
				}
				kind := MetaWritetime
				if t.kw == kwTTL {
					kind = MetaTTL
				}
				p.height = 1
				return &CellMeta{Kind: kind, Column: col}, p.expect(tRParen)
			}
		}
	}
	h := 0
	args, err := optionalList(p, tRParen, p.heights(&h, func() (Expr, error) { return p.parseExpr(sel) }))
	if err != nil {
		return nil, err
	}
	return &FuncCall{Keyspace: ks, Name: name, Args: args}, p.grow(h + 1)
}

// reservedTypeNames may not name user types (Cassandra's Parser.g).
var reservedTypeNames = map[string]bool{
	"byte": true, "complex": true, "enum": true, "date": true, "interval": true,
	"macaddr": true, "bitstring": true,
}

var nativeKinds = map[keyword]TypeKind{
	kwAscii: TypeAscii, kwBigint: TypeBigint, kwBlob: TypeBlob, kwBoolean: TypeBoolean,
	kwCounter: TypeCounter, kwDate: TypeDate, kwDecimal: TypeDecimal, kwDouble: TypeDouble,
	kwDuration: TypeDuration, kwFloat: TypeFloat, kwInet: TypeInet, kwInt: TypeInt,
	kwSmallint: TypeSmallint, kwText: TypeText, kwTime: TypeTime, kwTimestamp: TypeTimestamp,
	kwTimeuuid: TypeTimeuuid, kwTinyint: TypeTinyint, kwUUID: TypeUUID, kwVarchar: TypeVarchar,
	kwVarint: TypeVarint,
}

// parseType parses a CQL type.
func (p *parser) parseType() (*Type, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := p.peek()
	if t.kind == tString {
		p.i++
		c := &Constant{Kind: ConstString, Raw: t.text}
		return &Type{Kind: TypeCustom, Custom: c.Value()}, nil
	}
	if t.kind == tIdent {
		if k, ok := nativeKinds[t.kw]; ok {
			p.i++
			return &Type{Kind: k}, nil
		}
		if p.peekAt(1).kind == tLt {
			var kind TypeKind
			n := 1
			switch t.kw {
			case kwList:
				kind = TypeList
			case kwSet:
				kind = TypeSet
			case kwMap:
				kind, n = TypeMap, 2
			case kwTuple:
				kind, n = TypeTuple, -1
			case kwFrozen:
				p.i += 2
				inner, err := p.parseType()
				if err != nil {
					return nil, err
				}
				inner.Frozen = true
				return inner, p.expect(tGt)
			}
			if kind != 0 {
				p.i += 2
				typ := &Type{Kind: kind}
				for {
					param, err := p.parseType()
					if err != nil {
						return nil, err
					}
					typ.Params = append(typ.Params, param)
					if n > 0 && len(typ.Params) == n {
						break
					}
					if n > 0 {
						if err := p.expect(tComma); err != nil {
							return nil, err
						}
						continue
					}
					if !p.accept(tComma) {
						break
					}
				}
				return typ, p.expect(tGt)
			}
		}
	}
	// A user type name: [ks.]name.
	if !isIdentTok(t) {
		return nil, p.noViable()
	}
	name, err := p.tableName()
	if err != nil {
		return nil, err
	}
	if t.kind == tIdent && name.Keyspace == "" && reservedTypeNames[string(name.Name)] {
		return nil, recognition("Invalid (reserved) user type name " + string(name.Name))
	}
	return &Type{Kind: TypeUser, Name: name}, nil
}

// isFunctionNameTok reports whether t can name a function after a keyspace
// and a dot: an identifier, a quoted name or token (parseCall's names).
func isFunctionNameTok(t *token) bool {
	return isIdentTok(t) || (t.kind == tIdent && t.kw == kwToken)
}
