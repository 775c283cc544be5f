package statements

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/restrictions"

	"github.com/minicass/minicass/cql/expr"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/virtual"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// opKind is what one column operation of INSERT, UPDATE or DELETE does.
type opKind uint8

const (
	opSet        opKind = iota // c = v (INSERT values too)
	opAdd                      // c = c + v: append, add elements, put entries, counter increment
	opSub                      // c = c - v: remove elements/keys, counter decrement
	opPrepend                  // l = v + l
	opSetElem                  // c[k] = v
	opSetField                 // c.f = v (a non-frozen user type)
	opDelete                   // DELETE c
	opDeleteElem               // DELETE c[k]
)

// colOp is one compiled column operation.
type colOp struct {
	col   *schema.Column
	kind  opKind
	key   expr.Term // element key or list index for opSetElem and opDeleteElem
	field int       // the field of opSetField
	value expr.Term
}

// modPlan is a compiled INSERT, UPDATE or DELETE.
type modPlan struct {
	tbl   *schema.Table
	kind  restrictions.StmtKind
	specs []query.ColumnSpec
	pkIdx []uint16
	where *restrictions.ModWhere
	ops   []colOp
	// deleteRows is a DELETE without columns: rows, ranges or partitions.
	deleteRows bool
	// insertLiveness is set for INSERT (which writes row liveness).
	insertLiveness bool
	ttl, timestamp expr.Term
	conds          *conditions
	counter        bool
	// staticOnly is set when only static columns are written.
	staticOnly bool
	// simple is set when an execution writes exactly one row of one
	// partition with plain cells: every key column is restricted by one
	// '=' term, and every operation sets a regular, non-collection,
	// non-counter column (see planSimple and simpleMutation); simplePK and
	// simpleCK are the key columns' restrictions in key order.
	simple             bool
	simplePK, simpleCK []*restrictions.WhereValues
}

func (p *modPlan) Binds() []query.ColumnSpec { return p.specs }

// Columns is nil: a conditional statement's result columns depend on whether
// it applied, so (as in Cassandra) each result carries its own metadata.
func (p *modPlan) Columns() []query.ColumnSpec { return nil }
func (p *modPlan) PKIndexes() []uint16         { return p.pkIdx }

// pkBindIndexes returns the bind marker of each partition key column when
// every one is a single '=' bind marker.
func pkBindIndexes(w *restrictions.ModWhere) []uint16 {
	var out []uint16
	for _, kv := range w.PkValues() {
		if len(kv.Terms) != 1 {
			return nil
		}
		bt, ok := kv.Terms[0].(expr.BindTerm)
		if !ok {
			return nil
		}
		out = append(out, uint16(bt.Idx))
	}
	return out
}

func compileUsing(s *plan.Compiler, c *expr.CompileCtx, tbl *schema.Table, u parser.Using) (ttl, ts expr.Term, err error) {
	if u.TTL != nil {
		ttl, err = c.CompileTerm(u.TTL, expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: "[ttl]", Typ: types.IntType})
		if err != nil {
			return nil, nil, err
		}
	}
	if u.Timestamp != nil {
		ts, err = c.CompileTerm(u.Timestamp, expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: "[timestamp]", Typ: types.BigintType})
		if err != nil {
			return nil, nil, err
		}
	}
	return ttl, ts, nil
}

func modTable(s *plan.Compiler, t parser.TableName, kind restrictions.StmtKind) (*schema.Table, error) {
	tbl, err := s.LookupTable(t)
	if err != nil {
		return nil, err
	}
	if err := plan.CheckModifiable(tbl.Keyspace); err != nil {
		return nil, err
	}
	if tbl.IsView() {
		// ModificationStatement.Parsed.prepare.
		return nil, query.Invalidf("Cannot directly modify a materialized view")
	}
	return tbl, nil
}

func compileInsert(s *plan.Compiler, st *parser.Insert) (plan.Plan, error) {
	tbl, err := modTable(s, st.Table, restrictions.KindInsert)
	if err != nil {
		return nil, err
	}
	if tbl.IsCounter() {
		return nil, query.Invalidf("INSERT statements are not allowed on counter tables, use UPDATE instead")
	}
	c := expr.NewTableCompileCtx(st.BindCount(), tbl)
	c.Partitioner = s.Env.Engine.Partitioner()
	c.UDFs = s.UDFs()
	var cols []*schema.Column
	var terms []expr.Term
	if st.JSON != nil {
		cols, terms, err = c.CompileInsertJSON(tbl, st)
	} else {
		cols, terms, err = compileInsertValues(c, tbl, st)
	}
	if err != nil {
		return nil, err
	}
	// A compact table's rows have no primary-key liveness (UpdateStatement:
	// only a CQL table's INSERT writes it): they exist through their cells.
	p := &modPlan{tbl: tbl, kind: restrictions.KindInsert, insertLiveness: !tbl.IsCompact()}
	byName := make(map[string]*restrictions.WhereValues, len(cols))
	staticOnly := true
	// One allocation for the key restrictions.
	kvs := make([]restrictions.WhereValues, len(cols))
	for i, col := range cols {
		t := terms[i]
		kvs[i] = restrictions.WhereValues{Col: col, Terms: terms[i : i+1 : i+1]}
		byName[col.Name] = &kvs[i]
		switch col.Kind {
		case schema.PartitionKey, schema.Clustering:
		default:
			if col.Kind == schema.Regular {
				staticOnly = false
			}
			p.ops = append(p.ops, colOp{col: col, kind: opSet, value: t})
		}
	}
	var missing []string
	var pk, ck []*restrictions.WhereValues
	for _, col := range tbl.PartitionKey() {
		if kv := byName[col.Name]; kv != nil {
			pk = append(pk, kv)
		} else {
			missing = append(missing, col.Name)
		}
	}
	if len(missing) > 0 {
		return nil, query.Invalidf("Some partition key parts are missing: %s", strings.Join(missing, ", "))
	}
	missing = nil
	for _, col := range tbl.ClusteringColumns() {
		if kv := byName[col.Name]; kv != nil {
			ck = append(ck, kv)
		} else {
			missing = append(missing, col.Name)
		}
	}
	hasStaticOps := false
	for _, o := range p.ops {
		if o.col.Kind == schema.Static {
			hasStaticOps = true
		}
	}
	if len(missing) > 0 {
		if err := compactClusteringGap(tbl, byName); err != nil {
			return nil, err
		}
		// Cassandra accepts an INSERT of the partition key and static columns
		// only; it writes the static row.
		if !(len(ck) == 0 && staticOnly && hasStaticOps) {
			return nil, query.Invalidf("Some clustering keys are missing: %s", strings.Join(missing, ", "))
		}
		p.staticOnly = true
	}
	if err := p.compactValueOp(); err != nil {
		return nil, err
	}
	p.where = restrictions.InsertWhere(tbl, pk, ck)
	if p.ttl, p.timestamp, err = compileUsing(s, c, tbl, st.Using); err != nil {
		return nil, err
	}
	if st.IfNotExists {
		if p.timestamp != nil {
			return nil, query.Invalidf("Cannot provide custom timestamp for conditional updates")
		}
		p.conds = &conditions{tbl: tbl, ifNotExists: true, staticRow: p.staticOnly}
	}
	p.specs = c.Specs
	p.pkIdx = pkBindIndexes(p.where)
	p.planSimple()
	return p, nil
}

