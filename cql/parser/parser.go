package parser

import (
	"strconv"
	"strings"
)

// Parse parses exactly one CQL statement, optionally followed by ';'
// characters. It returns a *SyntaxError (matching ErrSyntax) on bad input;
// the statement is nil then.
func Parse(cql string) (Statement, error) {
	toks, lerr := lex(cql)
	if lerr != nil {
		return nil, lerr
	}
	p := parser{src: cql, toks: toks}
	st, err := p.parseStatement()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tSemicolon {
		p.i++
	}
	if p.peek().kind != tEOF {
		return nil, p.mismatched("EOF")
	}
	return st, nil
}

// ParseScript parses a sequence of statements separated by ';' (empty
// statements are skipped). It returns the statements parsed before the first
// error together with that error.
func ParseScript(cql string) ([]Statement, error) {
	toks, lerr := lex(cql)
	if lerr != nil {
		return nil, lerr
	}
	p := parser{src: cql, toks: toks}
	var out []Statement
	for {
		for p.peek().kind == tSemicolon {
			p.i++
		}
		if p.peek().kind == tEOF {
			return out, nil
		}
		p.binds = p.binds[:0]
		st, err := p.parseStatement()
		if err != nil {
			return out, err
		}
		out = append(out, st)
		if k := p.peek().kind; k != tSemicolon && k != tEOF {
			return out, p.mismatched("';'")
		}
	}
}

// parser is a recursive-descent parser over a fully lexed token slice.
type parser struct {
	src   string
	toks  []token
	i     int
	binds []string
	// nest and height bound the depth of expressions and types (see
	// MaxDepth in expr.go).
	nest, height int
	// far is the index of the furthest token the parser has looked at, the
	// last token ANTLR's token stream would have fetched from the lexer
	// (its buffer fills only as far as the parser's lookahead reaches),
	// which ends a syntax error's snippet (snippet).
	far int
}

func (p *parser) peek() *token {
	if p.i > p.far {
		p.far = p.i
	}
	return &p.toks[p.i]
}

func (p *parser) peekAt(k int) *token {
	i := min(p.i+k, len(p.toks)-1)
	if i > p.far {
		p.far = i
	}
	return &p.toks[i]
}

func (p *parser) next() *token {
	t := &p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) isKw(kw keyword) bool {
	t := p.peek()
	return t.kind == tIdent && t.kw == kw
}

