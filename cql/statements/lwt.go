package statements

import (
	"context"
	"slices"

	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/expr"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/restrictions"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// condition is one compiled IF condition of a lightweight transaction.
type condition struct {
	col *schema.Column
	// elem is the element key (map) or index (list) of c[k] op v.
	elem   expr.Term
	op     parser.Operator
	values []expr.Term
	// inMarker is set for "c IN ?".
	inMarker *expr.BindTerm
	// field is the field of "udt.field op value", when hasField is set.
	field    int
	hasField bool
}

// conditions is the compiled IF clause of a statement.
type conditions struct {
	tbl                   *schema.Table
	ifExists, ifNotExists bool
	conds                 []condition
	// staticRow is set when the statement applies only to static columns
	// (no clustering in its WHERE): IF EXISTS and IF NOT EXISTS then ask
	// whether the partition's static row exists, as Cassandra checks the
	// row at Clustering.STATIC_CLUSTERING (ModificationStatement.createClustering).
	staticRow bool
}

// onRegularColumns reports whether a condition reads a regular column.
func (cs *conditions) onRegularColumns() bool {
	for _, c := range cs.conds {
		if c.col.Kind == schema.Regular {
			return true
		}
	}
	return false
}

func (p *modPlan) compileConditions(c *expr.CompileCtx, pc parser.Conditions) error {
	if !pc.IfExists && !pc.IfNotExists && len(pc.If) == 0 {
		return nil
	}
	if p.timestamp != nil {
		return query.Invalidf("Cannot provide custom timestamp for conditional updates")
	}
	if p.counter {
		return query.Invalidf("Conditional updates are not supported on counter tables")
	}
	cs := &conditions{tbl: p.tbl, ifExists: pc.IfExists, ifNotExists: pc.IfNotExists}
	tbl := p.tbl
	for _, cond := range pc.If {
		name := string(cond.Column)
		col := tbl.Column(name)
		if col == nil {
			return query.Invalidf("Undefined column name %s in table %s", name, tbl.QualifiedName())
		}
		if col.Kind == schema.PartitionKey || col.Kind == schema.Clustering {
			return query.Invalidf("PRIMARY KEY column '%s' cannot have IF conditions", name)
		}
		cc := condition{col: col, op: cond.Op}
		recv := expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: name, Typ: col.Type}
		if cond.Field != "" {
			// ColumnCondition.Raw.udtFieldCondition: the field's value.
			t := col.Type
			if t.UDT == nil {
				return query.Invalidf("Invalid field selection: %s of type %s is not a user type", name, t)
			}
			i := slices.Index(t.UDT.Fields, string(cond.Field))
			if i < 0 {
				return query.Invalidf("Unknown field %s for column %s", cond.Field, name)
			}
			cc.field, cc.hasField = i, true
			recv = recv.Sub(name+"."+string(cond.Field), t.Params[i])
		}
		if cond.Elem != nil {
			switch col.Type.Kind {
			case types.Map:
				k, err := c.CompileTerm(cond.Elem, recv.Sub("key("+name+")", col.Type.Params[0]))
				if err != nil {
					return err
				}
				cc.elem = k
				recv = recv.Sub("value("+name+")", col.Type.Params[1])
			case types.List:
				k, err := c.CompileTerm(cond.Elem, recv.Sub("idx("+name+")", types.IntType))
				if err != nil {
					return err
				}
				cc.elem = k
				recv = recv.Sub("value("+name+")", col.Type.Params[0])
			default:
				return query.Invalidf("Invalid element access syntax for non-collection column %s", name)
			}
		}
		if isSliceOp(cond.Op) && referencesDuration(recv.Typ) {
			// ColumnCondition.Raw.prepare: validateOperationOnDurations.
			switch {
			case recv.Typ.IsCollection():
				return query.Invalidf("Slice conditions are not supported on collections containing durations")
			case recv.Typ.UDT != nil:
				return query.Invalidf("Slice conditions are not supported on UDTs containing durations")
			case recv.Typ.Kind == types.Tuple:
				return query.Invalidf("Slice conditions are not supported on tuples containing durations")
			}
			return query.Invalidf("Slice conditions ( %s ) are not supported on durations", cond.Op)
		}
		switch cond.Op {
		case parser.OpIn:
			switch v := cond.Value.(type) {
			case *parser.BindMarker:
				bt := c.Bind(v, recv.Sub("in("+recv.Name+")", types.ListOf(recv.Typ, false)))
				cc.inMarker = &bt
			case *parser.InList:
				for _, e := range v.Elems {
					t, err := c.CompileTerm(e, recv)
					if err != nil {
						return err
					}
					cc.values = append(cc.values, t)
				}
			}
		case parser.OpContains, parser.OpContainsKey:
			// CASSANDRA-10537 (4.1): CONTAINS of a list, set or map value,
			// CONTAINS KEY of a map key.
			t := recv.Typ
			switch {
			case cond.Elem != nil || !t.IsCollection():
				return query.Invalidf("Cannot use %s on non-collection column %s", cond.Op, name)
			case cond.Op == parser.OpContainsKey && t.Kind != types.Map:
				return query.Invalidf("Cannot use CONTAINS KEY on non-map column %s", name)
			}
			elem := t.Params[0]
			if t.Kind == types.Map && cond.Op == parser.OpContains {
				elem = t.Params[1]
			}
			v, err := c.CompileTerm(cond.Value, recv.Sub(name, elem))
			if err != nil {
				return err
			}
			cc.values = []expr.Term{v}
		case parser.OpEq, parser.OpNeq, parser.OpLt, parser.OpLte, parser.OpGt, parser.OpGte:
			t, err := c.CompileTerm(cond.Value, recv)
			if err != nil {
				return err
			}
			cc.values = []expr.Term{t}
		default:
			return query.Invalidf("Unsupported operator %s in IF condition", cond.Op)
		}
		cs.conds = append(cs.conds, cc)
	}
	cs.staticRow = p.staticOnly && !cs.onRegularColumns()
	p.conds = cs
	return nil
}