// compactClusteringGap applies StatementRestrictions'
// processClusteringColumnsRestrictions to an INSERT of a compact table that
// gives some of its clustering columns: Cassandra then skips the missing
// clustering check, so a column given after one left out is refused as a
// restriction that skips a column. A clean prefix passes here (and is then
// refused by the missing clustering check: minicass does not write rows of a
// clustering prefix, see docs/compatibility.md).
func compactClusteringGap(tbl *schema.Table, given map[string]*restrictions.WhereValues) error {
	if !tbl.IsCompact() {
		return nil
	}
	var restricted []*schema.Column
	for _, c := range tbl.ClusteringColumns() {
		if given[c.Name] != nil {
			restricted = append(restricted, c)
		}
	}
	for i, c := range restricted {
		if want := tbl.ClusteringColumns()[i]; c != want {
			return query.Invalidf("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", c.Name, want.Name)
		}
	}
	return nil
}

// checkCompactClustering refuses the empty value as the clustering of a
// dense compact table with a single clustering column, whose clustering is
// the legacy cell name, with the text CompactStorageTest.testEmptyRestrictionValue
// expects of 4.x ("Invalid empty or null value for column c").
func checkCompactClustering(tbl *schema.Table, values [][]byte) error {
	if tbl.IsCompact() && !tbl.IsStaticCompact() && len(tbl.ClusteringColumns()) == 1 && len(values) == 1 && values[0] != nil && len(values[0]) == 0 {
		return query.Invalidf("Invalid empty or null value for column %s", tbl.ClusteringColumns()[0].Name)
	}
	return nil
}

// compactValueOp applies UpdateStatement.addUpdateForKey's rule for a
// compact table's rows, which have no row marker: a write of a row that sets
// no regular column writes the empty value of the hidden EmptyType column
// (which is then what makes the row exist), and is refused on a table whose
// compact value column was declared ("Column v is mandatory for this COMPACT
// STORAGE table").
func (p *modPlan) compactValueOp() error {
	if !p.tbl.IsCompact() || p.staticOnly {
		return nil
	}
	for _, o := range p.ops {
		if o.col.Kind == schema.Regular {
			return nil
		}
	}
	v := p.tbl.CompactValueColumn()
	if !p.tbl.HasEmptyCompactValue() {
		return query.Invalidf("Column %s is mandatory for this COMPACT STORAGE table", v.Name)
	}
	p.ops = append(p.ops, colOp{col: v, kind: opSet, value: expr.ConstTerm{V: []byte{}}})
	return nil
}

// checkSetCompatible refuses two incompatible settings of one column: a plain
// "c = v" is incompatible with any other setting of c
// (Operation.RawUpdate.isCompatibleWith); additions, removals, prepends and
// element settings combine. Cassandra's parser makes this check
// (Cql.g addRawUpdate), so it is a syntax error and comes before any name is
// resolved.
func checkSetCompatible(set []*parser.Assignment) error {
	seen := map[string]bool{}
	for _, a := range set {
		name := string(a.Column)
		if prevSet, ok := seen[name]; ok && (prevSet || a.Op == parser.AssignSet) {
			return &query.Error{Code: wire.CodeSyntax, Message: fmt.Sprintf("Multiple incompatible setting of column %s", name)}
		}
		seen[name] = seen[name] || a.Op == parser.AssignSet
	}
	return nil
}

// compileInsertValues compiles the column list and VALUES of an INSERT: the
// columns named and their terms, in the statement's order.
func compileInsertValues(c *expr.CompileCtx, tbl *schema.Table, st *parser.Insert) ([]*schema.Column, []expr.Term, error) {
	if len(st.Columns) != len(st.Values) {
		return nil, nil, query.Invalidf("Unmatched column names/values")
	}
	// Cassandra (ParsedInsert.prepareInternal) refuses a repeated name before
	// it resolves any column.
	for i, id := range st.Columns {
		if slices.Contains(st.Columns[:i], id) {
			return nil, nil, query.Invalidf("The column names contains duplicates")
		}
	}
	cols := make([]*schema.Column, len(st.Columns))
	terms := make([]expr.Term, len(st.Columns))
	for i, id := range st.Columns {
		name := string(id)
		col := tbl.Column(name)
		if col == nil {
			return nil, nil, query.Invalidf("Undefined column name %s in table %s", name, tbl.QualifiedName())
		}
		t, err := c.CompileTerm(st.Values[i], expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: name, Typ: col.Type})
		if err != nil {
			return nil, nil, err
		}
		cols[i], terms[i] = col, t
	}
	return cols, terms, nil
}

func compileUpdate(s *plan.Compiler, st *parser.Update) (plan.Plan, error) {
	if err := checkSetCompatible(st.Set); err != nil {
		return nil, err
	}
	tbl, err := modTable(s, st.Table, restrictions.KindUpdate)
	if err != nil {
		return nil, err
	}
	c := expr.NewTableCompileCtx(st.BindCount(), tbl)
	c.Partitioner = s.Env.Engine.Partitioner()
	c.UDFs = s.UDFs()
	p := &modPlan{tbl: tbl, kind: restrictions.KindUpdate, counter: tbl.IsCounter()}
	if p.ttl, p.timestamp, err = compileUsing(s, c, tbl, st.Using); err != nil {
		return nil, err
	}
	staticOnly := true
	for _, a := range st.Set {
		name := string(a.Column)
		col := tbl.Column(name)
		if col == nil {
			return nil, query.Invalidf("Undefined column name %s in table %s", name, tbl.QualifiedName())
		}
		if col.Kind == schema.PartitionKey || col.Kind == schema.Clustering {
			return nil, query.Invalidf("PRIMARY KEY part %s found in SET part", name)
		}
		if col.Kind == schema.Regular {
			staticOnly = false
		}
		op, err := compileAssignment(c, tbl, col, a)
		if err != nil {
			return nil, err
		}
		p.ops = append(p.ops, op)
	}
	if p.counter {
		if p.ttl != nil {
			return nil, query.Invalidf("Cannot provide custom TTL for counter updates")
		}
		if p.timestamp != nil {
			return nil, query.Invalidf("Cannot provide custom timestamp for counter updates")
		}
	}
	p.staticOnly = staticOnly && len(p.ops) > 0
	if p.where, err = restrictions.CompileModWhere(c, tbl, st.Where, restrictions.KindUpdate, p.staticOnly && !conditionsOnRegular(tbl, st.Conditions)); err != nil {
		return nil, err
	}
	if err := p.compileConditions(c, st.Conditions); err != nil {
		return nil, err
	}
	p.specs = c.Specs
	p.pkIdx = pkBindIndexes(p.where)
	p.planSimple()
	return p, nil
}

