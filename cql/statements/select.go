package statements

import (
	"slices"

	"github.com/minicass/minicass/cql/expr"
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/plan"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/restrictions"
	"github.com/minicass/minicass/cql/virtual"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// selectPlan is a compiled SELECT.
type selectPlan struct {
	tbl *schema.Table
	// replicas is the replication of tbl's keyspace in the schema the
	// plan was compiled against, whose replicas every read counts
	// (plan.Execution.CheckReadOf).
	replicas plan.Replicas
	where    *restrictions.WhereClause
	sels     []expr.Selector
	specs    []query.ColumnSpec
	bspec    []query.ColumnSpec
	pkIdx    []uint16

	json, distinct bool
	// jsonKeys are the keys of SELECT JSON's objects, one per selector.
	jsonKeys []string
	// aggregate is set when the selection has aggregates.
	aggregate bool
	// groupBy is the number of primary key columns (partition key first,
	// then clustering) that define a group; 0 without GROUP BY.
	groupBy int
	// groupFn is set when the GROUP BY clause ends with a function of a
	// clustering column (floor(time, 5m)): the last of the groupBy
	// columns then counts by the function's value, not its own.
	groupFn *expr.GroupByFunction
	// reversed reads clustering order backwards (ORDER BY flips it).
	reversed bool
	// postSort is set for ORDER BY with IN on the partition key: rows of
	// all partitions are merged in the requested order.
	postSort bool
	// staticRows applies the "static row only" rule: a partition with
	// static data and no live row returns one row of key and statics.
	staticRows bool

	limit, perPartitionLimit expr.Term

	// plainCols is set when every selector is a plain column and rows are
	// neither aggregated nor rendered as JSON: a row is then projected by
	// reading the columns, without per-execution evaluators.
	plainCols []*schema.Column
	// proj says, for each of plainCols, where project takes its value
	// from, decided once here rather than for every value of every row.
	proj []projection
	// singlePK is set when every partition key column is restricted by one
	// '=' term, singlePrefix when the clustering restrictions that select
	// slices are one '=' term per column, and singleRow when both select
	// at most one row (see selectRun.partitionKeys and slices).
	singlePK, singlePrefix, singleRow bool
	// needCk is set unless no selector, filter or grouping reads the
	// clustering values of rows (which are then not decoded).
	needCk bool
	// stream is set when rows are projected as the engine yields them,
	// without copying them first: plain columns (whose values are copied
	// into the result), no DISTINCT, GROUP BY or ORDER BY across
	// partitions, which keep rows past the engine's next row.
	stream bool
	// ckInResult is set when a streamed read projects every row it
	// decodes (no filters): the clustering values are then decoded
	// straight into the result's value blocks and projected from there
	// without another copy (see selectRun.decodeClustering).
	ckInResult bool
	// direct is set when a streamed read without filters projects only
	// partition key, clustering and one-cell regular columns: each row the
	// engine yields is then copied into the result in one pass
	// (selectRun.directRows), without the filter, emit and SelRow steps.
	direct bool
	// fixedCk decodes the clustering of rows in one step when every
	// clustering column is a fixed-width integer type (nil otherwise).
	fixedCk *types.FixedClustering
	// indexReads are the filtered restrictions a built-in index serves,
	// for a range query (see select_index.go).
	indexReads []restrictions.IndexRead
	// queried are the static and regular columns the plan reads from rows
	// (engine.ReadOptions.Queried; nil: all), and namesRead is set when
	// the restrictions name whole rows (engine.ReadOptions.Names): they
	// let a partition read skip the SSTables it need not open.
	queried   []string
	namesRead bool
	// derived is set when the table's rows are derived rather than read
	// from the engine (virtual.IsDerived): a property of the table's
	// definition, which a registered virtual table has from before any
	// statement can name it, so it is decided once, here.
	derived bool
}

func (p *selectPlan) Binds() []query.ColumnSpec   { return p.bspec }
func (p *selectPlan) Columns() []query.ColumnSpec { return p.specs }
func (p *selectPlan) PKIndexes() []uint16         { return p.pkIdx }

// compileSelect validates a SELECT against the schema and compiles it.
func compileSelect(s *plan.Compiler, st *parser.Select) (plan.Plan, error) {
	tbl, err := s.LookupTable(st.Table)
	if err != nil {
		return nil, err
	}
	c := expr.NewTableCompileCtx(st.BindCount(), tbl)
	c.Partitioner = s.Env.Engine.Partitioner()
	c.UDFs = s.UDFs()
	if s.Env != nil && s.Env.Engine != nil {
		c.CustomIndexes = s.Env.Engine
	}
	p := &selectPlan{tbl: tbl, json: st.JSON, distinct: st.Distinct, derived: virtual.IsDerived(tbl)}
	p.replicas = plan.ReplicasOf(s.Env, tbl.Keyspace)

	// Selection first: Cassandra prepares it before the WHERE clause.
	if len(st.Exprs) == 0 {
		// SELECT *: every column but a compact table's hidden ones
		// (CompactTableMetadata.allColumnsInSelectOrder).
		for _, col := range tbl.VisibleColumns() {
			p.sels = append(p.sels, &expr.ColumnSel{Col: col})
		}
	}
	var aliases []string
	for _, e := range st.Exprs {
		sel, err := c.CompileSelector(tbl, e.Expr)
		if err != nil {
			return nil, err
		}
		p.sels = append(p.sels, sel)
		aliases = append(aliases, string(e.Alias))
	}
	for _, sel := range p.sels {
		if sel.Aggregate() {
			p.aggregate = true
		}
	}

	w, err := restrictions.CompileWhere(c, tbl, st.Where, st.AllowFiltering || virtual.AllowsFilteringImplicitly(tbl))
	if err != nil {
		return nil, err
	}
	p.where = w

	if st.Distinct {
		if err := p.checkDistinct(); err != nil {
			return nil, err
		}
	}
	if err := p.compileGroupBy(c, st.GroupBy); err != nil {
		return nil, err
	}
	if st.PerPartitionLimit != nil && !st.Distinct && p.aggregate && p.groupBy == 0 {
		// SelectStatement.prepare: an aggregate over everything
		// (AGGREGATE_EVERYTHING) has no partitions to limit.
		return nil, query.Invalidf("PER PARTITION LIMIT is not allowed with aggregate queries.")
	}
	if err := p.compileOrderBy(st.OrderBy); err != nil {
		return nil, err
	}
	if st.PerPartitionLimit != nil {
		if st.Distinct {
			return nil, query.Invalidf("PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries")
		}
		if p.perPartitionLimit, err = c.CompileTerm(st.PerPartitionLimit, expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: "[per_partition_limit]", Typ: types.IntType}); err != nil {
			return nil, err
		}
	}
	if st.Limit != nil {
		if p.limit, err = c.CompileTerm(st.Limit, expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: "[limit]", Typ: types.IntType}); err != nil {
			return nil, err
		}
	}
	// A static compact table's partitions are their static rows, always
	// returned (SelectStatement.returnStaticContentOnPartitionWithNoRows).
	p.staticRows = tbl.IsStaticCompact() || tbl.HasStatic() && !w.CkRestricted && len(w.Parts) == 0 && !restrictsRegular(tbl, w)

	// Result metadata.
	if p.json {
		p.specs = []query.ColumnSpec{{Keyspace: tbl.Keyspace, Table: tbl.Name, Name: "[json]", Type: types.TextType}}
		for i, sel := range p.sels {
			alias := ""
			if i < len(aliases) {
				alias = aliases[i]
			}
			p.jsonKeys = append(p.jsonKeys, jsonKey(sel, alias))
		}
	} else {
		for i, sel := range p.sels {
			name := sel.Name()
			if i < len(aliases) && aliases[i] != "" {
				name = aliases[i]
			}
			p.specs = append(p.specs, query.ColumnSpec{Keyspace: tbl.Keyspace, Table: tbl.Name, Name: name, Type: sel.Typ()})
		}
	}
	p.bspec = c.Specs
	p.pkIdx = selectPKIndexes(w)
	if !w.PkComplete && !p.derived {
		p.indexReads = w.IndexReads()
	}
	p.plainCols = plainColumns(p)
	p.proj = projections(p.plainCols)
	p.queried = queriedColumns(p)
	cellHints(p.proj, p.tbl)
	// A static compact table's read names no row: it reads the static row
	// (SelectStatement.makeClusteringIndexFilter's empty names filter).
	p.namesRead = w.PkComplete && !p.distinct && (w.NamesRows(len(tbl.ClusteringColumns())) || tbl.IsStaticCompact() && !w.CkRestricted)
	p.planSingle()
	p.needCk = p.plainCols == nil || len(w.Filters) > 0 || p.groupBy > 0 || p.postSort
	p.stream = p.plainCols != nil && !p.distinct && p.groupBy == 0 && !p.postSort
	for _, col := range p.plainCols {
		if col.Kind == schema.Clustering {
			p.needCk = true
		}
	}
	p.ckInResult = p.stream && len(w.Filters) == 0
	p.direct = p.ckInResult
	for _, pr := range p.proj {
		if pr.from == fromValue {
			p.direct = false
		}
	}
	if f, ok := types.NewFixedClustering(tbl.ClusteringTypes()); ok {
		p.fixedCk = f
	}
	return p, nil
}