// currentState is what a conditional statement reads under its partition lock.
type currentState struct {
	row    *data.Row // the clustering row, live cells only (nil if absent)
	static *data.Row
	// pk and ck are the primary key values of the row read.
	pk, ck [][]byte
	// now is the read time (seconds), against which cells are live.
	now int64
}

func (st *currentState) cellsOf(col *schema.Column) []data.Cell {
	r := st.row
	if col.Kind == schema.Static {
		r = st.static
	}
	if r == nil {
		return nil
	}
	var out []data.Cell
	for _, c := range r.Cells {
		if c.Column == col.Name {
			out = append(out, c)
		}
	}
	return out
}

// columnValue assembles a column's serialized value from the live cells a
// conditional statement read: a simple cell's value, or a non-frozen
// collection built from its element cells (collectionValue, shared with
// SELECT). It returns nil (null) when there is no live data.
func columnValue(col *schema.Column, cells []data.Cell, now int64) []byte {
	if len(cells) == 0 {
		return nil
	}
	t := col.Type
	if t.IsMultiCell() {
		return expr.CollectionValue(t, cells, now)
	}
	if t.Kind == types.Counter {
		return data.CounterBytes(data.CounterValue(cells[0].Value))
	}
	return cells[0].Value
}

// check evaluates one condition against the current state.
func (cc *condition) check(q *plan.Execution, st *currentState) (bool, error) {
	cells := st.cellsOf(cc.col)
	var cur []byte
	valType := cc.col.Type
	if cc.elem != nil {
		k, err := cc.elem.Eval(&q.Execution)
		if err != nil {
			return false, err
		}
		if k.Bytes == nil || k.Unset {
			// ColumnCondition's element access names the collection kind.
			return false, query.Invalidf("Invalid null value for %s element access", valType.Kind)
		}
		// A frozen collection is one cell: its elements are read from the
		// serialized value.
		var elems [][]byte
		if !valType.IsMultiCell() {
			if v := columnValue(cc.col, cells, q.NowInSec()); v != nil {
				var err error
				if elems, err = types.DecodeCollection(valType, v); err != nil {
					return false, query.Invalidf("%v", err)
				}
			}
		}
		switch valType.Kind {
		case types.Map:
			if valType.IsMultiCell() {
				path := types.EncodeKey(valType.Params[0], k.Bytes)
				for _, c := range cells {
					if string(c.Path) == string(path) {
						cur = c.Value
					}
				}
			} else {
				for i := 0; i+1 < len(elems); i += 2 {
					if types.Compare(valType.Params[0], elems[i], k.Bytes) == 0 {
						cur = elems[i+1]
					}
				}
			}
			valType = valType.Params[1]
		case types.List:
			idx := int(int32(be32(k.Bytes)))
			if idx < 0 {
				return false, query.Invalidf("Invalid negative list index %d", idx)
			}
			if valType.IsMultiCell() {
				if idx < len(cells) {
					cur = cells[idx].Value
				}
			} else if idx < len(elems) {
				cur = elems[idx]
			}
			valType = valType.Params[0]
		}
	} else if cc.hasField {
		valType = valType.Params[cc.field]
		if cc.col.Type.IsMultiCell() {
			for _, c := range cells {
				if types.FieldOfPath(c.Path) == cc.field {
					cur = c.Value
				}
			}
		} else if v := columnValue(cc.col, cells, q.NowInSec()); v != nil {
			fields, err := types.DecodeTuple(cc.col.Type, v)
			if err != nil {
				return false, query.Invalidf("%v", err)
			}
			if cc.field < len(fields) {
				cur = fields[cc.field]
			}
		}
	} else {
		cur = columnValue(cc.col, cells, q.NowInSec())
	}
	var vals [][]byte
	if cc.inMarker != nil {
		elems, err := inMarkerValues(q, cc.inMarker, cc.col.Name, valType)
		if err != nil {
			return false, err
		}
		vals = elems
	} else {
		for _, t := range cc.values {
			v, err := t.Eval(&q.Execution)
			if err != nil {
				return false, err
			}
			if v.Unset {
				// An IN list drops its unset values; any other operator
				// refuses one (ColumnCondition's filterUnsetValuesIfNeeded).
				if cc.op == parser.OpIn {
					continue
				}
				if cc.op == parser.OpContains || cc.op == parser.OpContainsKey {
					// An unset element matches nothing: the condition
					// does not apply (InsertUpdateIfConditionCollectionsTest).
					return false, nil
				}
				return false, query.Invalidf("Invalid 'unset' value in condition")
			}
			vals = append(vals, v.Bytes)
		}
	}
	// A non-frozen collection has no empty value: an empty one is null
	// (Cassandra stores no cell for it), so an empty collection given in
	// the condition is null too, and a null column orders as the empty
	// collection, before any other.
	multiCell := cc.elem == nil && !cc.hasField && valType.IsMultiCell() && valType.IsCollection()
	if multiCell {
		for i, v := range vals {
			if v != nil {
				if elems, err := types.DecodeCollection(valType, v); err == nil && len(elems) == 0 {
					vals[i] = nil
				}
			}
		}
	}
	equal := func(a, b []byte) bool {
		if a == nil || b == nil {
			return a == nil && b == nil
		}
		if valType.IsCollection() {
			return string(a) == string(b)
		}
		return types.Compare(valType, a, b) == 0
	}
	switch cc.op {
	case parser.OpContains, parser.OpContainsKey:
		return cc.contains(cells, cur, vals[0])
	case parser.OpEq:
		return equal(cur, vals[0]), nil
	case parser.OpNeq:
		return !equal(cur, vals[0]), nil
	case parser.OpIn:
		for _, v := range vals {
			if equal(cur, v) {
				return true, nil
			}
		}
		return false, nil
	}
	if vals[0] == nil {
		return false, query.Invalidf("Invalid comparison with null for operator \"%s\"", cc.op)
	}
	var c int
	switch {
	case cur == nil && multiCell:
		c = -1 // the empty collection sorts first; vals[0] is not empty
	case cur == nil:
		return false, nil
	default:
		c = types.Compare(valType, cur, vals[0])
	}
	switch cc.op {
	case parser.OpLt:
		return c < 0, nil
	case parser.OpLte:
		return c <= 0, nil
	case parser.OpGt:
		return c > 0, nil
	case parser.OpGte:
		return c >= 0, nil
	}
	return false, nil
}