// conditionsOnRegular reports whether an IF condition names a regular
// column. Such a statement does not apply only to static columns, whatever
// it writes (ModificationStatement.appliesOnlyToStaticColumns asks the
// operations and the conditions), so its WHERE must name a full row. A column
// that does not exist is refused later, by compileConditions.
func conditionsOnRegular(tbl *schema.Table, pc parser.Conditions) bool {
	for _, cond := range pc.If {
		if col := tbl.Column(string(cond.Column)); col != nil && col.Kind == schema.Regular {
			return true
		}
	}
	return false
}

func compileAssignment(c *expr.CompileCtx, tbl *schema.Table, col *schema.Column, a *parser.Assignment) (colOp, error) {
	recv := expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: col.Name, Typ: col.Type}
	t := col.Type
	if t.Kind == types.Counter {
		switch a.Op {
		case parser.AssignAdd, parser.AssignSub:
			if k, ok := a.Value.(*parser.Constant); ok && k.Kind == parser.ConstNull {
				// Constants.NULL_LITERAL is not assignable to a counter.
				return colOp{}, query.Invalidf("Invalid null value for counter increment/decrement")
			}
			v, err := c.CompileTerm(a.Value, recv.Sub(col.Name, types.BigintType))
			if err != nil {
				return colOp{}, err
			}
			k := opAdd
			if a.Op == parser.AssignSub {
				k = opSub
			}
			return colOp{col: col, kind: k, value: v}, nil
		}
		return colOp{}, query.Invalidf("Cannot set the value of counter column %s (counters can only be incremented/decremented, not set)", col.Name)
	}
	switch a.Op {
	case parser.AssignSet:
		v, err := c.CompileTerm(a.Value, recv)
		if err != nil {
			return colOp{}, err
		}
		return colOp{col: col, kind: opSet, value: v}, nil
	case parser.AssignAdd, parser.AssignSub, parser.AssignPrepend:
		if t.Kind == types.Tuple && a.Op != parser.AssignPrepend {
			// Operation.Addition and Substraction: a tuple (or UDT, a
			// TupleType too) is named before the counter check.
			return colOp{}, query.Invalidf("Invalid operation (%s) for tuple column %s", a, col.Name)
		}
		if !t.IsCollection() {
			return colOp{}, query.Invalidf("Invalid operation (%s) for non counter column %s", a, col.Name)
		}
		if !t.IsMultiCell() {
			return colOp{}, query.Invalidf("Invalid operation (%s) for frozen collection column %s", a, col.Name)
		}
		vr := recv
		if a.Op == parser.AssignSub && t.Kind == types.Map {
			vr = recv.Sub(col.Name, types.SetOf(t.Params[0], false)) // m = m - {keys}
		}
		if a.Op == parser.AssignPrepend && t.Kind != types.List {
			return colOp{}, query.Invalidf("Invalid operation (%s) for non list column %s", a, col.Name)
		}
		v, err := c.CompileTerm(a.Value, vr)
		if err != nil {
			// Operation.Addition and Substraction word a map's refused
			// value themselves.
			if qe := query.AsError(err); t.Kind == types.Map && qe.Code == wire.CodeInvalid {
				if a.Op == parser.AssignAdd {
					return colOp{}, query.Invalidf("Value for a map addition has to be a map, but was: '%s'", a.Value)
				}
				if a.Op == parser.AssignSub {
					return colOp{}, query.Invalidf("Value for a map substraction has to be a set, but was: '%s'", a.Value)
				}
			}
			return colOp{}, err
		}
		k := map[parser.AssignOp]opKind{parser.AssignAdd: opAdd, parser.AssignSub: opSub, parser.AssignPrepend: opPrepend}[a.Op]
		return colOp{col: col, kind: k, value: v}, nil
	case parser.AssignSetElem:
		switch {
		case t.Kind == types.List && t.IsMultiCell():
			idx, err := c.CompileTerm(a.Key, recv.Sub("idx("+col.Name+")", types.IntType))
			if err != nil {
				return colOp{}, err
			}
			v, err := c.CompileTerm(a.Value, recv.Sub("value("+col.Name+")", t.Params[0]))
			if err != nil {
				return colOp{}, err
			}
			return colOp{col: col, kind: opSetElem, key: idx, value: v}, nil
		case t.Kind == types.Map && t.IsMultiCell():
			k, err := c.CompileTerm(a.Key, recv.Sub("key("+col.Name+")", t.Params[0]))
			if err != nil {
				return colOp{}, err
			}
			v, err := c.CompileTerm(a.Value, recv.Sub("value("+col.Name+")", t.Params[1]))
			if err != nil {
				return colOp{}, err
			}
			return colOp{col: col, kind: opSetElem, key: k, value: v}, nil
		case t.IsCollection():
			return colOp{}, query.Invalidf("Invalid operation (%s) for frozen collection column %s", a, col.Name)
		}
		return colOp{}, query.Invalidf("Column %s is not a list or a map", col.Name)
	case parser.AssignSetField:
		if t.UDT == nil {
			return colOp{}, query.Invalidf("Invalid operation (%s) for non-UDT column %s", a, col.Name)
		}
		if t.Frozen {
			return colOp{}, query.Invalidf("Invalid operation (%s) for frozen UDT column %s", a, col.Name)
		}
		i := slices.Index(t.UDT.Fields, string(a.Field))
		if i < 0 {
			return colOp{}, query.Invalidf("UDT column %s does not have a field named %s", col.Name, a.Field)
		}
		v, err := c.CompileTerm(a.Value, recv.Sub(col.Name+"."+t.UDT.Fields[i], t.Params[i]))
		if err != nil {
			return colOp{}, err
		}
		return colOp{col: col, kind: opSetField, field: i, value: v}, nil
	}
	return colOp{}, query.Invalidf("Invalid operation (%s) for column %s", a, col.Name)
}