// planSingle sets singlePK, singlePrefix and singleRow.
func (p *selectPlan) planSingle() {
	w := p.where
	// token() relations filter the keys (PartitionKeys), so a key they
	// restrict is never read directly.
	p.singlePK = w.PkComplete && len(w.Pk) > 0 && !w.HasToken()
	for _, kv := range w.Pk {
		if kv == nil || !kv.IsSingle() {
			p.singlePK = false
		}
	}
	p.singlePrefix = w.Prefix > 0 && w.Prefix <= plan.MaxInlineKeyParts
	for _, part := range w.Parts[:w.Prefix] {
		if part.Single == nil || !part.Single.IsSingle() || part.IsSlice() {
			p.singlePrefix = false
		}
	}
	nck := len(p.tbl.ClusteringColumns())
	p.singleRow = p.singlePK && !p.postSort &&
		(nck == 0 || (p.singlePrefix && w.Prefix == nck))
}

// plainColumns returns the columns of a selection made only of plain
// columns, without aggregation or JSON, or nil.
func plainColumns(p *selectPlan) []*schema.Column {
	if p.json || p.aggregate || p.groupBy > 0 || len(p.sels) == 0 {
		return nil
	}
	cols := make([]*schema.Column, len(p.sels))
	for i, sel := range p.sels {
		cs, ok := sel.(*expr.ColumnSel)
		if !ok {
			return nil
		}
		cols[i] = cs.Col
	}
	return cols
}