// contains evaluates CONTAINS and CONTAINS KEY on the collection whose cells
// (non-frozen) or value cur (frozen) is given.
func (cc *condition) contains(cells []data.Cell, cur, v []byte) (bool, error) {
	t := cc.col.Type
	if v == nil {
		return false, query.Invalidf("Invalid comparison with null for operator \"%s\"", cc.op)
	}
	keys := cc.op == parser.OpContainsKey || t.Kind == types.Set
	elem := t.Params[0]
	if t.Kind == types.Map && !keys {
		elem = t.Params[1]
	}
	var elems [][]byte
	if t.IsMultiCell() {
		for _, c := range cells {
			if !keys {
				elems = append(elems, c.Value)
				continue
			}
			k, err := types.DecodeKey(t.Params[0], c.Path)
			if err != nil {
				return false, query.Invalidf("%v", err)
			}
			elems = append(elems, k)
		}
	} else if cur != nil {
		all, err := types.DecodeCollection(t, cur)
		if err != nil {
			return false, query.Invalidf("%v", err)
		}
		step, off := 1, 0
		if t.Kind == types.Map {
			step = 2
			if !keys {
				off = 1
			}
		}
		for i := off; i < len(all); i += step {
			elems = append(elems, all[i])
		}
	}
	for _, e := range elems {
		if types.Compare(elem, e, v) == 0 {
			return true, nil
		}
	}
	return false, nil
}