func compileDelete(s *plan.Compiler, st *parser.Delete) (plan.Plan, error) {
	tbl, err := modTable(s, st.Table, restrictions.KindDelete)
	if err != nil {
		return nil, err
	}
	c := expr.NewTableCompileCtx(st.BindCount(), tbl)
	c.Partitioner = s.Env.Engine.Partitioner()
	c.UDFs = s.UDFs()
	p := &modPlan{tbl: tbl, kind: restrictions.KindDelete, deleteRows: len(st.Columns) == 0}
	if st.Using.TTL != nil {
		return nil, query.Invalidf("TTL attribute is not allowed for deletes")
	}
	if _, p.timestamp, err = compileUsing(s, c, tbl, st.Using); err != nil {
		return nil, err
	}
	staticOnly := true
	for _, dc := range st.Columns {
		name := string(dc.Column)
		col := tbl.Column(name)
		if col == nil {
			return nil, query.Invalidf("Undefined column name %s in table %s", name, tbl.QualifiedName())
		}
		if col.Kind == schema.PartitionKey || col.Kind == schema.Clustering {
			return nil, query.Invalidf("Invalid identifier %s for deletion (should not be a PRIMARY KEY part)", name)
		}
		if col.Kind == schema.Regular {
			staticOnly = false
		}
		if dc.Field != "" {
			// DELETE udt.field (Operation.FieldDeletion): a null field.
			t := col.Type
			switch {
			case t.UDT == nil:
				return nil, query.Invalidf("Invalid field deletion operation for non-UDT column %s", name)
			case !t.IsMultiCell():
				return nil, query.Invalidf("Frozen UDT column %s does not support field deletions", name)
			}
			i := slices.Index(t.UDT.Fields, string(dc.Field))
			if i < 0 {
				return nil, query.Invalidf("UDT column %s does not have a field named %s", name, dc.Field)
			}
			p.ops = append(p.ops, colOp{col: col, kind: opSetField, field: i, value: expr.ConstTerm{}})
			continue
		}
		if dc.Key == nil {
			p.ops = append(p.ops, colOp{col: col, kind: opDelete})
			continue
		}
		t := col.Type
		if !t.IsMultiCell() || (t.Kind != types.List && t.Kind != types.Map && t.Kind != types.Set) {
			return nil, query.Invalidf("Invalid deletion operation for non collection column %s", name)
		}
		var kr expr.Receiver
		switch t.Kind {
		case types.List:
			kr = expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: "idx(" + name + ")", Typ: types.IntType}
		default:
			kr = expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: "key(" + name + ")", Typ: t.Params[0]}
		}
		k, err := c.CompileTerm(dc.Key, kr)
		if err != nil {
			return nil, err
		}
		p.ops = append(p.ops, colOp{col: col, kind: opDeleteElem, key: k})
	}
	p.staticOnly = staticOnly && len(p.ops) > 0
	if p.where, err = restrictions.CompileModWhere(c, tbl, st.Where, restrictions.KindDelete, p.staticOnly && !conditionsOnRegular(tbl, st.Conditions)); err != nil {
		return nil, err
	}
	if err := p.compileConditions(c, st.Conditions); err != nil {
		return nil, err
	}
	// Cassandra checks a conditional DELETE when it prepares it
	// (DeleteStatement.Parsed.prepareInternal) and a DELETE of columns in a
	// range of rows when it executes it (addUpdateForKey).
	if !p.where.FullClustering() {
		switch {
		case p.conds != nil && !p.staticOnly:
			return nil, query.Invalidf("DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to delete non static columns")
		case p.conds != nil && p.conds.onRegularColumns():
			return nil, query.Invalidf("DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to use IF condition on non static columns")
		case len(p.ops) > 0 && !p.staticOnly:
			return nil, query.Invalidf("Range deletions are not supported for specific columns")
		}
	}
	p.specs = c.Specs
	p.pkIdx = pkBindIndexes(p.where)
	return p, nil
}

// writeContext carries what building mutations needs: the write timestamp,
// the TTL and the current time.
type writeContext struct {
	ts     int64
	ttl    int32
	nowSec int64
	// expires is the local expiration time of what the write gives a TTL:
	// nowSec + ttl, or engine.MaxExpirationTime when the expiration date
	// overflow policy capped it (ExpirationDateOverflowHandling's
	// computeLocalExpirationTime).
	expires int64
	now     time.Time
}

func (p *modPlan) WriteContext(q *plan.Execution) (*writeContext, error) {
	wc := &writeContext{}
	if err := p.initWriteContext(q, wc); err != nil {
		return nil, err
	}
	return wc, nil
}

// initWriteContext fills wc for one execution; exec keeps wc on its stack.
func (p *modPlan) initWriteContext(q *plan.Execution, wc *writeContext) error {
	*wc = writeContext{now: q.Now, nowSec: q.NowInSec()}
	ttl := p.tbl.Options.DefaultTTL
	defaultTTL := true
	if p.ttl != nil {
		defaultTTL = false
		v, err := p.ttl.Eval(&q.Execution)
		if err != nil {
			return err
		}
		switch {
		case v.Unset:
		case len(v.Bytes) == 0:
			// A null or empty value means no TTL (Attributes.getTimeToLive,
			// CASSANDRA-17822).
			ttl = 0
		case len(v.Bytes) != 4:
			return query.Invalidf("Invalid TTL value: an int needs 4 bytes, got %d", len(v.Bytes))
		default:
			n := int32(binary.BigEndian.Uint32(v.Bytes))
			if n < 0 {
				return query.Invalidf("A TTL must be greater or equal to 0, but was %d", n)
			}
			if n > data.MaxTTL {
				return query.Invalidf("ttl is too large. requested (%d) maximum (%d)", n, data.MaxTTL)
			}
			ttl = n
		}
		if v.Unset {
			defaultTTL = true
		}
	}
	wc.expires = wc.nowSec + int64(ttl)
	if ttl > 0 && wc.expires > engine.MaxExpirationTime {
		// ExpirationDateOverflowHandling.maybeApplyExpirationDateOverflowPolicy.
		kind := ""
		if defaultTTL {
			kind = "default "
		}
		switch q.Env.ExpirationDateOverflowPolicy {
		case plan.ExpirationOverflowCap:
			q.Warnings = append(q.Warnings, fmt.Sprintf("Request on table %s.%s with %sttl of %d seconds exceeds maximum supported expiration date of 2038-01-19T03:14:06+00:00 and will have its expiration capped to that date. In order to avoid this use a lower TTL or upgrade to a version where this limitation is fixed. See CASSANDRA-14092 for more details.", p.tbl.Keyspace, p.tbl.Name, kind, ttl))
			wc.expires = engine.MaxExpirationTime
		case plan.ExpirationOverflowCapNoWarn:
			wc.expires = engine.MaxExpirationTime
		default:
			return query.Invalidf("Request on table %s.%s with %sttl of %d seconds exceeds maximum supported expiration date of 2038-01-19T03:14:06+00:00. In order to avoid this use a lower TTL, change the expiration date overflow policy or upgrade to a version where this limitation is fixed. See CASSANDRA-14092 for more details.", p.tbl.Keyspace, p.tbl.Name, kind, ttl)
		}
	}
	wc.ttl = ttl
	switch {
	case q.Batch != nil:
		wc.ts = q.Batch.Timestamp
		if p.timestamp != nil {
			v, err := p.timestamp.Eval(&q.Execution)
			if err != nil {
				return err
			}
			switch {
			case v.Unset:
			case v.Bytes == nil:
				return query.Invalidf("Invalid null value of timestamp")
			default:
				if wc.ts, err = timestampValue(v.Bytes); err != nil {
					return err
				}
			}
		}
	case p.timestamp != nil:
		v, err := p.timestamp.Eval(&q.Execution)
		if err != nil {
			return err
		}
		switch {
		case v.Unset:
			// Attributes.getTimestamp: an unset timestamp is now.
			wc.ts = q.Env.Engine.NewTimestamp()
		case v.Bytes == nil:
			return query.Invalidf("Invalid null value of timestamp")
		default:
			if wc.ts, err = timestampValue(v.Bytes); err != nil {
				return err
			}
		}
	case q.Params.HasTimestamp:
		wc.ts = q.Params.Timestamp
	default:
		wc.ts = q.Env.Engine.NewTimestamp()
	}
	return nil
}