// projection is where project takes the value of one plain column from.
type projection struct {
	col  *schema.Column
	from projFrom
	// cell is, for fromCell, where the column's cell is among a row's
	// cells when the row has a cell of every regular column (one each, in
	// name order): the first place liveCellValue looks. -1: no guess.
	cell int
	// name, pos and blob are col's Name, Position and whether its type is
	// a blob, kept here so that a row's projection reads them without
	// going through col.
	name string
	pos  int
	blob bool
}

type projFrom uint8

const (
	// fromKey: the partition key component (the key's bytes, never
	// copied).
	fromKey projFrom = iota
	// fromClustering: the decoded clustering value.
	fromClustering
	// fromCell: the live cell of a regular column stored as one cell
	// (expr.SelRow.CellValue).
	fromCell
	// fromValue: any other column (static, multi-cell), through
	// expr.SelRow.Value.
	fromValue
)

// projections returns the projection of each column of cols (nil for
// none).
func projections(cols []*schema.Column) []projection {
	if cols == nil {
		return nil
	}
	proj := make([]projection, len(cols))
	for i, col := range cols {
		from := fromValue
		switch {
		case col.Kind == schema.PartitionKey:
			from = fromKey
		case col.Kind == schema.Clustering:
			from = fromClustering
		case col.Kind == schema.Regular && !col.Type.IsMultiCell():
			from = fromCell
		}
		proj[i] = projection{col: col, from: from, cell: -1, name: col.Name, pos: col.Position, blob: col.Type.Kind == types.Blob}
	}
	return proj
}