func (p *parser) acceptKw(kw keyword) bool {
	if p.isKw(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) accept(k tokenKind) bool {
	if p.peek().kind == k {
		p.i++
		return true
	}
	return false
}

// keywordTokenName returns ANTLR's token name for a keyword, e.g. K_FROM.
func keywordTokenName(kw keyword) string {
	for name, k := range keywords {
		if k == kw {
			return "K_" + strings.ToUpper(name)
		}
	}
	return "IDENT"
}

func (p *parser) expectKw(kw keyword) error {
	if p.acceptKw(kw) {
		return nil
	}
	return p.mismatched(keywordTokenName(kw))
}

func (p *parser) expect(k tokenKind) error {
	if p.accept(k) {
		return nil
	}
	return p.mismatched(k.String())
}

// errAt builds a SyntaxError at the current token, with Cassandra's snippet.
func (p *parser) errAt(msg string) *SyntaxError {
	return p.errOn(p.peek(), msg)
}

// errOn builds a SyntaxError that msg reports at token t, with the snippet
// around the current token. At the end of the input t is Cassandra's EOF
// token, which its lexer makes without a position (CqlLexer.nextToken returns
// new CommonToken(Token.EOF): line 0, position -1), so the error reads
// "line 0:-1 ..." (SyntaxError.Error).
func (p *parser) errOn(t *token, msg string) *SyntaxError {
	if t.kind == tEOF {
		return &SyntaxError{Line: 0, Column: -1, Msg: msg, Snippet: p.snippet()}
	}
	return &SyntaxError{Line: t.line, Column: t.col, Msg: msg, Snippet: p.snippet()}
}

// mismatched reports "mismatched input 'X' expecting what".
func (p *parser) mismatched(what string) error {
	return p.errAt("mismatched input '" + p.peek().text + "' expecting " + what)
}

// noViable reports "no viable alternative at input 'X'".
func (p *parser) noViable() error {
	return p.errAt("no viable alternative at input '" + p.peek().text + "'")
}

// noViableAhead reports "no viable alternative at input 'X'" for the token
// after the current one, as ANTLR does when its prediction fails on the
// second token of lookahead (noViableAt(1)).
func (p *parser) noViableAhead() error { return p.noViableAt(1) }

// noViableAt reports "no viable alternative at input 'X'" for the token k
// tokens after the current one, as ANTLR does when a decision's prediction
// looked k tokens past the current one and found no alternative there: the
// message and position are the failing token's (NoViableAltException takes
// the token the prediction stopped at), while the snippet still brackets the
// current one, because the prediction rewound the stream before the error was
// reported and ErrorCollector reads the stream's index.
func (p *parser) noViableAt(k int) error {
	t := p.peekAt(k)
	return p.errOn(t, "no viable alternative at input '"+t.text+"'")
}

// recognition reports a grammar-action error; like Cassandra it carries no
// position.
func recognition(msg string) error { return &SyntaxError{Msg: msg} }

// snippetTokensBefore is how many tokens of ANTLR's stream before the current
// one Cassandra's ErrorCollector shows (FIRST_TOKEN_OFFSET).
const snippetTokensBefore = 10

// snippetTokensAfter is how many tokens of ANTLR's stream after the current
// one it shows at most (LAST_TOKEN_OFFSET).
const snippetTokensAfter = 2

// snippet renders the text around the current token with the token in
// brackets, as Cassandra's ErrorCollector does. In ANTLR's token stream each
// run of whitespace (or comment) between two tokens is a hidden token of its
// own; the snippet runs from 10 stream tokens before the current one to 2
// after it, but only as far as the stream has fetched, which is the furthest
// token the parser looked at (p.far) and the hidden tokens before it: a
// mismatched token ends its snippet ("(SELECT [FROM]...)"), a prediction that
// looked one token further shows that token too. When either end is the EOF
// token, which has no position in Cassandra's lexer, ErrorCollector shows no
// snippet at all. The text keeps its line breaks out, and starts or ends
// with "..." unless it reaches the start or the end of the query.
func (p *parser) snippet() string {
	off := p.peek()
	if off.kind == tEOF {
		return ""
	}
	end, ok := p.snippetEnd()
	if !ok {
		return ""
	}
	start := p.snippetStart()
	var b strings.Builder
	if start > 0 {
		b.WriteString("...")
	}
	b.WriteString(p.src[start:off.pos])
	b.WriteByte('[')
	b.WriteString(off.text)
	b.WriteByte(']')
	if e := off.pos + len(off.text); e < end {
		b.WriteString(p.src[e:end])
	}
	// Java's String.split("\n") drops trailing empty lines, so a query that
	// ends in line breaks still ends at the snippet's last token.
	if strings.Trim(p.src[end:], "\n") != "" {
		b.WriteString("...")
	}
	return strings.ReplaceAll(b.String(), "\n", "")
}

// snippetEnd returns the source offset the snippet ends at: the end of the
// stream token snippetTokensAfter tokens after the current one, or of the
// last one fetched before it (a hidden token is fetched with the token after
// it). ok is false when that token is the EOF token.
func (p *parser) snippetEnd() (end int, ok bool) {
	j := p.i
	end = p.toks[j].pos + len(p.toks[j].text)
	for steps := 0; steps < snippetTokensAfter && j < p.far; {
		next := p.toks[j+1]
		if end < next.pos {
			if steps++; steps == snippetTokensAfter {
				return next.pos, true
			}
		}
		j++
		steps++
		if next.kind == tEOF {
			return 0, false
		}
		end = next.pos + len(next.text)
	}
	return end, true
}

// snippetStart returns the source offset the snippet starts at: the start of
// the stream token snippetTokensBefore tokens before the current one,
// counting each gap between tokens (whitespace or comments) as one token.
func (p *parser) snippetStart() int {
	n := 0
	for j := min(p.i, len(p.toks)-1); j > 0; j-- {
		prev := p.toks[j-1]
		if gap := prev.pos + len(prev.text); gap < p.toks[j].pos {
			if n++; n == snippetTokensBefore {
				return gap
			}
		}
		if n++; n == snippetTokensBefore {
			return prev.pos
		}
	}
	return 0
}

// ---- identifiers ----

// isIdentTok reports whether t can be an identifier (a non-reserved word or
// a quoted name).
func isIdentTok(t *token) bool {
	return t.kind == tQuotedIdent || (t.kind == tIdent && !t.kw.reserved())
}

// ident parses a column, keyspace, table or field identifier.
func (p *parser) ident() (Ident, error) {
	t := p.peek()
	if !isIdentTok(t) {
		if t.kind == tIdent || t.kind == tEOF {
			return "", p.noViable()
		}
		return "", p.mismatched("IDENT")
	}
	p.i++
	return Ident(t.val), nil
}

// tableName parses [ks.]name.
func (p *parser) tableName() (TableName, error) {
	if p.peek().kind == tQMark {
		return TableName{}, recognition("Bind variables cannot be used for table names")
	}
	a, err := p.ident()
	if err != nil {
		return TableName{}, err
	}
	if !p.accept(tDot) {
		return TableName{Name: a}, nil
	}
	b, err := p.ident()
	if err != nil {
		return TableName{}, err
	}
	return TableName{Keyspace: a, Name: b}, nil
}

// functionName parses [ks.]name of a function or aggregate (Parser.g's
// functionName): the name may also be the keyword token or count
// (allowedFunctionName).
func (p *parser) functionName() (TableName, error) {
	if t := p.peek(); t.kind == tIdent && (t.kw == kwToken || t.kw == kwCount) && p.peekAt(1).kind != tDot {
		p.i++
		return TableName{Name: Ident(t.val)}, nil
	}
	if p.peekAt(1).kind == tDot {
		if t := p.peekAt(2); t.kind == tIdent && (t.kw == kwToken || t.kw == kwCount) && isIdentTok(p.peek()) {
			ks := Ident(p.peek().val)
			p.i += 3
			return TableName{Keyspace: ks, Name: Ident(t.val)}, nil
		}
	}
	return p.tableName()
}

func (p *parser) keyspaceName() (Ident, error) {
	if p.peek().kind == tQMark {
		return "", recognition("Bind variables cannot be used for keyspace names")
	}
	return p.ident()
}

func (p *parser) identList() ([]Ident, error) {
	return enclosedList(p, tLParen, tRParen, p.ident)
}

// identOrList parses ident | '(' ident, ... ')'.
func (p *parser) identOrList() ([]Ident, error) {
	if p.peek().kind == tLParen {
		return p.identList()
	}
	id, err := p.ident()
	if err != nil {
		return nil, err
	}
	return []Ident{id}, nil
}

// ---- statements ----

func (p *parser) parseStatement() (Statement, error) {
	t := p.peek()
	if t.kind != tIdent {
		return nil, p.noViable()
	}
	var st Statement
	var err error
	switch t.kw {
	case kwSelect:
		st, err = p.parseSelect()
	case kwInsert:
		st, err = p.parseInsert()
	case kwUpdate:
		st, err = p.parseUpdate()
	case kwDelete:
		st, err = p.parseDelete()
	case kwBegin:
		st, err = p.parseBatch()
	case kwUse:
		p.i++
		var ks Ident
		ks, err = p.keyspaceName()
		st = &Use{Keyspace: ks}
	case kwTruncate:
		p.i++
		if !p.acceptKw(kwTable) {
			p.acceptKw(kwColumnfamily)
		}
		var tn TableName
		tn, err = p.tableName()
		st = &Truncate{Table: tn}
	case kwCreate:
		st, err = p.parseCreate()
	case kwAlter:
		st, err = p.parseAlter()
	case kwDrop:
		st, err = p.parseDrop()
	case kwDescribe, kwDesc:
		st, err = p.parseDescribe()
	case kwGrant, kwRevoke:
		st, err = p.parseGrantRevoke()
	case kwList:
		st, err = p.parseList()
	default:
		return nil, p.noViable()
	}
	if err != nil {
		return nil, err
	}
	setBinds(st, p.binds)
	return st, nil
}

// setBinds records the statement's bind marker names.
func setBinds(st Statement, names []string) {
	if len(names) == 0 {
		return
	}
	cp := append([]string(nil), names...)
	switch s := st.(type) {
	case *Select:
		s.Names = cp
	case *Insert:
		s.Names = cp
	case *Update:
		s.Names = cp
	case *Delete:
		s.Names = cp
	case *Batch:
		s.Names = cp
	case *CreateView:
		s.Names = cp
	}
}

func (p *parser) parseIfNotExists() (bool, error) {
	if !p.acceptKw(kwIf) {
		return false, nil
	}
	if err := p.expectKw(kwNot); err != nil {
		return false, err
	}
	return true, p.expectKw(kwExists)
}

func (p *parser) parseIfExists() (bool, error) {
	if !p.acceptKw(kwIf) {
		return false, nil
	}
	return true, p.expectKw(kwExists)
}

func (p *parser) parseCreate() (Statement, error) {
	p.i++ // CREATE
	switch {
	case p.acceptKw(kwKeyspace):
		s := &CreateKeyspace{}
		var err error
		if s.IfNotExists, err = p.parseIfNotExists(); err != nil {
			return nil, err
		}
		s.Name, s.Options, err = p.keyspaceWith()
		return s, err
	case p.acceptKw(kwTable), p.acceptKw(kwColumnfamily):
		return p.parseCreateTable()
	case p.isKw(kwIndex), p.isKw(kwCustom):
		return p.parseCreateIndex()
	case p.acceptKw(kwMaterialized):
		if err := p.expectKw(kwView); err != nil {
			return nil, err
		}
		return p.parseCreateView()
	case p.isKw(kwFunction), p.isKw(kwAggregate), p.isKw(kwOr) && (p.peekAt(2).kw == kwFunction || p.peekAt(2).kw == kwAggregate):
		return p.parseCreateFunction()
	case p.acceptKw(kwTrigger):
		return p.parseCreateTrigger()
	case p.acceptKw(kwRole):
		return p.parseCreateRole(false)
	case p.acceptKw(kwUser):
		return p.parseCreateRole(true)
	case p.acceptKw(kwType):
		s := &CreateType{}
		var err error
		if s.IfNotExists, err = p.parseIfNotExists(); err != nil {
			return nil, err
		}
		if s.Name, err = p.tableName(); err != nil {
			return nil, err
		}
		if err = p.expect(tLParen); err != nil {
			return nil, err
		}
		// typeColumns ( ',' typeColumns? )* ')': a field may be left out
		// after a comma ("(a int,)").
		f, err := p.parseColumnDef(false)
		if err != nil {
			return nil, err
		}
		s.Fields = append(s.Fields, f)
		for p.accept(tComma) {
			if p.peek().kind == tRParen || p.peek().kind == tComma {
				continue
			}
			if f, err = p.parseColumnDef(false); err != nil {
				return nil, err
			}
			s.Fields = append(s.Fields, f)
		}
		if err = p.expect(tRParen); err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, p.noViable()
}

// parseCreateTrigger parses CREATE TRIGGER [IF NOT EXISTS] name ON t
// USING 'class'.
func (p *parser) parseCreateTrigger() (Statement, error) {
	s := &CreateTrigger{}
	var err error
	if s.IfNotExists, err = p.parseIfNotExists(); err != nil {
		return nil, err
	}
	if s.Name, s.Table, err = p.triggerOn(); err != nil {
		return nil, err
	}
	if err = p.expectKw(kwUsing); err != nil {
		return nil, err
	}
	t := p.peek()
	if t.kind != tString {
		return nil, p.mismatched("STRING_LITERAL")
	}
	p.i++
	s.Class = t.val
	return s, nil
}

// triggerOn parses the "name ON t" of CREATE and DROP TRIGGER.
func (p *parser) triggerOn() (Ident, TableName, error) {
	name, err := p.ident()
	if err != nil {
		return "", TableName{}, err
	}
	if err = p.expectKw(kwOn); err != nil {
		return "", TableName{}, err
	}
	t, err := p.tableName()
	return name, t, err
}

// parseCreateIndex parses CREATE [CUSTOM] INDEX [IF NOT EXISTS] [name] ON
// t (target) [USING 'class' [WITH OPTIONS = {...}]], where target is a
// column or KEYS, VALUES, ENTRIES or FULL of one, or nothing.
func (p *parser) parseCreateIndex() (Statement, error) {
	s := &CreateIndex{Custom: p.acceptKw(kwCustom)}
	if err := p.expectKw(kwIndex); err != nil {
		return nil, err
	}
	var err error
	if s.IfNotExists, err = p.parseIfNotExists(); err != nil {
		return nil, err
	}
	if !p.isKw(kwOn) {
		if s.Name, err = p.ident(); err != nil {
			return nil, err
		}
	}
	if err = p.expectKw(kwOn); err != nil {
		return nil, err
	}
	if s.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if err = p.expect(tLParen); err != nil {
		return nil, err
	}
	kinds := []struct {
		kw   keyword
		kind IndexTargetKind
	}{{kwKeys, IndexKeys}, {kwValues, IndexValues}, {kwEntries, IndexEntries}, {kwFull, IndexFull}}
	s.Target.Kind = IndexSimple
	if p.peek().kind == tRParen {
		// No target: a CUSTOM index of the whole row (the grammar's
		// indexIdent list may be empty).
		p.i++
		return p.parseIndexUsing(s)
	}
	for _, k := range kinds {
		if p.isKw(k.kw) && p.peekAt(1).kind == tLParen {
			p.i += 2
			s.Target.Kind = k.kind
			break
		}
	}
	if s.Target.Column, err = p.ident(); err != nil {
		return nil, err
	}
	if s.Target.Kind != IndexSimple {
		if err = p.expect(tRParen); err != nil {
			return nil, err
		}
	}
	if err = p.expect(tRParen); err != nil {
		return nil, err
	}
	return p.parseIndexUsing(s)
}

// parseIndexUsing parses the end of CREATE INDEX: [USING 'class' [WITH
// OPTIONS = {...}]].
func (p *parser) parseIndexUsing(s *CreateIndex) (Statement, error) {
	var err error
	if p.acceptKw(kwUsing) {
		t := p.peek()
		if t.kind != tString {
			return nil, p.mismatched("STRING_LITERAL")
		}
		p.i++
		s.Using = t.val
		if p.acceptKw(kwWith) {
			if err = p.expectKw(kwOptions); err != nil {
				return nil, err
			}
			if err = p.expect(tEq); err != nil {
				return nil, err
			}
			if s.Options, err = p.parseTerm(); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// keyspaceWith parses the rest of CREATE and ALTER KEYSPACE: name WITH
// properties.
func (p *parser) keyspaceWith() (Ident, []Property, error) {
	name, err := p.keyspaceName()
	if err != nil {
		return "", nil, err
	}
	if err = p.expectKw(kwWith); err != nil {
		return "", nil, err
	}
	props, err := p.parseProperties()
	return name, props, err
}

func (p *parser) parseCreateTable() (Statement, error) {
	s := &CreateTable{}
	var err error
	if s.IfNotExists, err = p.parseIfNotExists(); err != nil {
		return nil, err
	}
	if s.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if err = p.expect(tLParen); err != nil {
		return nil, err
	}
	for {
		if p.acceptKw(kwPrimary) {
			if err = p.expectKw(kwKey); err != nil {
				return nil, err
			}
			if s.Key, err = p.parsePrimaryKey(); err != nil {
				return nil, err
			}
		} else {
			c, err := p.parseColumnDef(true)
			if err != nil {
				return nil, err
			}
			s.Columns = append(s.Columns, c)
		}
		if !p.accept(tComma) {
			break
		}
		if p.peek().kind == tRParen { // Cassandra accepts a trailing comma.
			break
		}
	}
	if err = p.expect(tRParen); err != nil {
		return nil, err
	}
	return s, p.parseTableWith(&s.TableWith)
}

// parseTableWith parses an optional WITH clause of CREATE TABLE or CREATE
// MATERIALIZED VIEW into w.
func (p *parser) parseTableWith(w *TableWith) error {
	if !p.acceptKw(kwWith) {
		return nil
	}
	for {
		switch {
		case p.isKw(kwCompact) && p.peekAt(1).kw == kwStorage:
			p.i += 2
			w.CompactStorage = true
		case p.isKw(kwClustering) && p.peekAt(1).kw == kwOrder:
			p.i += 2
			if err := p.expectKw(kwBy); err != nil {
				return err
			}
			order, err := enclosedList(p, tLParen, tRParen, p.parseClusteringOrder)
			if err != nil {
				return err
			}
			w.ClusteringOrder = append(w.ClusteringOrder, order...)
		default:
			prop, err := p.parseProperty()
			if err != nil {
				return err
			}
			w.Options = append(w.Options, prop)
		}
		if !p.acceptKw(kwAnd) {
			return nil
		}
	}
}

// parseCreateFunction parses CREATE [OR REPLACE] FUNCTION [IF NOT EXISTS]
// f (arg type, ...) (CALLED | RETURNS NULL) ON NULL INPUT RETURNS type
// LANGUAGE l AS 'body', and CREATE [OR REPLACE] AGGREGATE [IF NOT EXISTS]
// a (type, ...) SFUNC f STYPE type [FINALFUNC f] [INITCOND term].
func (p *parser) parseCreateFunction() (Statement, error) {
	orReplace := false
	if p.acceptKw(kwOr) {
		if err := p.expectKw(kwReplace); err != nil {
			return nil, err
		}
		orReplace = true
	}
	if p.acceptKw(kwAggregate) {
		return p.parseCreateAggregate(orReplace)
	}
	if err := p.expectKw(kwFunction); err != nil {
		return nil, err
	}
	s := &CreateFunction{OrReplace: orReplace}
	var err error
	if s.IfNotExists, err = p.parseIfNotExists(); err != nil {
		return nil, err
	}
	if s.Name, err = p.functionName(); err != nil {
		return nil, err
	}
	if err = p.expect(tLParen); err != nil {
		return nil, err
	}
	if s.Args, err = optionalList(p, tRParen, func() (*ColumnDef, error) { return p.parseColumnDef(false) }); err != nil {
		return nil, err
	}
	switch {
	case p.acceptKw(kwCalled):
		s.CalledOnNullInput = true
	case p.acceptKw(kwReturns):
		if err = p.expectKw(kwNull); err != nil {
			return nil, err
		}
	default:
		return nil, p.noViable()
	}
	for _, kw := range []keyword{kwOn, kwNull, kwInput, kwReturns} {
		if err = p.expectKw(kw); err != nil {
			return nil, err
		}
	}
	if s.Returns, err = p.parseType(); err != nil {
		return nil, err
	}
	if err = p.expectKw(kwLanguage); err != nil {
		return nil, err
	}
	if s.Language, err = p.ident(); err != nil {
		return nil, err
	}
	if err = p.expectKw(kwAs); err != nil {
		return nil, err
	}
	body, err := p.parseConstant()
	if err != nil {
		return nil, err
	}
	if body == nil || body.Kind != ConstString {
		return nil, p.mismatched("STRING_LITERAL")
	}
	s.Body = body.Value()
	return s, nil
}

// parseCreateAggregate parses the rest of CREATE [OR REPLACE] AGGREGATE.
func (p *parser) parseCreateAggregate(orReplace bool) (Statement, error) {
	s := &CreateAggregate{OrReplace: orReplace}
	var err error
	if s.IfNotExists, err = p.parseIfNotExists(); err != nil {
		return nil, err
	}
	if s.Name, err = p.functionName(); err != nil {
		return nil, err
	}
	if err = p.expect(tLParen); err != nil {
		return nil, err
	}
	if s.ArgTypes, err = optionalList(p, tRParen, p.parseType); err != nil {
		return nil, err
	}
	if err = p.expectKw(kwSfunc); err != nil {
		return nil, err
	}
	if s.SFunc, err = p.ident(); err != nil {
		return nil, err
	}
	if err = p.expectKw(kwStype); err != nil {
		return nil, err
	}
	if s.SType, err = p.parseType(); err != nil {
		return nil, err
	}
	if p.acceptKw(kwFinalfunc) {
		if s.FinalFunc, err = p.ident(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw(kwInitcond) {
		if s.InitCond, err = p.parseTerm(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// parseCreateView parses the rest of CREATE MATERIALIZED VIEW [IF NOT
// EXISTS] v AS SELECT selectors FROM t [WHERE relations] PRIMARY KEY (...)
// [WITH ...].
func (p *parser) parseCreateView() (Statement, error) {
	s := &CreateView{}
	var err error
	if s.IfNotExists, err = p.parseIfNotExists(); err != nil {
		return nil, err
	}
	if s.Name, err = p.tableName(); err != nil {
		return nil, err
	}
	if err = p.expectKw(kwAs); err != nil {
		return nil, err
	}
	if !p.isKw(kwSelect) {
		return nil, p.mismatched("SELECT")
	}
	p.i++
	s.Select = &Select{}
	if !p.accept(tStar) {
		if s.Select.Exprs, err = commaList(p, p.parseSelector); err != nil {
			return nil, err
		}
	}
	if err = p.expectKw(kwFrom); err != nil {
		return nil, err
	}
	if s.Select.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if p.acceptKw(kwWhere) {
		if s.Select.Where, err = p.parseWhere(); err != nil {
			return nil, err
		}
	}
	if err = p.expectKw(kwPrimary); err != nil {
		return nil, err
	}
	if err = p.expectKw(kwKey); err != nil {
		return nil, err
	}
	if s.Key, err = p.parsePrimaryKey(); err != nil {
		return nil, err
	}
	return s, p.parseTableWith(&s.TableWith)
}

// parseClusteringOrder parses one column ASC | DESC of CLUSTERING ORDER BY.
func (p *parser) parseClusteringOrder() (Ordering, error) {
	col, err := p.ident()
	if err != nil {
		return Ordering{}, err
	}
	o := Ordering{Column: col}
	switch {
	case p.acceptKw(kwAsc):
	case p.acceptKw(kwDesc):
		o.Desc = true
	default:
		return Ordering{}, p.noViable()
	}
	return o, nil
}

func (p *parser) parseColumnDef(allowPK bool) (*ColumnDef, error) {
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	typ, err := p.parseType()
	if err != nil {
		return nil, err
	}
	c := &ColumnDef{Name: name, Type: typ}
	c.Static = p.acceptKw(kwStatic)
	if allowPK && p.acceptKw(kwPrimary) {
		if err := p.expectKw(kwKey); err != nil {
			return nil, err
		}
		c.PrimaryKey = true
	}
	return c, nil
}

func (p *parser) parsePrimaryKey() (*PrimaryKey, error) {
	if err := p.expect(tLParen); err != nil {
		return nil, err
	}
	pk := &PrimaryKey{}
	var err error
	if pk.PartitionKey, err = p.identOrList(); err != nil {
		return nil, err
	}
	for p.accept(tComma) {
		id, err := p.ident()
		if err != nil {
			return nil, err
		}
		pk.Clustering = append(pk.Clustering, id)
	}
	return pk, p.expect(tRParen)
}

func (p *parser) parseProperties() ([]Property, error) {
	return andList(p, p.parseProperty)
}

// parseProperty parses name = constant | map literal.
func (p *parser) parseProperty() (Property, error) {
	name, err := p.ident()
	if err != nil {
		return Property{}, err
	}
	if err := p.expect(tEq); err != nil {
		return Property{}, err
	}
	if p.peek().kind == tLBrace {
		v, err := p.parsePropertyMap()
		return Property{Name: name, Value: v}, err
	}
	c, err := p.parseConstant()
	if err != nil {
		return Property{}, err
	}
	if c == nil {
		return Property{}, p.noViable()
	}
	return Property{Name: name, Value: c}, nil
}

// parsePropertyMap parses {term: term, ...} for WITH options.
func (p *parser) parsePropertyMap() (Expr, error) {
	p.i++ // {
	if p.accept(tRBrace) {
		return &EmptyBraces{}, nil
	}
	entries, err := closedList(p, tRBrace, p.parsePropertyEntry)
	if err != nil {
		return nil, err
	}
	return &MapLit{Entries: entries}, nil
}

// parsePropertyEntry parses term: term inside a WITH option map.
func (p *parser) parsePropertyEntry() (MapEntry, error) {
	k, err := p.parseTerm()
	if err != nil {
		return MapEntry{}, err
	}
	if err := p.expect(tColon); err != nil {
		return MapEntry{}, err
	}
	v, err := p.parseTerm()
	if err != nil {
		return MapEntry{}, err
	}
	return MapEntry{Key: k, Value: v}, nil
}

func (p *parser) parseAlter() (Statement, error) {
	p.i++ // ALTER
	switch {
	case p.acceptKw(kwKeyspace):
		s := &AlterKeyspace{}
		var err error
		if s.IfExists, err = p.parseIfExists(); err != nil {
			return nil, err
		}
		s.Name, s.Options, err = p.keyspaceWith()
		return s, err
	case p.acceptKw(kwTable), p.acceptKw(kwColumnfamily):
		return p.parseAlterTable()
	case p.acceptKw(kwType):
		return p.parseAlterType()
	case p.acceptKw(kwRole):
		return p.parseAlterRole(false)
	case p.acceptKw(kwUser):
		return p.parseAlterRole(true)
	case p.acceptKw(kwMaterialized):
		if err := p.expectKw(kwView); err != nil {
			return nil, err
		}
		s := &AlterView{}
		var err error
		if s.IfExists, err = p.parseIfExists(); err != nil {
			return nil, err
		}
		if s.Name, err = p.tableName(); err != nil {
			return nil, err
		}
		if err = p.expectKw(kwWith); err != nil {
			return nil, err
		}
		s.Options, err = p.parseProperties()
		return s, err
	}
	return nil, p.noViable()
}

func (p *parser) parseAlterTable() (Statement, error) {
	s := &AlterTable{}
	var err error
	if s.IfExists, err = p.parseIfExists(); err != nil {
		return nil, err
	}
	if s.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	switch {
	case p.acceptKw(kwAlter):
		s.Kind = AlterType
		def, err := p.parseAlterField()
		if err != nil {
			return nil, err
		}
		s.Add = []*ColumnDef{def}
	case p.acceptKw(kwAdd):
		s.Kind = AlterAdd
		if s.IfColumn, err = p.parseIfNotExists(); err != nil {
			return nil, err
		}
		paren := p.accept(tLParen)
		if s.Add, err = commaList(p, func() (*ColumnDef, error) { return p.parseColumnDef(false) }); err != nil {
			return nil, err
		}
		if paren {
			if err := p.expect(tRParen); err != nil {
				return nil, err
			}
		}
	case p.isKw(kwDrop) && p.peekAt(1).kw == kwCompact && p.peekAt(2).kw == kwStorage:
		// DROP COMPACT STORAGE (Cql.g: K_DROP K_COMPACT K_STORAGE); a
		// column named compact is dropped by DROP compact alone.
		p.i += 3
		s.Kind = AlterDropCompactStorage
	case p.acceptKw(kwDrop):
		s.Kind = AlterDrop
		if s.IfColumn, err = p.parseIfExists(); err != nil {
			return nil, err
		}
		if s.Drop, err = p.identOrList(); err != nil {
			return nil, err
		}
		// DROP ... USING TIMESTAMP n: the drop's time (Cql.g, 4.x).
		if p.acceptKw(kwUsing) {
			if err := p.expectKw(kwTimestamp); err != nil {
				return nil, err
			}
			t := p.peek()
			if t.kind != tInteger {
				return nil, p.mismatched("INTEGER")
			}
			ts, perr := strconv.ParseInt(t.text, 10, 64)
			if perr != nil {
				return nil, p.errAt("Invalid timestamp " + t.text)
			}
			p.i++
			s.DropTimestamp = &ts
		}
	case p.acceptKw(kwRename):
		s.Kind = AlterRename
		if s.IfColumn, err = p.parseIfExists(); err != nil {
			return nil, err
		}
		if s.Renames, err = andList(p, p.parseRename); err != nil {
			return nil, err
		}
	case p.acceptKw(kwWith):
		s.Kind = AlterOptions
		if s.Options, err = p.parseProperties(); err != nil {
			return nil, err
		}
	default:
		return nil, p.noViable()
	}
	return s, nil
}

// parseAlterType parses ALTER TYPE [IF EXISTS] name ADD field type |
// RENAME f TO g [AND ...] | ALTER field TYPE type.
func (p *parser) parseAlterType() (Statement, error) {
	s := &AlterUserType{}
	var err error
	if s.IfExists, err = p.parseIfExists(); err != nil {
		return nil, err
	}
	if s.Name, err = p.tableName(); err != nil {
		return nil, err
	}
	switch {
	case p.acceptKw(kwAdd):
		s.Kind = AlterAdd
		f, err := p.parseColumnDef(false)
		if err != nil {
			return nil, err
		}
		s.Add = f
	case p.acceptKw(kwRename):
		s.Kind = AlterRename
		if s.Renames, err = andList(p, p.parseRename); err != nil {
			return nil, err
		}
	case p.acceptKw(kwAlter):
		s.Kind = AlterType
		if s.Add, err = p.parseAlterField(); err != nil {
			return nil, err
		}
	default:
		return nil, p.noViable()
	}
	return s, nil
}

// parseAlterField parses "name TYPE type" after ALTER TABLE ... ALTER and
// ALTER TYPE ... ALTER.
func (p *parser) parseAlterField() (*ColumnDef, error) {
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	if err := p.expectKw(kwType); err != nil {
		return nil, err
	}
	typ, err := p.parseType()
	if err != nil {
		return nil, err
	}
	return &ColumnDef{Name: name, Type: typ}, nil
}

// parseRename parses one from TO to of ALTER TABLE RENAME.
func (p *parser) parseRename() (Rename, error) {
	from, err := p.ident()
	if err != nil {
		return Rename{}, err
	}
	if err := p.expectKw(kwTo); err != nil {
		return Rename{}, err
	}
	to, err := p.ident()
	if err != nil {
		return Rename{}, err
	}
	return Rename{From: from, To: to}, nil
}

func (p *parser) parseDrop() (Statement, error) {
	p.i++ // DROP
	switch {
	case p.acceptKw(kwKeyspace):
		s := &DropKeyspace{}
		var err error
		if s.IfExists, err = p.parseIfExists(); err != nil {
			return nil, err
		}
		s.Name, err = p.keyspaceName()
		return s, err
	case p.acceptKw(kwTable), p.acceptKw(kwColumnfamily):
		ifExists, name, err := p.ifExistsName()
		return &DropTable{IfExists: ifExists, Table: name}, err
	case p.acceptKw(kwType):
		ifExists, name, err := p.ifExistsName()
		return &DropType{IfExists: ifExists, Name: name}, err
	case p.acceptKw(kwIndex):
		ifExists, name, err := p.ifExistsName()
		return &DropIndex{IfExists: ifExists, Name: name}, err
	case p.acceptKw(kwMaterialized):
		if err := p.expectKw(kwView); err != nil {
			return nil, err
		}
		ifExists, name, err := p.ifExistsName()
		return &DropView{IfExists: ifExists, Name: name}, err
	case p.acceptKw(kwRole):
		return p.parseDropRole(false)
	case p.acceptKw(kwUser):
		return p.parseDropRole(true)
	case p.acceptKw(kwTrigger):
		s := &DropTrigger{}
		var err error
		if s.IfExists, err = p.parseIfExists(); err != nil {
			return nil, err
		}
		s.Name, s.Table, err = p.triggerOn()
		return s, err
	case p.isKw(kwFunction), p.isKw(kwAggregate):
		s := &DropFunction{Aggregate: p.isKw(kwAggregate)}
		p.i++
		var err error
		if s.IfExists, err = p.parseIfExists(); err != nil {
			return nil, err
		}
		if s.Name, err = p.functionName(); err != nil {
			return nil, err
		}
		if p.peek().kind == tLParen {
			s.ArgsGiven = true
			p.i++
			if s.ArgTypes, err = optionalList(p, tRParen, p.parseType); err != nil {
				return nil, err
			}
		}
		return s, nil
	}
	return nil, p.noViable()
}

// ifExistsName parses [IF EXISTS] [keyspace.]name after DROP TABLE, TYPE
// and INDEX.
func (p *parser) ifExistsName() (bool, TableName, error) {
	ifExists, err := p.parseIfExists()
	if err != nil {
		return false, TableName{}, err
	}
	name, err := p.tableName()
	return ifExists, name, err
}

func (p *parser) parseDescribe() (Statement, error) {
	p.i++ // DESCRIBE | DESC
	s := &Describe{}
	var err error
	switch {
	case p.acceptKw(kwCluster):
		s.Kind = DescribeCluster
	case p.isKw(kwFull) || p.isKw(kwSchema):
		s.Full = p.acceptKw(kwFull)
		if err = p.expectKw(kwSchema); err != nil {
			return nil, err
		}
		s.Kind = DescribeSchema
	case p.acceptKw(kwKeyspaces):
		s.Kind = DescribeKeyspaces
	case p.isKw(kwKeyspace) || (p.isKw(kwOnly) && p.peekAt(1).kw == kwKeyspace):
		s.Only = p.acceptKw(kwOnly)
		p.i++
		s.Kind = DescribeKeyspace
		if isIdentTok(p.peek()) {
			s.Keyspace, _ = p.ident()
		}
	case p.acceptKw(kwTables):
		s.Kind = DescribeTables
	case p.acceptKw(kwTable), p.acceptKw(kwColumnfamily):
		s.Kind = DescribeTable
		s.Name, err = p.tableName()
	case p.acceptKw(kwIndex):
		s.Kind = DescribeIndex
		s.Name, err = p.tableName()
	case p.acceptKw(kwMaterialized):
		if err = p.expectKw(kwView); err != nil {
			return nil, err
		}
		s.Kind = DescribeView
		s.Name, err = p.tableName()
	case p.acceptKw(kwTypes):
		s.Kind = DescribeTypes
	case p.isKw(kwType) && isIdentTok(p.peekAt(1)):
		p.i++
		s.Kind = DescribeType
		s.Name, err = p.tableName()
	case p.acceptKw(kwFunctions):
		s.Kind = DescribeFunctions
	case p.acceptKw(kwAggregates):
		s.Kind = DescribeAggregates
	case p.isKw(kwFunction) && isIdentTok(p.peekAt(1)):
		p.i++
		s.Kind = DescribeFunction
		s.Name, err = p.tableName()
	case p.isKw(kwAggregate) && isIdentTok(p.peekAt(1)):
		p.i++
		s.Kind = DescribeAggregate
		s.Name, err = p.tableName()
	case isIdentTok(p.peek()):
		s.Kind = DescribeName
		s.Name, err = p.tableName()
	default:
		return nil, p.noViable()
	}
	if err != nil {
		return nil, err
	}
	if p.acceptKw(kwWith) {
		if err = p.expectKw(kwInternals); err != nil {
			return nil, err
		}
		s.WithInternals = true
	}
	return s, nil
}

// ---- DML ----

// intValue parses INTEGER | ? | :name (LIMIT, TTL, TIMESTAMP).
func (p *parser) intValue() (Expr, error) {
	t := p.peek()
	switch t.kind {
	case tInteger:
		p.i++
		return &Constant{Kind: ConstInteger, Raw: t.text}, nil
	case tQMark, tColon:
		return p.parseMarker()
	}
	return nil, p.mismatched("INTEGER")
}

func (p *parser) parseUsing(u *Using, allowTTL bool) error {
	if !p.acceptKw(kwUsing) {
		return nil
	}
	for {
		var err error
		switch {
		case p.acceptKw(kwTimestamp):
			u.TimestampFirst = u.TTL == nil
			u.Timestamp, err = p.intValue()
		case allowTTL && p.acceptKw(kwTTL):
			u.TTL, err = p.intValue()
		default:
			return p.noViable()
		}
		if err != nil {
			return err
		}
		if !p.acceptKw(kwAnd) {
			return nil
		}
	}
}

func (p *parser) parseInsert() (Statement, error) {
	p.i++ // INSERT
	if err := p.expectKw(kwInto); err != nil {
		return nil, err
	}
	s := &Insert{}
	var err error
	if s.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if p.acceptKw(kwJSON) {
		switch t := p.peek(); t.kind {
		case tString:
			p.i++
			s.JSON = &Constant{Kind: ConstString, Raw: t.text}
		case tQMark, tColon:
			if s.JSON, err = p.parseMarker(); err != nil {
				return nil, err
			}
		default:
			return nil, p.noViable()
		}
		if p.acceptKw(kwDefault) {
			switch {
			case p.acceptKw(kwNull):
				s.JSONDefault = JSONDefaultNull
			case p.acceptKw(kwUnset):
				s.JSONDefault = JSONDefaultUnset
			default:
				return nil, p.noViable()
			}
		}
	} else {
		if p.peek().kind != tLParen {
			return nil, p.noViable()
		}
		if s.Columns, err = p.identList(); err != nil {
			return nil, err
		}
		if err = p.expectKw(kwValues); err != nil {
			return nil, err
		}
		if s.Values, err = enclosedList(p, tLParen, tRParen, p.parseTerm); err != nil {
			return nil, err
		}
	}
	if s.IfNotExists, err = p.parseIfNotExists(); err != nil {
		return nil, err
	}
	return s, p.parseUsing(&s.Using, true)
}

func (p *parser) parseUpdate() (Statement, error) {
	p.i++ // UPDATE
	s := &Update{}
	var err error
	if s.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if err = p.parseUsing(&s.Using, true); err != nil {
		return nil, err
	}
	if err = p.expectKw(kwSet); err != nil {
		return nil, err
	}
	if s.Set, err = commaList(p, p.parseAssignment); err != nil {
		return nil, err
	}
	if err = p.expectKw(kwWhere); err != nil {
		return nil, err
	}
	if s.Where, err = p.parseWhere(); err != nil {
		return nil, err
	}
	return s, p.parseConditions(&s.Conditions)
}

// parseAssignment parses one SET item, following Cassandra's
// columnOperation rules.
func (p *parser) parseAssignment() (*Assignment, error) {
	col, err := p.ident()
	if err != nil {
		return nil, err
	}
	a := &Assignment{Column: col}
	switch p.peek().kind {
	case tLBracket:
		p.i++
		if a.Key, err = p.parseTerm(); err != nil {
			return nil, err
		}
		if err = p.expect(tRBracket); err != nil {
			return nil, err
		}
		if err = p.expect(tEq); err != nil {
			return nil, err
		}
		a.Op = AssignSetElem
		a.Value, err = p.parseTerm()
		return a, err
	case tDot:
		p.i++
		if a.Field, err = p.ident(); err != nil {
			return nil, err
		}
		if err = p.expect(tEq); err != nil {
			return nil, err
		}
		a.Op = AssignSetField
		a.Value, err = p.parseTerm()
		return a, err
	case tPlusEq, tMinusEq:
		a.Op = AssignAdd
		if p.next().kind == tMinusEq {
			a.Op = AssignSub
		}
		a.Value, err = p.parseTerm()
		return a, err
	}
	if err = p.expect(tEq); err != nil {
		return nil, err
	}
	// c = c + v | c = c - v | c = c -1 (negative INTEGER lexed as one token)
	if isIdentTok(p.peek()) {
		if k := p.peekAt(1).kind; k == tPlus || k == tMinus || (k == tInteger && p.peekAt(1).text[0] == '-') {
			other, _ := p.ident()
			op := p.next()
			switch op.kind {
			case tInteger:
				if other != col {
					return nil, recognition("Only expressions of the form X = X - <value> are supported.")
				}
				a.Op, a.Value = AssignAdd, &Constant{Kind: ConstInteger, Raw: op.text}
				return a, nil
			case tPlus:
				a.Op = AssignAdd
			default:
				a.Op = AssignSub
			}
			if other != col {
				return nil, recognition("Only expressions of the form X = X " + op.text + "<value> are supported.")
			}
			a.Value, err = p.parseTerm()
			return a, err
		}
	}
	if a.Value, err = p.parseTerm(); err != nil {
		return nil, err
	}
	a.Op = AssignSet
	if p.accept(tPlus) {
		other, err := p.ident()
		if err != nil {
			return nil, err
		}
		if other != col {
			return nil, recognition("Only expressions of the form X = <value> + X are supported.")
		}
		a.Op = AssignPrepend
	}
	return a, nil
}

func (p *parser) parseDelete() (Statement, error) {
	p.i++ // DELETE
	s := &Delete{}
	var err error
	if !p.isKw(kwFrom) {
		if s.Columns, err = commaList(p, p.parseDeleteColumn); err != nil {
			return nil, err
		}
	}
	if err = p.expectKw(kwFrom); err != nil {
		return nil, err
	}
	if s.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if err = p.parseUsing(&s.Using, false); err != nil {
		return nil, err
	}
	if err = p.expectKw(kwWhere); err != nil {
		return nil, err
	}
	if s.Where, err = p.parseWhere(); err != nil {
		return nil, err
	}
	return s, p.parseConditions(&s.Conditions)
}

// parseDeleteColumn parses one DELETE selection: col, col[term] or col.field.
func (p *parser) parseDeleteColumn() (DeleteColumn, error) {
	col, err := p.ident()
	if err != nil {
		return DeleteColumn{}, err
	}
	dc := DeleteColumn{Column: col}
	if dc.Key, dc.Field, err = p.parseElemOrField(); err != nil {
		return DeleteColumn{}, err
	}
	return dc, nil
}

// parseElemOrField parses the optional [term] or .field after a column in
// DELETE selections and IF conditions.
func (p *parser) parseElemOrField() (Expr, Ident, error) {
	switch {
	case p.accept(tLBracket):
		elem, err := p.parseTerm()
		if err != nil {
			return nil, "", err
		}
		return elem, "", p.expect(tRBracket)
	case p.accept(tDot):
		field, err := p.ident()
		return nil, field, err
	}
	return nil, "", nil
}

// parseConditions parses an optional IF EXISTS | IF cond AND ....
func (p *parser) parseConditions(c *Conditions) error {
	if !p.acceptKw(kwIf) {
		return nil
	}
	// "IF exists = 1" is a condition on a column named exists.
	if p.isKw(kwExists) && !startsConditionOp(p.peekAt(1)) {
		p.i++
		c.IfExists = true
		return nil
	}
	conds, err := andList(p, p.parseCondition)
	c.If = append(c.If, conds...)
	return err
}

func (p *parser) parseCondition() (*Condition, error) {
	col, err := p.ident()
	if err != nil {
		return nil, err
	}
	c := &Condition{Column: col}
	if c.Elem, c.Field, err = p.parseElemOrField(); err != nil {
		return nil, err
	}
	if op, ok := p.relOp(); ok {
		c.Op = op
		c.Value, err = p.parseTerm()
		return c, err
	}
	switch {
	case p.acceptKw(kwIn):
		c.Op = OpIn
		c.Value, err = p.parseInValues()
	case c.Elem == nil && c.Field == "" && p.acceptKw(kwContains):
		c.Op = OpContains
		if p.acceptKw(kwKey) {
			c.Op = OpContainsKey
		}
		c.Value, err = p.parseTerm()
	default:
		return nil, p.noViable()
	}
	return c, err
}

func (p *parser) parseBatch() (Statement, error) {
	p.i++ // BEGIN
	s := &Batch{Type: BatchLogged}
	switch {
	case p.acceptKw(kwUnlogged):
		s.Type = BatchUnlogged
	case p.acceptKw(kwCounter):
		s.Type = BatchCounter
	}
	if err := p.expectKw(kwBatch); err != nil {
		return nil, err
	}
	if err := p.parseUsing(&s.Using, true); err != nil {
		return nil, err
	}
	for !p.isKw(kwApply) {
		start := len(p.binds)
		var st Statement
		var err error
		switch {
		case p.isKw(kwInsert):
			st, err = p.parseInsert()
		case p.isKw(kwUpdate):
			st, err = p.parseUpdate()
		case p.isKw(kwDelete):
			st, err = p.parseDelete()
		default:
			return nil, p.mismatched("K_APPLY")
		}
		if err != nil {
			return nil, err
		}
		setBinds(st, p.binds[start:])
		s.Statements = append(s.Statements, st)
		p.accept(tSemicolon)
	}
	p.i++ // APPLY
	return s, p.expectKw(kwBatch)
}

func (p *parser) parseSelect() (Statement, error) {
	p.i++ // SELECT
	s := &Select{}
	// json and distinct are valid column names; like Cassandra's syntactic
	// predicates, they are modifiers only if selectors can follow them.
	if p.isKw(kwJSON) && p.canParseSelectors(1) {
		p.i++
		s.JSON = true
	}
	if p.isKw(kwDistinct) && p.canParseSelectors(1) {
		p.i++
		s.Distinct = true
	}
	var err error
	if !p.accept(tStar) {
		if s.Exprs, err = commaList(p, p.parseSelector); err != nil {
			return nil, err
		}
	}
	if err = p.expectKw(kwFrom); err != nil {
		return nil, err
	}
	if s.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if p.acceptKw(kwWhere) {
		if s.Where, err = p.parseWhere(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw(kwGroup) {
		if err = p.expectKw(kwBy); err != nil {
			return nil, err
		}
		if s.GroupBy, err = commaList(p, func() (Expr, error) { return p.parseExpr(true) }); err != nil {
			return nil, err
		}
	}
	if p.acceptKw(kwOrder) {
		if err = p.expectKw(kwBy); err != nil {
			return nil, err
		}
		if s.OrderBy, err = commaList(p, p.parseOrdering); err != nil {
			return nil, err
		}
	}
	if p.acceptKw(kwPer) {
		if err = p.expectKw(kwPartition); err != nil {
			return nil, err
		}
		if err = p.expectKw(kwLimit); err != nil {
			return nil, err
		}
		if s.PerPartitionLimit, err = p.intValue(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw(kwLimit) {
		if s.Limit, err = p.intValue(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw(kwAllow) {
		if err = p.expectKw(kwFiltering); err != nil {
			return nil, err
		}
		s.AllowFiltering = true
	}
	return s, nil
}

// parseOrdering parses one column [ASC | DESC] of ORDER BY.
func (p *parser) parseOrdering() (Ordering, error) {
	id, err := p.ident()
	if err != nil {
		return Ordering{}, err
	}
	o := Ordering{Column: id}
	if !p.acceptKw(kwAsc) {
		o.Desc = p.acceptKw(kwDesc)
	}
	return o, nil
}

// canParseSelectors reports whether a selector list (or '*') parses at
// offset k from the current token, without consuming anything.
func (p *parser) canParseSelectors(k int) bool {
	save, nb := p.i, len(p.binds)
	defer func() { p.i, p.binds = save, p.binds[:nb] }()
	p.i += k
	if p.accept(tStar) {
		return true
	}
	_, err := p.parseSelector()
	return err == nil
}

func (p *parser) parseSelector() (*SelectExpr, error) {
	e, err := p.parseExpr(true)
	if err != nil {
		return nil, err
	}
	se := &SelectExpr{Expr: e}
	if p.acceptKw(kwAs) {
		if se.Alias, err = p.ident(); err != nil {
			return nil, err
		}
	}
	return se, nil
}

// ---- WHERE ----

func (p *parser) parseWhere() ([]Relation, error) {
	return andList(p, p.parseRelation)
}

func (p *parser) relOp() (Operator, bool) {
	var op Operator
	switch p.peek().kind {
	case tEq:
		op = OpEq
	case tLt:
		op = OpLt
	case tLte:
		op = OpLte
	case tGt:
		op = OpGt
	case tGte:
		op = OpGte
	case tNeq:
		op = OpNeq
	default:
		return 0, false
	}
	p.i++
	return op, true
}

func (p *parser) parseRelation() (Relation, error) {
	switch {
	case p.atCustomIndexExpression():
		return p.parseCustomIndexExpression()
	case p.isKw(kwToken):
		p.i++
		cols, err := p.identList()
		if err != nil {
			return nil, err
		}
		op, ok := p.relOp()
		if !ok {
			return nil, p.noViable()
		}
		v, err := p.parseTerm()
		return &TokenRelation{Columns: cols, Op: op, Value: v}, err
	case p.peek().kind == tLParen:
		cols, err := p.identList()
		if err != nil {
			return nil, err
		}
		r := &TupleRelation{Columns: cols}
		if p.acceptKw(kwIn) {
			r.Op = OpIn
			r.Value, err = p.parseTupleInValues()
			return r, err
		}
		op, ok := p.relOp()
		if !ok {
			return nil, p.noViable()
		}
		r.Op = op
		switch p.peek().kind {
		case tLParen:
			r.Value, err = p.parseTupleLit(false)
		case tQMark, tColon:
			r.Value, err = p.parseMarker()
		default:
			return nil, p.noViable()
		}
		return r, err
	}
	// The other relations start with a column name, and Cassandra's grammar
	// spells each as an alternative of its own (name=cident type=relationType
	// t=term, name=cident K_LIKE t=term, ...), so its parser picks one from
	// the name and the token after it (two after it for IN), rewinding to the
	// name when none fits: the error then names the token that failed and
	// the snippet brackets the name (noViableAt).
	start := p.i
	if !isIdentTok(p.peek()) {
		return nil, p.noViable()
	}
	col, err := p.ident()
	if err != nil {
		return nil, err
	}
	if !p.atColumnRelationOperator() {
		ahead := p.i - start
		if p.isKw(kwIn) {
			ahead++
		}
		p.i = start
		return nil, p.noViableAt(ahead)
	}
	r := &ColumnRelation{Column: col}
	if p.accept(tLBracket) {
		if r.MapKey, err = p.parseTerm(); err != nil {
			return nil, err
		}
		if err = p.expect(tRBracket); err != nil {
			return nil, err
		}
		op, ok := p.relOp()
		if !ok {
			return nil, p.noViable()
		}
		r.Op = op
		r.Value, err = p.parseTerm()
		return r, err
	}
	if op, ok := p.relOp(); ok {
		r.Op = op
		r.Value, err = p.parseTerm()
		return r, err
	}
	switch {
	case p.acceptKw(kwIn):
		r.Op = OpIn
		r.Value, err = p.parseInValues()
	case p.acceptKw(kwContains):
		r.Op = OpContains
		if p.acceptKw(kwKey) {
			r.Op = OpContainsKey
		}
		r.Value, err = p.parseTerm()
	case p.acceptKw(kwLike):
		r.Op = OpLike
		r.Value, err = p.parseTerm()
	case p.acceptKw(kwIs):
		if err = p.expectKw(kwNot); err != nil {
			return nil, err
		}
		if err = p.expectKw(kwNull); err != nil {
			return nil, err
		}
		r.Op = OpIsNot
		r.Value = &Constant{Kind: ConstNull, Raw: "NULL"}
	default:
		return nil, p.noViable()
	}
	return r, err
}

// atColumnRelationOperator reports whether the tokens after a relation's
// column name begin one of the relation alternatives that start with a column
// name: an operator, LIKE, IS, CONTAINS, '[', or IN followed by a marker or a
// parenthesized list. It looks at the token after IN only, as the prediction
// of Cassandra's grammar does (which ends an error's snippet, parser.far).
func (p *parser) atColumnRelationOperator() bool {
	switch t := p.peek(); t.kind {
	case tEq, tLt, tLte, tGt, tGte, tNeq, tLBracket:
		return true
	case tIdent:
		switch t.kw {
		case kwLike, kwIs, kwContains:
			return true
		case kwIn:
			next := p.peekAt(1)
			return next.kind == tQMark || next.kind == tColon || next.kind == tLParen
		}
	}
	return false
}

// atCustomIndexExpression reports whether a custom index expression starts
// here. Cassandra's grammar spells its start as the one literal token
// 'expr(', which its lexer matches case-sensitively and without blanks, so
// that "EXPR(" or "expr (" begin a relation on a column named expr instead.
func (p *parser) atCustomIndexExpression() bool {
	t, next := p.peek(), p.peekAt(1)
	return t.kind == tIdent && t.text == "expr" && next.kind == tLParen && next.pos == t.pos+len(t.text)
}

// parseCustomIndexExpression parses expr(index, term). The index name is
// an identifier, a quoted name or an unreserved keyword; a bind marker is
// refused as Cassandra's idxName rule refuses it.
func (p *parser) parseCustomIndexExpression() (Relation, error) {
	p.i += 2 // expr(
	if p.peek().kind == tQMark {
		return nil, recognition("Bind variables cannot be used for index names")
	}
	idx, err := p.ident()
	if err != nil {
		return nil, err
	}
	if err := p.expect(tComma); err != nil {
		return nil, err
	}
	v, err := p.parseTerm()
	if err != nil {
		return nil, err
	}
	return &CustomIndexExpression{Index: idx, Value: v}, p.expect(tRParen)
}

// parseInValues parses the right side of col IN: (terms) or a marker.
func (p *parser) parseInValues() (Expr, error) {
	switch p.peek().kind {
	case tQMark, tColon:
		return p.parseMarker()
	case tLParen:
		p.i++
		elems, err := optionalList(p, tRParen, p.parseTerm)
		if err != nil {
			return nil, err
		}
		return &InList{Elems: elems}, nil
	}
	return nil, p.noViable()
}

// parseTupleInValues parses the right side of (c1, c2) IN: a marker, (),
// ((..), (..)) or (?, ?).
func (p *parser) parseTupleInValues() (Expr, error) {
	switch p.peek().kind {
	case tQMark, tColon:
		return p.parseMarker()
	case tLParen:
		p.i++
		elems, err := optionalList(p, tRParen, p.parseTupleInValue)
		if err != nil {
			return nil, err
		}
		return &InList{Elems: elems}, nil
	}
	return nil, p.noViable()
}

// parseTupleInValue parses one element of a tuple IN list: a tuple literal
// or a marker.
func (p *parser) parseTupleInValue() (Expr, error) {
	switch p.peek().kind {
	case tLParen:
		return p.parseTupleLit(false)
	case tQMark, tColon:
		return p.parseMarker()
	}
	return nil, p.noViable()
}

// startsConditionOp reports whether t can follow a column in an IF condition.
func startsConditionOp(t *token) bool {
	switch t.kind {
	case tEq, tLt, tGt, tLte, tGte, tNeq, tLBracket, tDot:
		return true
	case tIdent:
		return t.kw == kwIn || t.kw == kwContains
	}
	return false
}