// cell builds a cell written by this statement: a nil value writes a
// tombstone (a null), anything else a value expiring with the write's TTL.
func (wc *writeContext) cell(col string, path, value []byte) data.Cell {
	c := data.Cell{Column: col, Path: path, Timestamp: wc.ts, LocalDeletionTime: data.NoDeletionTime, Value: value}
	if value == nil {
		c.Kind = data.CellTombstone
		c.LocalDeletionTime = wc.nowSec
		return c
	}
	if wc.ttl > 0 {
		c.TTL = wc.ttl
		c.LocalDeletionTime = wc.expires
	}
	return c
}

func (wc *writeContext) tombstone(col string, path []byte) data.Cell {
	return data.Cell{Column: col, Path: path, Kind: data.CellTombstone, Timestamp: wc.ts, LocalDeletionTime: wc.nowSec}
}

func (wc *writeContext) deletion(ts int64) data.DeletionTime {
	return data.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: wc.nowSec}
}

// timestampValue decodes a USING TIMESTAMP value (a bigint), refusing the
// empty value a driver may bind and Long.MIN_VALUE, which Cassandra uses
// for "no timestamp" (UpdateParameters' constructor refuses it).
func timestampValue(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, query.Invalidf("Invalid timestamp value: a bigint needs 8 bytes, got %d", len(b))
	}
	ts := int64(binary.BigEndian.Uint64(b))
	if ts == math.MinInt64 {
		return 0, query.Invalidf("Out of bound timestamp, must be in [%d, %d]", int64(math.MinInt64+1), int64(math.MaxInt64))
	}
	return ts, nil
}

// listReferenceTime is Cassandra's reference time for list prepends
// (Lists.java: 2010-01-01T00:00:00Z): prepended elements get time UUIDs
// counting down from it, so they sort before every appended element.
var listReferenceTime = time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)

// prependSeq orders prepended list elements: each prepend takes the next
// lower values, so a later prepend sorts before an earlier one even within
// the same millisecond (Cassandra's PrecisionTime counts down likewise).
var prependSeq atomic.Int64

func init() { prependSeq.Store(1 << 54) }

// prependUUID returns the time UUID of a prepended list element: the time
// part is base (counting down from the reference time as the clock moves
// forward) and the low 8 bytes carry seq so that the comparator (which
// compares them as signed bytes) orders elements by seq.
func prependUUID(base time.Time, seq int64) types.UUIDValue {
	u := types.MinTimeUUID(base)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(seq))
	// Byte 8 keeps the RFC 4122 variant; bytes 9-15 hold seq's low 56
	// bits, each flipped so their unsigned order is the signed-byte order.
	for i := 9; i < 16; i++ {
		u[i] = b[i-8] ^ 0x80
	}
	return u
}

// Mutations builds the mutations of one execution (one per partition).
func (p *modPlan) Mutations(ctx context.Context, q *plan.Execution, wc *writeContext) ([]*data.Mutation, error) {
	if p.simple {
		m, err := p.simpleMutation(q, wc, new(simpleRow))
		if err != nil {
			return nil, err
		}
		return []*data.Mutation{m}, nil
	}
	keys, err := p.where.PartitionKeys(&q.Execution)
	if err != nil {
		return nil, err
	}
	var prefixes [][][]byte
	if !p.staticOnly && p.where.FullClustering() {
		if prefixes, err = p.where.ClusteringPrefixes(&q.Execution); err != nil {
			return nil, err
		}
		for _, pre := range prefixes {
			if err := checkCompactClustering(p.tbl, pre); err != nil {
				return nil, err
			}
		}
	}
	var muts []*data.Mutation
	for _, key := range keys {
		m := &data.Mutation{Table: p.tbl.ID, Key: key, PartitionDeletion: data.LiveDeletion}
		switch {
		case p.kind == restrictions.KindDelete && p.deleteRows:
			if err := p.deleteRowsInto(q, wc, m, prefixes); err != nil {
				return nil, err
			}
		case p.staticOnly:
			row := data.NewRow(nil)
			if err := p.applyOps(ctx, q, wc, key, &row); err != nil {
				return nil, err
			}
			m.Static = &row
		default:
			cols := p.tbl.ClusteringTypes()
			for _, prefix := range prefixes {
				ck, err := types.EncodeClustering(cols, prefix)
				if err != nil {
					return nil, query.Invalidf("%v", err)
				}
				row := data.NewRow(ck)
				if p.insertLiveness {
					row.Liveness = data.LivenessInfo{Timestamp: wc.ts, ExpiresAt: data.NoDeletionTime}
					if wc.ttl > 0 {
						row.Liveness.TTL, row.Liveness.ExpiresAt = wc.ttl, wc.expires
					}
				}
				static := data.NewRow(nil)
				if err := p.applyOpsSplit(ctx, q, wc, key, &row, &static); err != nil {
					return nil, err
				}
				m.Rows = append(m.Rows, row)
				if !static.IsEmpty() {
					if m.Static == nil {
						st := data.NewRow(nil)
						m.Static = &st
					}
					merged := data.MergeRows(m.Static, &static)
					m.Static = &merged
				}
			}
		}
		muts = append(muts, m)
	}
	return muts, nil
}

func (p *modPlan) deleteRowsInto(q *plan.Execution, wc *writeContext, m *data.Mutation, prefixes [][][]byte) error {
	del := wc.deletion(wc.ts)
	switch {
	case !p.where.CkRestricted():
		m.PartitionDeletion = del
	case p.where.FullClustering():
		for _, prefix := range prefixes {
			ck, err := types.EncodeClustering(p.tbl.ClusteringTypes(), prefix)
			if err != nil {
				return query.Invalidf("%v", err)
			}
			row := data.NewRow(ck)
			row.Deletion = del
			m.Rows = append(m.Rows, row)
		}
	default:
		ranges, none, err := p.where.Ranges(&q.Execution)
		if err != nil || none {
			return err
		}
		for _, r := range ranges {
			m.RangeTombstones = append(m.RangeTombstones, data.RangeTombstone{Start: r.Start, End: r.End, Deletion: del})
		}
	}
	return nil
}