// cellHints sets projection.cell for the cells of proj: the rank of the
// column's name among the regular columns of tbl, as a read returns the
// cells of every regular column (engine.ReadOptions.Columns is not set). A
// column after a multi-cell one, whose cells vary in number, gets no guess.
func cellHints(proj []projection, tbl *schema.Table) {
	for i := range proj {
		pr := &proj[i]
		if pr.from != fromCell {
			continue
		}
		pr.cell = 0
		for _, c := range tbl.Columns {
			if c.Kind != schema.Regular || c.Name >= pr.col.Name {
				continue
			}
			if c.Type.IsMultiCell() {
				pr.cell = -1
				break
			}
			pr.cell++
		}
	}
}

// queriedColumns returns the static and regular columns a plan made of
// plain columns reads (Cassandra's ColumnFilter queried columns): those it
// selects and filters on, and every static column when a partition without
// rows answers with its static row (staticRows), which then needs them
// all. It returns nil (every column) for other selections, whose
// functions may read any column.
func queriedColumns(p *selectPlan) []string {
	if p.plainCols == nil {
		return nil
	}
	out := []string{}
	add := func(c *schema.Column) {
		if (c.Kind == schema.Static || c.Kind == schema.Regular) && !slices.Contains(out, c.Name) {
			out = append(out, c.Name)
		}
	}
	for _, c := range p.plainCols {
		add(c)
	}
	for name := range p.where.Restricted {
		if c := p.tbl.Column(name); c != nil {
			add(c)
		}
	}
	if p.staticRows {
		for _, c := range p.tbl.Columns {
			if c.Kind == schema.Static {
				add(c)
			}
		}
	}
	return out
}

// selectPKIndexes returns, for each partition key column, the bind marker
// giving it by "=", or nil when some column is not bound that way.
func selectPKIndexes(w *restrictions.WhereClause) []uint16 {
	idx := make([]uint16, len(w.Pk))
	for i, v := range w.Pk {
		if v == nil || v.In || len(v.Terms) != 1 {
			return nil
		}
		b, ok := v.Terms[0].(expr.BindTerm)
		if !ok {
			return nil
		}
		idx[i] = uint16(b.Idx)
	}
	if len(idx) == 0 {
		return nil
	}
	return idx
}

// restrictsRegular reports whether the WHERE clause restricts a regular
// column. Restrictions on static columns still let a partition with no rows
// answer with its static row (queriesFullPartitions).
func restrictsRegular(tbl *schema.Table, w *restrictions.WhereClause) bool {
	for name := range w.Restricted {
		if col := tbl.Column(name); col != nil && col.Kind == schema.Regular {
			return true
		}
	}
	return false
}

// checkDistinct applies SelectStatement.validateDistinctSelection: the
// WHERE clause first, then the selection, and only a key range (a query
// that does not name its partitions) must select the whole partition key.
func (p *selectPlan) checkDistinct() error {
	if p.where.CkRestricted || p.where.NonPK {
		for name := range p.where.Restricted {
			col := p.tbl.Column(name)
			if col.Kind != schema.PartitionKey && col.Kind != schema.Static {
				return query.Invalidf("SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns.")
			}
		}
	}
	seen := map[string]bool{}
	for _, sel := range p.sels {
		cs, ok := sel.(*expr.ColumnSel)
		if !ok {
			continue
		}
		if cs.Col.Kind != schema.PartitionKey && cs.Col.Kind != schema.Static {
			return query.Invalidf("SELECT DISTINCT queries must only request partition key columns and/or static columns (not %s)", cs.Col.Name)
		}
		seen[cs.Col.Name] = true
	}
	if p.where.PkComplete {
		return nil
	}
	for _, col := range p.tbl.PartitionKey() {
		if !seen[col.Name] {
			return query.Invalidf("SELECT DISTINCT queries must request all the partition key columns (missing %s)", col.Name)
		}
	}
	return nil
}