// inMarkerValues reads the list bound to "c IN ?". Unlike a list column's
// value, it may hold nulls (a driver sends them, and Cassandra compares them
// as null); each other element must be a valid value of the column.
func inMarkerValues(q *plan.Execution, m *expr.BindTerm, name string, elem types.Type) ([][]byte, error) {
	if m.Idx >= len(q.Values) {
		return nil, query.Invalidf("No value bound for in(%s)", name)
	}
	v := q.Values[m.Idx]
	if v.Unset {
		return nil, query.Invalidf("Invalid 'unset' value in condition")
	}
	if v.Bytes == nil {
		// ColumnCondition's IN marker (Lists.Marker bound null).
		return nil, query.Invalidf("Invalid null list in IN condition")
	}
	b := v.Bytes
	bad := func() error {
		return query.Invalidf("Invalid value for in(%s) of type %s", name, types.ListOf(elem, false))
	}
	if len(b) < 4 {
		return nil, bad()
	}
	n := int(int32(be32(b[:4])))
	b = b[4:]
	if n < 0 {
		return nil, bad()
	}
	var out [][]byte
	for i := 0; i < n; i++ {
		if len(b) < 4 {
			return nil, bad()
		}
		l := int(int32(be32(b[:4])))
		b = b[4:]
		if l < 0 {
			out = append(out, nil)
			continue
		}
		if l > len(b) {
			return nil, bad()
		}
		e := b[:l]
		b = b[l:]
		if err := types.Validate(elem, e); err != nil {
			return nil, query.Invalidf("Invalid value for in(%s) of type %s: %v", name, types.ListOf(elem, false), expr.UnwrapReason(err))
		}
		out = append(out, e)
	}
	if len(b) != 0 {
		return nil, bad()
	}
	return out, nil
}

func isSliceOp(op parser.Operator) bool {
	return op == parser.OpLt || op == parser.OpLte || op == parser.OpGt || op == parser.OpGte
}

// referencesDuration reports whether t is or contains the duration type.
func referencesDuration(t types.Type) bool {
	if t.Kind == types.Duration {
		return true
	}
	for _, p := range t.Params {
		if referencesDuration(p) {
			return true
		}
	}
	return false
}