// applyOps applies every column operation to row (the static row of a
// static-only statement).
func (p *modPlan) applyOps(ctx context.Context, q *plan.Execution, wc *writeContext, key []byte, row *data.Row) error {
	return p.applyOpsSplit(ctx, q, wc, key, row, row)
}

// applyOpsSplit applies the operations of regular columns to row and of
// static columns to static.
func (p *modPlan) applyOpsSplit(ctx context.Context, q *plan.Execution, wc *writeContext, key []byte, row, static *data.Row) error {
	for i := range p.ops {
		op := &p.ops[i]
		target := row
		if op.col.Kind == schema.Static {
			target = static
		}
		if err := p.applyOp(ctx, q, wc, key, target, op); err != nil {
			return err
		}
	}
	sortCells(row)
	if static != row {
		sortCells(static)
	}
	return nil
}

func sortCells(r *data.Row) {
	if len(r.Cells) < 2 && len(r.ColumnDeletions) < 2 {
		return
	}
	sort.SliceStable(r.Cells, func(i, j int) bool { return data.CompareID(&r.Cells[i], &r.Cells[j]) < 0 })
	// Two operations on the same cell (m[k] = 1, m[k] = 2) write it twice
	// with the same timestamp: the versions reconcile as any two do (the
	// greater value wins, a tombstone wins over a value), as Cassandra's
	// row builder merges them.
	out := r.Cells[:0]
	for i := range r.Cells {
		if len(out) > 0 && data.CompareID(&out[len(out)-1], &r.Cells[i]) == 0 {
			out[len(out)-1] = data.Reconcile(&out[len(out)-1], &r.Cells[i])
			continue
		}
		out = append(out, r.Cells[i])
	}
	r.Cells = out
	sort.Slice(r.ColumnDeletions, func(i, j int) bool { return r.ColumnDeletions[i].Column < r.ColumnDeletions[j].Column })
}

func addColumnDeletion(r *data.Row, col string, d data.DeletionTime) {
	for i := range r.ColumnDeletions {
		if r.ColumnDeletions[i].Column == col {
			r.ColumnDeletions[i].Deletion = data.MaxDeletion(r.ColumnDeletions[i].Deletion, d)
			return
		}
	}
	r.ColumnDeletions = append(r.ColumnDeletions, data.ColumnDeletion{Column: col, Deletion: d})
}

func (p *modPlan) applyOp(ctx context.Context, q *plan.Execution, wc *writeContext, key []byte, row *data.Row, op *colOp) error {
	col := op.col
	t := col.Type
	var val query.Value
	if op.value != nil {
		v, err := op.value.Eval(&q.Execution)
		if err != nil {
			return err
		}
		val = v
	}
	if val.Unset && op.kind != opDelete && op.kind != opDeleteElem {
		return nil // an unset value writes nothing
	}
	if t.Kind == types.Counter {
		if val.Bytes == nil {
			return query.Invalidf("Invalid null value for counter increment")
		}
		n := int64(binary.BigEndian.Uint64(val.Bytes))
		if op.kind == opSub {
			n = -n
		}
		row.Cells = append(row.Cells, data.Cell{Column: col.Name, Kind: data.CellCounter, Timestamp: wc.ts, LocalDeletionTime: data.NoDeletionTime, Value: data.CounterBytes(n)})
		return nil
	}
	multi := t.IsMultiCell()
	switch op.kind {
	case opSet:
		if !multi {
			row.Cells = append(row.Cells, wc.cell(col.Name, nil, val.Bytes))
			return nil
		}
		addColumnDeletion(row, col.Name, wc.deletion(wc.ts-1))
		if val.Bytes == nil {
			return nil
		}
		return p.addElements(q, wc, row, col, val.Bytes, false)
	case opAdd:
		if val.Bytes == nil {
			return nil
		}
		return p.addElements(q, wc, row, col, val.Bytes, false)
	case opPrepend:
		if val.Bytes == nil {
			return nil
		}
		return p.addElements(q, wc, row, col, val.Bytes, true)
	case opSub:
		if val.Bytes == nil {
			return nil
		}
		switch t.Kind {
		case types.Set, types.Map:
			setType := t
			if t.Kind == types.Map {
				setType = types.SetOf(t.Params[0], false)
			}
			elems, err := types.DecodeCollection(setType, val.Bytes)
			if err != nil {
				return query.Invalidf("Invalid set value for %s: %v", col.Name, err)
			}
			for _, e := range elems {
				row.Cells = append(row.Cells, wc.tombstone(col.Name, types.EncodeKey(t.Params[0], e)))
			}
		case types.List:
			remove, err := types.DecodeCollection(t, val.Bytes)
			if err != nil {
				return query.Invalidf("Invalid list value for %s: %v", col.Name, err)
			}
			cur, err := p.currentList(ctx, q, key, row, col)
			if err != nil {
				return err
			}
			for _, c := range cur {
				for _, r := range remove {
					if string(c.Value) == string(r) {
						row.Cells = append(row.Cells, wc.tombstone(col.Name, c.Path))
						break
					}
				}
			}
		}
		return nil
	case opSetElem:
		k, err := op.key.Eval(&q.Execution)
		if err != nil {
			return err
		}
		if t.Kind == types.Map {
			// Maps.SetterByKey.
			if err := checkMapKey(k); err != nil {
				return err
			}
			row.Cells = append(row.Cells, wc.cell(col.Name, types.EncodeKey(t.Params[0], k.Bytes), val.Bytes))
			return nil
		}
		// Lists.SetterByIndex.
		switch {
		case k.Bytes == nil && !k.Unset:
			return query.Invalidf("Invalid null value for list index")
		case k.Unset:
			return query.Invalidf("Invalid unset value for list index")
		}
		path, err := p.listIndexPath(ctx, q, key, row, col, k.Bytes, "Attempted to set an element on a list which is null")
		if err != nil {
			return err
		}
		row.Cells = append(row.Cells, wc.cell(col.Name, path, val.Bytes))
		return nil
	case opSetField:
		if val.Bytes == nil {
			row.Cells = append(row.Cells, wc.tombstone(col.Name, types.FieldPath(op.field)))
			return nil
		}
		row.Cells = append(row.Cells, wc.cell(col.Name, types.FieldPath(op.field), val.Bytes))
		return nil
	case opDelete:
		if multi {
			addColumnDeletion(row, col.Name, wc.deletion(wc.ts))
			return nil
		}
		row.Cells = append(row.Cells, wc.tombstone(col.Name, nil))
		return nil
	case opDeleteElem:
		k, err := op.key.Eval(&q.Execution)
		if err != nil {
			return err
		}
		switch t.Kind {
		case types.Map:
			// Maps.DiscarderByKey.
			if err := checkMapKey(k); err != nil {
				return err
			}
		case types.List:
			// Lists.DiscarderByIndex: an unset index deletes nothing.
			if k.Bytes == nil && !k.Unset {
				return query.Invalidf("Invalid null value for list index")
			}
		default:
			// Sets.ElementDiscarder.
			if k.Bytes == nil && !k.Unset {
				return query.Invalidf("Invalid null set element")
			}
		}
		if k.Unset {
			return nil
		}
		if t.Kind == types.List {
			path, err := p.listIndexPath(ctx, q, key, row, col, k.Bytes, "Attempted to delete an element from a list which is null")
			if err != nil {
				return err
			}
			row.Cells = append(row.Cells, wc.tombstone(col.Name, path))
			return nil
		}
		row.Cells = append(row.Cells, wc.tombstone(col.Name, types.EncodeKey(t.Params[0], k.Bytes)))
		return nil
	}
	return nil
}