// compileGroupBy applies SelectStatement.getAggregationSpecFactory: the
// GROUP BY columns are a prefix of the primary key, where a column
// restricted by EQ may be skipped, and the last element may instead be a
// function of a clustering column (expr.CompileGroupByFunction), which
// stands for that column in the prefix.
func (p *selectPlan) compileGroupBy(c *expr.CompileCtx, elems []parser.Expr) error {
	if len(elems) == 0 {
		return nil
	}
	pkCols := append(append([]*schema.Column{}, p.tbl.PartitionKey()...), p.tbl.ClusteringColumns()...)
	pos := 0
	for _, e := range elems {
		var col *schema.Column
		switch e := e.(type) {
		case *parser.FuncCall:
			fn, err := c.CompileGroupByFunction(p.tbl, e)
			if err != nil {
				return err
			}
			p.groupFn, col = fn, fn.Column
		case *parser.ColumnRef:
			if col = p.tbl.Column(string(e.Name)); col == nil {
				return query.Invalidf("Undefined column name %s in table %s", e.Name.String(), p.tbl.QualifiedName())
			}
			if col.Kind != schema.PartitionKey && col.Kind != schema.Clustering {
				return query.Invalidf("Group by is currently only supported on the columns of the PRIMARY KEY, got %s", col.Name)
			}
			if p.groupFn != nil {
				return query.Invalidf("Functions are only supported on the last element of the GROUP BY clause")
			}
		default:
			// Cassandra casts any other selectable to a column and fails
			// with a ClassCastException (a server error).
			return query.Invalidf("Only column names and monotonic scalar functions are supported in the GROUP BY clause.")
		}
		for pos < len(pkCols) && pkCols[pos] != col {
			skipped := pkCols[pos]
			eq := (skipped.Kind == schema.PartitionKey && p.where.PkEq(skipped.Position)) ||
				(skipped.Kind == schema.Clustering && p.where.CkEq(skipped.Position))
			if !eq {
				return query.Invalidf("Group by currently only support groups of columns following their declared order in the PRIMARY KEY")
			}
			pos++
		}
		if pos == len(pkCols) {
			return query.Invalidf("Group by currently only support groups of columns following their declared order in the PRIMARY KEY")
		}
		pos++
	}
	if pos < len(pkCols) && pkCols[pos].Kind == schema.PartitionKey {
		return query.Invalidf("Group by is not supported on only a part of the partition key")
	}
	if p.distinct && pos > len(p.tbl.PartitionKey()) {
		return query.Invalidf("Grouping on clustering columns is not allowed for SELECT DISTINCT queries")
	}
	p.groupBy = pos
	return nil
}

// compileOrderBy applies SelectStatement's ORDER BY rules.
func (p *selectPlan) compileOrderBy(order []parser.Ordering) error {
	if len(order) == 0 {
		return nil
	}
	if !p.where.PkComplete {
		return query.Invalidf("ORDER BY is only supported when the partition key is restricted by an EQ or an IN.")
	}
	ck := p.tbl.ClusteringColumns()
	var reversed *bool
	pos := 0
	for _, o := range order {
		col := p.tbl.Column(string(o.Column))
		if col == nil {
			return query.Invalidf("Undefined column name %s in table %s", o.Column.String(), p.tbl.QualifiedName())
		}
		if col.Kind != schema.Clustering {
			return query.Invalidf("Order by is currently only supported on the clustered columns of the PRIMARY KEY, got %s", col.Name)
		}
		for pos < col.Position {
			if !p.where.CkEqOrSingleIn(pos) {
				return query.Invalidf("Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY")
			}
			pos++
		}
		if pos > col.Position {
			return query.Invalidf("Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY")
		}
		pos++
		flip := o.Desc != ck[col.Position].Desc
		if reversed != nil && *reversed != flip {
			return query.Invalidf("Unsupported order by relation")
		}
		reversed = &flip
	}
	p.reversed = *reversed
	p.postSort = p.where.PkIn
	return nil
}