func be32(b []byte) uint32 {
	if len(b) != 4 {
		return 0
	}
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// applies evaluates the whole IF clause.
func (cs *conditions) applies(q *plan.Execution, st *currentState) (bool, error) {
	exists := st.row != nil && len(st.row.Cells)+boolInt(st.row.Liveness.IsLive(q.NowInSec())) > 0
	if st.row == nil && st.static != nil && len(cs.conds) > 0 && cs.onlyStatic() {
		exists = true
	}
	if cs.staticRow && (cs.ifExists || cs.ifNotExists) {
		exists = st.static != nil && len(st.static.Cells) > 0
	}
	switch {
	case cs.ifNotExists:
		return !exists, nil
	case cs.ifExists:
		return exists, nil
	}
	for i := range cs.conds {
		ok, err := cs.conds[i].check(q, st)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func (cs *conditions) onlyStatic() bool {
	for _, c := range cs.conds {
		if c.col.Kind != schema.Static {
			return false
		}
	}
	return true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

var appliedSpecName = "[applied]"

// resultColumns returns the columns of a conditional result.
func (cs *conditions) resultColumns(cols []*schema.Column) []query.ColumnSpec {
	out := []query.ColumnSpec{{Keyspace: cs.tbl.Keyspace, Table: cs.tbl.Name, Name: appliedSpecName, Type: types.BooleanType}}
	for _, c := range cols {
		out = append(out, query.ColumnSpec{Keyspace: cs.tbl.Keyspace, Table: cs.tbl.Name, Name: c.Name, Type: c.Type})
	}
	return out
}

func boolBytes(b bool) []byte {
	if b {
		return []byte{1}
	}
	return []byte{0}
}

// readState reads the current row and static row of a conditional statement.
func readState(ctx context.Context, q *plan.Execution, tbl *schema.Table, key, clustering []byte) (*currentState, error) {
	st := &currentState{now: q.NowInSec()}
	var err error
	if st.pk, err = splitPartitionKey(tbl, key); err != nil {
		return nil, err
	}
	if len(clustering) > 0 {
		if st.ck, _, err = types.DecodeClustering(tbl.ClusteringTypes(), clustering); err != nil {
			return nil, err
		}
	}
	if clustering != nil {
		if st.row, err = readOneRow(ctx, q, tbl, key, clustering, false); err != nil {
			return nil, err
		}
	}
	if tbl.HasStatic() {
		if st.static, err = readOneRow(ctx, q, tbl, key, nil, true); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// casClustering returns the encoded clustering of the one row a conditional
// statement writes, or nil when it writes only the static row. IN on the
// clustering is refused, as in Cassandra.
func (p *modPlan) casClustering(q *plan.Execution) ([]byte, error) {
	tbl := p.tbl
	if len(tbl.ClusteringColumns()) == 0 {
		c, _ := types.EncodeClustering(nil, nil) // the single row's key
		return c, nil
	}
	if p.staticOnly && (p.conds == nil || p.conds.staticRow) {
		// A condition on a regular column reads the row the WHERE names,
		// even when only static columns are written.
		return nil, nil
	}
	prefixes, err := p.where.ClusteringPrefixes(&q.Execution)
	if err != nil {
		return nil, err
	}
	if len(prefixes) != 1 || len(prefixes[0]) != len(tbl.ClusteringColumns()) {
		what := "updates"
		if p.kind == restrictions.KindDelete {
			what = "deletions"
		}
		return nil, query.Invalidf("IN on the clustering key columns is not supported with conditional %s", what)
	}
	c, err := types.EncodeClustering(tbl.ClusteringTypes(), prefixes[0])
	if err != nil {
		return nil, query.Invalidf("%v", err)
	}
	return c, nil
}

// execConditional runs a conditional INSERT, UPDATE or DELETE: it reads the
// current state, checks the conditions and applies the mutation, all under
// the partition's lock (Paxos on a single node degenerates to this).
func (p *modPlan) execConditional(ctx context.Context, q *plan.Execution, wc *writeContext) (*query.Result, error) {
	keys, err := p.where.PartitionKeys(&q.Execution)
	if err != nil {
		return nil, err
	}
	if len(keys) != 1 {
		return nil, query.Invalidf("IN on the partition key is not supported with conditional updates")
	}
	clustering, err := p.casClustering(q)
	if err != nil {
		return nil, err
	}
	req := newCASRequest(p.tbl, keys[0], false)
	if err := req.add(p, clustering); err != nil {
		return nil, err
	}
	// StorageProxy.cas: the levels, then the replicas of the Paxos
	// round, its read and its commit.
	if err := q.ValidateCAS(p.tbl.Keyspace); err != nil {
		return nil, err
	}
	if err := q.CheckCAS(p.tbl.Keyspace); err != nil {
		return nil, err
	}
	unlock := q.Env.Engine.LockPartition(p.tbl, keys[0])
	defer unlock()
	st, err := readState(ctx, q, p.tbl, keys[0], clustering)
	if err != nil {
		return nil, err
	}
	ok, err := p.conds.applies(q, st)
	if err != nil {
		return nil, err
	}
	if !ok {
		return req.failure(ctx, q)
	}
	muts, err := p.Mutations(ctx, q, wc)
	if err != nil {
		return nil, err
	}
	for i, m := range muts {
		// StorageProxy.cas runs the triggers on the update it proposes.
		if muts[i], err = casTriggers(ctx, q, p.tbl, m); err != nil {
			return nil, err
		}
	}
	for _, m := range muts {
		// The partition's lock is held (see ApplyLocked).
		if err := q.Env.Engine.ApplyLocked(ctx, p.tbl, m); err != nil {
			return nil, query.AsError(err)
		}
	}
	return casSuccess(p.conds), nil
}

func casSuccess(cs *conditions) *query.Result {
	return &query.Result{Kind: wire.ResultRows, Columns: cs.resultColumns(nil), Rows: [][][]byte{{boolBytes(true)}}}
}

// splitPartitionKey returns the components of a serialized partition key.
func splitPartitionKey(tbl *schema.Table, key []byte) ([][]byte, error) {
	if len(tbl.PartitionKey()) == 1 {
		return [][]byte{key}, nil
	}
	return partitioner.SplitCompositeKey(key)
}