// addElements writes the elements of a serialized collection as cells.
func (p *modPlan) addElements(q *plan.Execution, wc *writeContext, row *data.Row, col *schema.Column, value []byte, prepend bool) error {
	t := col.Type
	if t.UDT != nil {
		// One cell per non-null field (the column deletion before it
		// clears the others).
		fields, err := types.DecodeTuple(t, value)
		if err != nil {
			return query.Invalidf("Invalid user type value for %s: %v", col.Name, err)
		}
		for i, f := range fields {
			if f != nil {
				row.Cells = append(row.Cells, wc.cell(col.Name, types.FieldPath(i), f))
			}
		}
		return nil
	}
	elems, err := types.DecodeCollection(t, value)
	if err != nil {
		return query.Invalidf("Invalid collection value for %s: %v", col.Name, err)
	}
	switch t.Kind {
	case types.List:
		if prepend {
			base := listReferenceTime.Add(-wc.now.Sub(listReferenceTime))
			seq := prependSeq.Add(-int64(len(elems)))
			for i, e := range elems {
				u := prependUUID(base, seq+int64(i))
				row.Cells = append(row.Cells, wc.cell(col.Name, types.EncodeKey(types.TimeUUIDType, u[:]), e))
			}
			break
		}
		for _, e := range elems {
			u := q.UUIDs.NewTimeUUID(wc.now)
			row.Cells = append(row.Cells, wc.cell(col.Name, types.EncodeKey(types.TimeUUIDType, u[:]), e))
		}
	case types.Set:
		for _, e := range elems {
			row.Cells = append(row.Cells, wc.cell(col.Name, types.EncodeKey(t.Params[0], e), []byte{}))
		}
	case types.Map:
		for i := 0; i+1 < len(elems); i += 2 {
			row.Cells = append(row.Cells, wc.cell(col.Name, types.EncodeKey(t.Params[0], elems[i]), elems[i+1]))
		}
	}
	return nil
}

// checkMapKey refuses a null or unset map key, as Maps.SetterByKey and
// DiscarderByKey do.
func checkMapKey(k query.Value) error {
	switch {
	case k.Unset:
		return query.Invalidf("Invalid unset map key")
	case k.Bytes == nil:
		return query.Invalidf("Invalid null map key")
	}
	return nil
}

// listIndexPath returns the element path of the idx-th live element of a
// list column, reading the current row; an empty or null list is refused
// with ifNull (Lists.SetterByIndex and DiscarderByIndex).
func (p *modPlan) listIndexPath(ctx context.Context, q *plan.Execution, key []byte, pending *data.Row, col *schema.Column, idxBytes []byte, ifNull string) ([]byte, error) {
	idx := int(int32(binary.BigEndian.Uint32(idxBytes)))
	cur, err := p.currentList(ctx, q, key, pending, col)
	if err != nil {
		return nil, err
	}
	if len(cur) == 0 {
		return nil, query.Invalidf("%s", ifNull)
	}
	if idx < 0 || idx >= len(cur) {
		return nil, query.Invalidf("List index %d out of bound, list has size %d", idx, len(cur))
	}
	return cur[idx].Path, nil
}

// currentList reads the live elements of a list column of one row, with
// the changes the statement's earlier operations made to it (pending, the
// row being built) merged in, as UpdateParameters.getPrefetchedRow merges
// the pending mutations: l = l + ?, l[i] = ? sets an appended element.
func (p *modPlan) currentList(ctx context.Context, q *plan.Execution, key []byte, pending *data.Row, col *schema.Column) ([]data.Cell, error) {
	row, err := readOneRow(ctx, q, p.tbl, key, pending.Clustering, col.Kind == schema.Static)
	if err != nil {
		return nil, err
	}
	var cells []data.Cell
	if row != nil {
		for _, c := range row.Cells {
			if c.Column == col.Name {
				cells = append(cells, c)
			}
		}
	}
	del := data.LiveDeletion
	for _, d := range pending.ColumnDeletions {
		if d.Column == col.Name {
			del = d.Deletion
		}
	}
	for _, c := range pending.Cells {
		if c.Column == col.Name {
			cells = append(cells, c)
		}
	}
	sort.SliceStable(cells, func(i, j int) bool { return data.CompareID(&cells[i], &cells[j]) < 0 })
	var out []data.Cell
	now := q.NowInSec()
	for i := 0; i < len(cells); {
		c := cells[i]
		j := i + 1
		for ; j < len(cells) && data.CompareID(&cells[j], &c) == 0; j++ {
			c = data.Reconcile(&c, &cells[j])
		}
		i = j
		if del != data.LiveDeletion && c.Timestamp <= del.MarkedForDeleteAt {
			continue
		}
		if c.IsLive(now) {
			out = append(out, c)
		}
	}
	return out, nil
}

func (p *modPlan) Exec(ctx context.Context, q *plan.Execution) (*query.Result, error) {
	// ModificationStatement.executeWithoutCondition validates the
	// consistency level before it builds anything (a conditional
	// statement's levels are StorageProxy.cas's, in execConditional).
	if p.conds == nil {
		if err := q.ValidateWrite(p.tbl); err != nil {
			return nil, err
		}
	}
	var wc writeContext
	if err := p.initWriteContext(q, &wc); err != nil {
		return nil, err
	}
	if p.conds != nil {
		return p.execConditional(ctx, q, &wc)
	}
	if len(p.tbl.Triggers) > 0 {
		return p.execWithTriggers(ctx, q, &wc)
	}
	if p.simple {
		m, err := p.simpleMutation(q, &wc, new(simpleRow))
		if err != nil {
			return nil, err
		}
		if err := p.apply(ctx, q, m); err != nil {
			return nil, err
		}
		return voidResult(q), nil
	}
	muts, err := p.Mutations(ctx, q, &wc)
	if err != nil {
		return nil, err
	}
	for _, m := range muts {
		if err := p.apply(ctx, q, m); err != nil {
			return nil, err
		}
	}
	return voidResult(q), nil
}

// execWithTriggers is Exec for a table with triggers
// (StorageProxy.mutateWithTriggers): the statement's mutations, what the
// triggers add to them, merged by partition and applied together.
func (p *modPlan) execWithTriggers(ctx context.Context, q *plan.Execution, wc *writeContext) (*query.Result, error) {
	muts, err := p.Mutations(ctx, q, wc)
	if err != nil {
		return nil, err
	}
	own := make([]tableMutation, 0, len(muts))
	for _, m := range muts {
		own = append(own, tableMutation{tbl: p.tbl, m: m})
	}
	added, err := runTriggers(ctx, q, own, p.counter)
	if err != nil {
		return nil, err
	}
	if err := applyAll(ctx, q, mergeByPartition(own, added)); err != nil {
		return nil, err
	}
	return voidResult(q), nil
}

// voidResult is the result of a write, in the caller's room when it lends
// one (plan.Execution.NewResult).
func voidResult(q *plan.Execution) *query.Result {
	res := q.NewResult()
	res.Kind = wire.ResultVoid
	return res
}

// apply hands one mutation to the engine, or to a registered virtual
// table; an empty mutation writes nothing.
func (p *modPlan) apply(ctx context.Context, q *plan.Execution, m *data.Mutation) error {
	if m.IsEmpty() {
		return nil
	}
	if virtual.IsUserVirtual(p.tbl) {
		return plan.VirtualError(virtual.ApplyUser(ctx, p.tbl, m))
	}
	if err := q.CheckWrite(p.tbl.Keyspace); err != nil {
		return err
	}
	if q.Trace != nil {
		q.Trace.Add("Applying mutation to %s, partition %s (token %s), %d rows", p.tbl.QualifiedName(), p.tbl.FormatPartitionWhere(m.Key), q.Env.Engine.Partitioner().TokenString(m.Key), len(m.Rows))
	}
	if err := q.Env.Engine.Apply(ctx, p.tbl, m); err != nil {
		return query.AsError(err)
	}
	return nil
}

// planSimple decides whether executions can take the single-row path
// (simpleMutation) and prepares its operations. It runs once per compiled
// plan.
func (p *modPlan) planSimple() {
	p.simple = false
	if p.conds != nil || p.staticOnly || p.deleteRows || p.counter || (p.kind != restrictions.KindInsert && p.kind != restrictions.KindUpdate) {
		return
	}
	pk, ck, ok := p.where.SingleKey()
	if !ok {
		return
	}
	for i := range p.ops {
		op := &p.ops[i]
		if op.kind != opSet || op.value == nil || op.col.Kind != schema.Regular ||
			op.col.Type.IsMultiCell() || op.col.Type.Kind == types.Counter {
			return
		}
	}
	p.simple, p.simplePK, p.simpleCK = true, pk, ck
}

// simpleRow is a mutation of one row with room for its row.
type simpleRow struct {
	m   data.Mutation
	row [1]data.Row
}

// simpleMutation builds the mutation of a simple plan (see planSimple): the
// same mutation mutations builds for one partition key and one clustering
// key, with the same checks in the same order, but without the
// combinations, deduplication and sorting that IN restrictions and
// collection operations need. The partition key and the cell values alias
// the bound values (they become the memtable's once applied, as with
// mutations); the clustering key and the cells are allocated per call.
//
// h receives the mutation: it must be fresh, as the engine may keep it.
func (p *modPlan) simpleMutation(q *plan.Execution, wc *writeContext, h *simpleRow) (*data.Mutation, error) {
	var partsBuf [plan.MaxInlineKeyParts][]byte
	parts := partsBuf[:0]
	for _, kv := range p.simplePK {
		v, err := kv.SingleValue(&q.Execution)
		if err != nil {
			return nil, err
		}
		parts = append(parts, v)
	}
	key, err := query.SerializePartitionKey(parts)
	if err != nil {
		return nil, err
	}
	var ckBuf [plan.MaxInlineKeyParts][]byte
	ckVals := ckBuf[:0]
	size := 1
	for _, kv := range p.simpleCK {
		v, err := kv.SingleValue(&q.Execution)
		if err != nil {
			return nil, err
		}
		ckVals = append(ckVals, v)
		size += 2 + len(v)
	}
	if err := checkCompactClustering(p.tbl, ckVals); err != nil {
		return nil, err
	}
	if err := restrictions.CheckClusteringSize(ckVals); err != nil {
		return nil, err
	}
	ck, err := types.AppendClustering(make([]byte, 0, size), p.tbl.ClusteringTypes(), ckVals)
	if err != nil {
		return nil, query.Invalidf("%v", err)
	}
	// Field by field: the literal was built aside and copied, a stall
	// on this path.
	m := &h.m
	m.Table, m.Key, m.PartitionDeletion, m.RangeTombstones, m.Static = p.tbl.ID, key, data.LiveDeletion, nil, nil
	h.row[0] = data.NewRow(ck)
	row := &h.row[0]
	if p.insertLiveness {
		row.Liveness = data.LivenessInfo{Timestamp: wc.ts, ExpiresAt: data.NoDeletionTime}
		if wc.ttl > 0 {
			row.Liveness.TTL, row.Liveness.ExpiresAt = wc.ttl, wc.expires
		}
	}
	var cells []data.Cell
	for i := range p.ops {
		op := &p.ops[i]
		v, err := op.value.Eval(&q.Execution)
		if err != nil {
			return nil, err
		}
		if v.Unset {
			continue // an unset value writes nothing
		}
		if cells == nil {
			cells = make([]data.Cell, 0, len(p.ops)-i)
		}
		cells = append(cells, wc.cell(op.col.Name, nil, v.Bytes))
	}
	// No column is set twice (INSERT and UPDATE refuse it), so sorting by
	// name alone gives the cells' order.
	if len(cells) > 1 {
		slices.SortFunc(cells, func(a, b data.Cell) int { return strings.Compare(a.Column, b.Column) })
	}
	row.Cells = cells
	h.m.Rows = h.row[:]
	return &h.m, nil
}

// checkVirtualWrite applies ModificationStatement.validate's rules for a
// virtual table to a compiled INSERT, UPDATE or DELETE: no custom
// timestamp, no TTL, no condition.
func checkVirtualWrite(pl plan.Plan, err error) (plan.Plan, error) {
	if err != nil {
		return nil, err
	}
	if mp, ok := pl.(*modPlan); ok {
		if err := mp.checkVirtual(); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

func (p *modPlan) checkVirtual() error {
	if !virtual.IsVirtualTable(p.tbl) {
		return nil
	}
	switch {
	case p.timestamp != nil:
		return query.Invalidf("Custom timestamp is not supported by virtual tables")
	case p.ttl != nil:
		return query.Invalidf("Expiring columns are not supported by virtual tables")
	case p.conds != nil:
		return query.Invalidf("Conditional updates are not supported by virtual tables")
	}
	return nil
}
