package ddl

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/minicass/minicass/cql/expr"
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/plan"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/virtual"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// Materialized views (Cassandra 4.1's CreateViewStatement,
// AlterViewStatement and DropViewStatement). A view is a table of the
// engine whose schema.Table.View names its base table; the engine keeps it
// in step with every write to the base (package view computes the updates).
// Views are refused unless the executor enables them
// (plan.Env.MaterializedViewsEnabled, Cassandra's
// materialized_views_enabled, false by default), with Cassandra's text.

// errViewsDisabled is Cassandra's refusal of CREATE MATERIALIZED VIEW when
// views are disabled.
const errViewsDisabled = "Materialized views are disabled. Enable in cassandra.yaml to use."

// ViewUsageWarning is the client warning Cassandra 4.1 sends with every
// CREATE MATERIALIZED VIEW (View.USAGE_WARNING).
const ViewUsageWarning = "Materialized views are experimental and are not recommended for production use."

func compileCreateView(s *plan.Compiler, st *parser.CreateView) (plan.Plan, error) {
	ks, err := s.KeyspaceFor(st.Name)
	if err != nil {
		return nil, err
	}
	// CreateViewStatement.Raw.prepare.
	if st.Select.Table.Keyspace != "" && string(st.Select.Table.Keyspace) != ks {
		return nil, query.Invalidf("Cannot create a materialized view on a table in a different keyspace")
	}
	if st.BindCount() > 0 {
		return nil, query.Invalidf("Bind variables are not allowed in CREATE MATERIALIZED VIEW statements")
	}
	seen := map[parser.Ident]bool{}
	for _, o := range st.ClusteringOrder {
		if seen[o.Column] {
			return nil, query.Invalidf("Duplicate column '%s' in CLUSTERING ORDER BY clause for view '%s'", o.Column, st.Name)
		}
		seen[o.Column] = true
	}
	if err := s.CheckSchemaModifiable(ks); err != nil {
		return nil, err
	}
	return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		if !q.Env.MaterializedViewsEnabled {
			return nil, query.Invalidf(errViewsDisabled)
		}
		v, err := buildView(q.Env, ks, st)
		if err != nil || v == nil {
			if err == nil {
				return query.VoidResult(), nil // IF NOT EXISTS
			}
			return nil, err
		}
		if err := q.Env.Engine.CreateView(v); err != nil {
			if errors.Is(err, engine.ErrTableExists) {
				if st.IfNotExists {
					return query.VoidResult(), nil
				}
				return nil, &query.Error{Code: wire.CodeAlreadyExists, Message: fmt.Sprintf("Cannot add already existing table \"%s\" to keyspace \"%s\"", v.Name, ks), Keyspace: ks, Table: v.Name}
			}
			return nil, err
		}
		if err := buildViewData(ctx, q.Env, v); err != nil {
			return nil, err
		}
		res := schemaChange(wire.Created, wire.TargetTable, ks, v.Name)
		res.Warnings = append(res.Warnings, ViewUsageWarning)
		return res, nil
	}}, nil
}

// buildView checks CREATE MATERIALIZED VIEW against the current schema as
// CreateViewStatement.apply does, in its order, and returns the view's
// definition; nil without error when IF NOT EXISTS finds the view. A
// restriction of a column outside the base table's primary key other than
// IS NOT NULL is refused unless env allows it (the unsafe setting).
func buildView(env *plan.Env, ks string, st *parser.CreateView) (*schema.Table, error) {
	eng := env.Engine
	name := string(st.Name.Name)
	baseName := string(st.Select.Table.Name)
	if _, ok := eng.Keyspace(ks); !ok {
		return nil, query.Invalidf("Keyspace '%s' doesn't exist", ks)
	}
	base, ok := eng.Table(ks, baseName)
	if !ok || base.IsView() {
		if ok {
			return nil, query.Invalidf("Materialized views cannot be created against other materialized views")
		}
		return nil, query.Invalidf("Base table '%s' doesn't exist", baseName)
	}
	if existing, ok := eng.Table(ks, name); ok {
		if !existing.IsView() {
			return nil, query.Invalidf("Cannot create materialized view '%s' - a table with the same name already exists", name)
		}
		if st.IfNotExists {
			return nil, nil
		}
		return nil, &query.Error{Code: wire.CodeAlreadyExists, Message: fmt.Sprintf("Cannot add already existing table \"%s\" to keyspace \"%s\"", name, ks), Keyspace: ks, Table: name}
	}
	if base.IsCounter() {
		return nil, query.Invalidf("Materialized views are not supported on counter tables")
	}
	if base.Options.GCGraceSeconds == 0 {
		return nil, query.Invalidf("Cannot create materialized view '%s' for base table '%s' with gc_grace_seconds of 0, since this value is used to TTL undelivered updates. Setting gc_grace_seconds too low might cause undelivered updates to expire before being replayed.", name, baseName)
	}
	if err := validateName("Table", name); err != nil {
		return nil, err
	}

	// The SELECT clause.
	selected := map[string]bool{}
	var selectedOrder []string
	if len(st.Select.Exprs) == 0 {
		// SELECT *: every column of the base, a compact table's hidden ones
		// included (CreateViewStatement takes table.columns()).
		for _, c := range base.Columns {
			selected[c.Name] = true
			selectedOrder = append(selectedOrder, c.Name)
		}
	}
	for _, se := range st.Select.Exprs {
		if se.Alias != "" {
			return nil, query.Invalidf("Cannot use aliases when defining a materialized view (got %s AS %s)", se.Expr, se.Alias)
		}
		ref, ok := se.Expr.(*parser.ColumnRef)
		if !ok {
			return nil, query.Invalidf("Can only select columns by name when defining a materialized view (got %s)", se.Expr)
		}
		c := base.Column(string(ref.Name))
		if c == nil {
			return nil, query.Invalidf("Undefined column name %s in table %s", ref.Name.String(), base.QualifiedName())
		}
		if !selected[c.Name] {
			selected[c.Name] = true
			selectedOrder = append(selectedOrder, c.Name)
		}
	}
	for _, n := range selectedOrder {
		if base.StoredColumn(n).Kind == schema.Static {
			return nil, query.Invalidf("Cannot include static column '%s' in materialized view '%s'", n, name)
		}
	}

	// PRIMARY KEY and CLUSTERING ORDER BY.
	if st.Key == nil || len(st.Key.PartitionKey) == 0 {
		return nil, query.Invalidf("Must provide at least one partition key column for materialized view '%s'", name)
	}
	keyCols := map[string]bool{}
	var pk, ck []string
	for i, id := range append(append([]parser.Ident{}, st.Key.PartitionKey...), st.Key.Clustering...) {
		n := string(id)
		c := base.Column(n)
		if c == nil || !selected[n] {
			return nil, query.Invalidf("Unknown column '%s' referenced in PRIMARY KEY for materialized view '%s'", n, name)
		}
		if keyCols[n] {
			return nil, query.Invalidf("Duplicate column '%s' in PRIMARY KEY clause for materialized view '%s'", n, name)
		}
		keyCols[n] = true
		t := c.Type
		switch {
		case t.IsMultiCell() && t.UDT != nil:
			return nil, query.Invalidf("Invalid non-frozen user-defined type '%s' for PRIMARY KEY column '%s'", types.MarshalName(t), n)
		case t.IsMultiCell():
			return nil, query.Invalidf("Invalid non-frozen collection type '%s' for PRIMARY KEY column '%s'", types.MarshalName(t), n)
		case t.Kind == types.Counter:
			return nil, query.Invalidf("counter type is not supported for PRIMARY KEY column '%s'", n)
		case containsDuration(t):
			return nil, query.Invalidf("duration type is not supported for PRIMARY KEY column '%s'", n)
		}
		if i < len(st.Key.PartitionKey) {
			pk = append(pk, n)
		} else {
			ck = append(ck, n)
		}
	}
	if len(st.ClusteringOrder) > 0 {
		same := len(st.ClusteringOrder) == len(ck)
		for i := 0; same && i < len(ck); i++ {
			same = string(st.ClusteringOrder[i].Column) == ck[i]
		}
		if !same {
			return nil, query.Invalidf("Clustering key columns must exactly match columns in CLUSTERING ORDER BY directive")
		}
	}
	var missing []string
	for _, c := range base.Columns {
		if (c.Kind == schema.PartitionKey || c.Kind == schema.Clustering) && !keyCols[c.Name] {
			missing = append(missing, c.Name)
		}
	}
	if len(missing) > 0 {
		return nil, query.Invalidf("Cannot create materialized view '%s' without primary key columns %s from base table '%s'", name, strings.Join(missing, ", "), baseName)
	}
	var extra []string
	for _, n := range append(append([]string{}, pk...), ck...) {
		if k := base.Column(n).Kind; k != schema.PartitionKey && k != schema.Clustering {
			extra = append(extra, n)
		}
	}
	if len(extra) > 1 {
		return nil, query.Invalidf("Cannot include more than one non-primary key column in materialized view primary key (got %s)", strings.Join(extra, ", "))
	}

	// WHERE.
	filter, restricted, err := viewFilter(base, name, st.Select.Where)
	if err != nil {
		return nil, err
	}
	var unrestricted []string
	for _, n := range append(append([]string{}, pk...), ck...) {
		if !restricted[n] {
			unrestricted = append(unrestricted, n)
		}
	}
	if len(unrestricted) > 0 {
		return nil, query.Invalidf("Primary key columns %s must be restricted with 'IS NOT NULL' or otherwise", strings.Join(unrestricted, ", "))
	}
	var illegal []string
	for _, r := range filter {
		for _, n := range r.Columns {
			if k := base.Column(n).Kind; k != schema.PartitionKey && k != schema.Clustering && r.Op != schema.ViewIsNotNull {
				illegal = append(illegal, n)
			}
		}
	}
	if len(illegal) > 0 && !env.MaterializedViewsAllowFilteringNonKeyColumnsUnsafe {
		return nil, query.Invalidf("Non-primary key columns can only be restricted with 'IS NOT NULL' (got: %s restricted illegally)", strings.Join(illegal, ","))
	}

	// WITH.
	for _, p := range st.Options {
		if strings.EqualFold(string(p.Name), "default_time_to_live") {
			// Validated first, as attrs.validate() does.
			o := schema.DefaultOptions()
			if err := tableOptions(env, &o, st.Options, false); err != nil {
				return nil, err
			}
			return nil, query.Invalidf("Cannot set default_time_to_live for a materialized view. Data in a materialized view always expire at the same time than the corresponding data in the parent table.")
		}
	}
	opts := schema.DefaultOptions()
	if err := tableOptions(env, &opts, st.Options, false); err != nil {
		return nil, err
	}
	if st.CompactStorage {
		return nil, query.Invalidf("Cannot use 'COMPACT STORAGE' when defining a materialized view")
	}

	desc := map[string]bool{}
	for _, o := range st.ClusteringOrder {
		desc[string(o.Column)] = o.Desc
	}
	var cols []*schema.Column
	for i, n := range pk {
		cols = append(cols, &schema.Column{Name: n, Type: base.Column(n).Type, Kind: schema.PartitionKey, Position: i})
	}
	for i, n := range ck {
		bc := base.Column(n)
		d, ok := desc[n]
		if !ok {
			// Without CLUSTERING ORDER BY the base column's type keeps its
			// order (a ReversedType stays reversed: getType).
			d = bc.Kind == schema.Clustering && bc.Desc
		}
		cols = append(cols, &schema.Column{Name: n, Type: bc.Type, Kind: schema.Clustering, Position: i, Desc: d})
	}
	for _, n := range selectedOrder {
		if !keyCols[n] {
			cols = append(cols, &schema.Column{Name: n, Type: base.StoredColumn(n).Type, Kind: schema.Regular, Position: -1})
		}
	}
	v := schema.NewTable(ks, name, data.TableID(types.NewRandomUUID()), cols, opts)
	def := &schema.View{BaseID: base.ID, BaseName: base.Name, IncludeAllColumns: len(st.Select.Exprs) == 0,
		WhereClause: whereText(st.Select.Where)}
	for _, r := range filter {
		if r.Op == schema.ViewIsNotNull {
			// IS NOT NULL filters nothing (StatementRestrictions keeps it
			// apart from the row filter, View.matchesViewFilter): a key
			// column always has a value, and a base column in the view's
			// key without one has no entry (ViewUpdateGenerator).
			continue
		}
		def.Filter = append(def.Filter, r)
	}
	if len(extra) == 1 {
		def.BaseColumnInKey = extra[0]
	}
	v.View = def
	return v, nil
}

// whereText is the WHERE clause as Cassandra stores it
// (WhereClause.toCQLString): the relations joined by AND.
func whereText(rels []parser.Relation) string {
	parts := make([]string, len(rels))
	for i, r := range rels {
		parts[i] = fmt.Sprint(r)
	}
	return strings.Join(parts, " AND ")
}

// viewFilter compiles a view's WHERE clause into restrictions on base
// columns, and says which columns it restricts. Values must be literals.
func viewFilter(base *schema.Table, view string, rels []parser.Relation) ([]schema.ViewRestriction, map[string]bool, error) {
	restricted := map[string]bool{}
	var out []schema.ViewRestriction
	col := func(id parser.Ident) (*schema.Column, error) {
		c := base.Column(string(id))
		if c == nil {
			return nil, query.Invalidf("Undefined column name %s in table %s", id.String(), base.QualifiedName())
		}
		return c, nil
	}
	// CreateViewStatement refuses token relations, then custom index
	// expressions, before it looks at any relation.
	for _, rel := range rels {
		if _, ok := rel.(*parser.TokenRelation); ok {
			return nil, nil, query.Invalidf("Cannot use token relation when defining a materialized view")
		}
	}
	for _, rel := range rels {
		if _, ok := rel.(*parser.CustomIndexExpression); ok {
			return nil, nil, query.Invalidf("WHERE clause for materialized view '%s' cannot contain custom index expressions", view)
		}
	}
	for _, rel := range rels {
		switch r := rel.(type) {
		case *parser.TokenRelation:
			return nil, nil, query.Invalidf("Cannot use token relation when defining a materialized view")
		case *parser.ColumnRelation:
			c, err := col(r.Column)
			if err != nil {
				return nil, nil, err
			}
			restricted[c.Name] = true
			vr := schema.ViewRestriction{Columns: []string{c.Name}}
			switch r.Op {
			case parser.OpIsNot:
				vr.Op = schema.ViewIsNotNull
			case parser.OpEq, parser.OpLt, parser.OpLte, parser.OpGt, parser.OpGte, parser.OpIn:
				vr.Op = viewOp(r.Op)
				vals, err := literalValues(base, c.Name, c.Type, r.Op, r.Value)
				if err != nil {
					return nil, nil, err
				}
				vr.Values = vals
			default:
				return nil, nil, query.Invalidf("Unsupported restriction %s in the WHERE clause of materialized view '%s'", r, view)
			}
			out = append(out, vr)
		case *parser.TupleRelation:
			vr := schema.ViewRestriction{Op: viewOp(r.Op)}
			var ts []types.Type
			for _, id := range r.Columns {
				c, err := col(id)
				if err != nil {
					return nil, nil, err
				}
				if c.Kind != schema.Clustering {
					return nil, nil, query.Invalidf("Multi-column relations can only be applied to clustering columns but was applied to: %s", c.Name)
				}
				restricted[c.Name] = true
				vr.Columns = append(vr.Columns, c.Name)
				ts = append(ts, c.Type)
			}
			names := make([]string, len(vr.Columns))
			copy(names, vr.Columns)
			vals, err := literalValues(base, "("+strings.Join(names, ",")+")", types.TupleOf(ts...), r.Op, r.Value)
			if err != nil {
				return nil, nil, err
			}
			vr.Values = vals
			out = append(out, vr)
		default:
			return nil, nil, query.Invalidf("Unsupported restriction %s in the WHERE clause of materialized view '%s'", rel, view)
		}
	}
	return out, restricted, nil
}

func viewOp(op parser.Operator) schema.ViewOp {
	switch op {
	case parser.OpEq:
		return schema.ViewEQ
	case parser.OpLt:
		return schema.ViewLT
	case parser.OpLte:
		return schema.ViewLE
	case parser.OpGt:
		return schema.ViewGT
	case parser.OpGte:
		return schema.ViewGE
	case parser.OpIn:
		return schema.ViewIN
	case parser.OpNeq:
		return schema.ViewNEQ
	}
	return schema.ViewIsNotNull
}

// literalValues evaluates the literal value(s) of a relation for a column
// of type t: one value, or the elements of an IN list.
func literalValues(base *schema.Table, name string, t types.Type, op parser.Operator, e parser.Expr) ([][]byte, error) {
	r := expr.Receiver{Ks: base.Keyspace, Table: base.Name, Name: name, Typ: t}
	var elems []parser.Expr
	if op == parser.OpIn {
		in, ok := e.(*parser.InList)
		if !ok {
			return nil, query.Invalidf("Bind variables are not allowed in CREATE MATERIALIZED VIEW statements")
		}
		elems = in.Elems
	} else {
		elems = []parser.Expr{e}
	}
	var out [][]byte
	for _, el := range elems {
		term, err := expr.NewTableCompileCtx(0, base).CompileTerm(el, r)
		if err != nil {
			return nil, err
		}
		v, err := term.Eval(&query.Execution{})
		if err != nil {
			return nil, err
		}
		if v.Bytes == nil {
			return nil, query.Invalidf("Invalid null value for %s", name)
		}
		out = append(out, v.Bytes)
	}
	return out, nil
}

// compileAlterView changes a view's options (AlterViewStatement): table
// options, without default_time_to_live and with gc_grace_seconds above 0.
func compileAlterView(s *plan.Compiler, st *parser.AlterView) (plan.Plan, error) {
	ks, err := s.KeyspaceFor(st.Name)
	if err != nil {
		return nil, err
	}
	name := string(st.Name.Name)
	return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		old, err := existingView(q, ks, name, st.IfExists)
		if err != nil {
			return nil, err
		}
		if old == nil {
			return query.VoidResult(), nil
		}
		opts := cloneOptions(old.Options)
		if err := tableOptions(s.Env, &opts, st.Options, false); err != nil {
			return nil, err
		}
		if opts.GCGraceSeconds == 0 {
			return nil, query.Invalidf("Cannot alter gc_grace_seconds of a materialized view to 0, since this value is used to TTL undelivered updates. Setting gc_grace_seconds too low might cause undelivered updates to expire before being replayed.")
		}
		if opts.DefaultTTL > 0 {
			return nil, query.Invalidf("Forbidden default_time_to_live detected for a materialized view. Data in a materialized view always expire at the same time than the corresponding data in the parent table. default_time_to_live must be set to zero, see CASSANDRA-12868 for more information")
		}
		v := old.Clone()
		v.Options = opts
		if err := q.Env.Engine.AlterTable(v); err != nil {
			return nil, err
		}
		return schemaChange(wire.Updated, wire.TargetTable, ks, name), nil
	}}, nil
}

// existingView returns the view ks.name, or nil and the error Cassandra
// gives when there is none (no error with IF EXISTS).
func existingView(q *plan.Execution, ks, name string, ifExists bool) (*schema.Table, error) {
	v, ok := q.Env.Engine.Table(ks, name)
	if ok && v.IsView() {
		return v, nil
	}
	if ifExists {
		return nil, nil
	}
	return nil, query.Invalidf("Materialized view '%s.%s' doesn't exist", ks, name)
}

// compileDropView drops a view and its data (DropViewStatement).
func compileDropView(s *plan.Compiler, st *parser.DropView) (plan.Plan, error) {
	ks, err := s.KeyspaceFor(st.Name)
	if err != nil {
		return nil, err
	}
	name := string(st.Name.Name)
	return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		old, err := existingView(q, ks, name, st.IfExists)
		if err != nil {
			return nil, err
		}
		if old == nil {
			return query.VoidResult(), nil
		}
		if err := q.Env.Engine.DropTable(ks, name); err != nil {
			return nil, err
		}
		if err := setViewRemoved(ctx, q.Env, ks, name); err != nil {
			return nil, err
		}
		return schemaChange(wire.Dropped, wire.TargetTable, ks, name), nil
	}}, nil
}

// buildViewData builds view v from its base table's data, recording the
// build as Cassandra's ViewBuilder does: a system.view_builds_in_progress
// row while it runs (one, for the whole ring: minicass builds in one task),
// then a system.built_views row and the in-progress row deleted
// (SystemKeyspace.finishViewBuildStatus), with status_replicated true, as a
// single node reports it once SystemDistributedKeyspace knows the build.
func buildViewData(ctx context.Context, env *plan.Env, v *schema.Table) error {
	minToken := fmt.Sprint(int64(-1 << 63))
	progress := func(keys int64, last string) error {
		return writeSystemRow(ctx, env, "view_builds_in_progress", virtual.Values{
			"keyspace_name": virtual.TextV(v.Keyspace), "view_name": virtual.TextV(v.Name),
			"start_token": virtual.TextV(minToken), "end_token": virtual.TextV(minToken),
			"keys_built": bigintV(keys), "last_token": virtual.TextV(last),
		})
	}
	if err := progress(0, minToken); err != nil {
		return err
	}
	if err := env.Engine.BuildView(ctx, v, nil); err != nil {
		return err
	}
	if err := writeSystemRow(ctx, env, "built_views", virtual.Values{
		"keyspace_name": virtual.TextV(v.Keyspace), "view_name": virtual.TextV(v.Name), "status_replicated": virtual.BoolV(true),
	}); err != nil {
		return err
	}
	return deleteSystemRows(ctx, env, "view_builds_in_progress", v.Keyspace, v.Name)
}

// ResumeViewBuilds builds again every view of the schema whose build did
// not finish (no system.built_views row: the node stopped during CREATE
// MATERIALIZED VIEW), as Cassandra's ViewManager restarts unfinished builds
// at startup. A finished build is never repeated; writes that reached a
// view before the stop came back with the commit log, and building again
// writes the same cells.
func ResumeViewBuilds(ctx context.Context, env *plan.Env) error {
	for _, ks := range env.Engine.Keyspaces() {
		for _, t := range env.Engine.Tables(ks.Name) {
			if !t.IsView() {
				continue
			}
			built, err := viewBuilt(ctx, env, t)
			if err != nil {
				return err
			}
			if !built {
				if err := buildViewData(ctx, env, t); err != nil {
					return fmt.Errorf("cql: building view %s: %w", t.QualifiedName(), err)
				}
			}
		}
	}
	return nil
}

// viewBuilt reports whether system.built_views lists view v.
func viewBuilt(ctx context.Context, env *plan.Env, v *schema.Table) (bool, error) {
	t, ok := env.Engine.Table("system", "built_views")
	if !ok {
		return false, fmt.Errorf("cql: system table system.built_views is missing")
	}
	ck, err := types.EncodeClustering(t.ClusteringTypes(), [][]byte{[]byte(v.Name)})
	if err != nil {
		return false, err
	}
	p, err := env.Engine.ReadPartition(ctx, t, []byte(v.Keyspace), engine.ReadOptions{})
	if err != nil {
		return false, err
	}
	defer p.Close()
	for {
		r, ok := p.Next()
		if !ok {
			break
		}
		if string(r.Clustering) == string(ck) {
			return true, p.Close()
		}
	}
	return false, p.Close()
}

// setViewRemoved deletes a dropped view's rows from system.built_views and
// system.view_builds_in_progress (SystemKeyspace.setViewRemoved).
func setViewRemoved(ctx context.Context, env *plan.Env, ks, name string) error {
	if err := deleteSystemRows(ctx, env, "view_builds_in_progress", ks, name); err != nil {
		return err
	}
	return deleteSystemRows(ctx, env, "built_views", ks, name)
}

func bigintV(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

// writeSystemRow inserts row r into system.table, as INSERT does.
func writeSystemRow(ctx context.Context, env *plan.Env, table string, r virtual.Values) error {
	t, ok := env.Engine.Table("system", table)
	if !ok {
		return fmt.Errorf("cql: system table system.%s is missing", table)
	}
	row, err := virtual.SystemRow(t, r, env.Engine.NewTimestamp())
	if err != nil {
		return err
	}
	m := &data.Mutation{Table: t.ID, Key: r["keyspace_name"], PartitionDeletion: data.LiveDeletion, Rows: []data.Row{row}}
	return env.Engine.Apply(ctx, t, m)
}

// deleteSystemRows deletes the rows of view name of keyspace ks from
// system.table (keyed by keyspace_name, then view_name).
func deleteSystemRows(ctx context.Context, env *plan.Env, table, ks, name string) error {
	t, ok := env.Engine.Table("system", table)
	if !ok {
		return fmt.Errorf("cql: system table system.%s is missing", table)
	}
	ct := t.ClusteringTypes()
	start, err := types.EncodeBound(ct, [][]byte{[]byte(name)}, types.StartInclusive)
	if err != nil {
		return err
	}
	end, err := types.EncodeBound(ct, [][]byte{[]byte(name)}, types.EndInclusive)
	if err != nil {
		return err
	}
	del := data.DeletionTime{MarkedForDeleteAt: env.Engine.NewTimestamp(), LocalDeletionTime: env.Engine.Now()}
	m := &data.Mutation{Table: t.ID, Key: []byte(ks), PartitionDeletion: data.LiveDeletion,
		RangeTombstones: []data.RangeTombstone{{Start: start, End: end, Deletion: del}}}
	return env.Engine.Apply(ctx, t, m)
}

// viewWithColumn returns view v with regular column c added (a column added
// to the base table of a SELECT * view).
func viewWithColumn(v *schema.Table, c *schema.Column) *schema.Table {
	cols := append(copyColumns(v), c)
	nv := schema.NewTable(v.Keyspace, v.Name, v.ID, cols, v.Options)
	nv.Dropped, nv.Indexes, nv.View = v.Dropped, v.Indexes, v.View
	return nv
}

// viewWithRenamedColumn returns view v with base primary-key column from
// renamed to, in its columns, its restrictions and its WHERE clause
// (ViewMetadata.withRenamedPrimaryKeyColumn).
func viewWithRenamedColumn(v *schema.Table, from, to string) *schema.Table {
	cols := copyColumns(v)
	for _, c := range cols {
		if c.Name == from {
			c.Name = to
		}
	}
	nv := schema.NewTable(v.Keyspace, v.Name, v.ID, cols, v.Options)
	nv.Dropped, nv.Indexes = v.Dropped, v.Indexes
	def := *v.View
	def.Filter = nil
	for _, r := range v.View.Filter {
		r.Columns = append([]string(nil), r.Columns...)
		for i, n := range r.Columns {
			if n == from {
				r.Columns[i] = to
			}
		}
		def.Filter = append(def.Filter, r)
	}
	if def.BaseColumnInKey == from {
		def.BaseColumnInKey = to
	}
	def.WhereClause = renameInWhere(def.WhereClause, from, to)
	nv.View = &def
	return nv
}

// renameInWhere renames column from to to in a WHERE clause's text: every
// identifier token equal to from (quoted as CQL prints it) outside string
// literals.
func renameInWhere(where, from, to string) string {
	q := func(s string) string { return parser.Ident(s).String() }
	oldID, newID := q(from), q(to)
	var b strings.Builder
	inString := false
	for i := 0; i < len(where); {
		ch := where[i]
		if ch == '\'' {
			inString = !inString
			b.WriteByte(ch)
			i++
			continue
		}
		if !inString && strings.HasPrefix(where[i:], oldID) && (i == 0 || !identChar(where[i-1])) &&
			(i+len(oldID) == len(where) || !identChar(where[i+len(oldID)])) {
			b.WriteString(newID)
			i += len(oldID)
			continue
		}
		b.WriteByte(ch)
		i++
	}
	return b.String()
}

func identChar(c byte) bool {
	return c == '_' || c == '"' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func copyColumns(t *schema.Table) []*schema.Column {
	cols := make([]*schema.Column, 0, len(t.Columns)+1)
	for _, c := range t.Columns {
		cp := *c
		cols = append(cols, &cp)
	}
	return cols
}

func appendOnce(ts []*schema.Table, t *schema.Table) []*schema.Table {
	for i, x := range ts {
		if x.ID == t.ID {
			ts[i] = t
			return ts
		}
	}
	return append(ts, t)
}

// forgetKeyspaceViews deletes the system.built_views and
// view_builds_in_progress rows of a dropped keyspace's views (their
// partition).
func forgetKeyspaceViews(ctx context.Context, env *plan.Env, ks string) error {
	for _, table := range []string{"built_views", "view_builds_in_progress"} {
		t, ok := env.Engine.Table("system", table)
		if !ok {
			continue
		}
		m := &data.Mutation{Table: t.ID, Key: []byte(ks),
			PartitionDeletion: data.DeletionTime{MarkedForDeleteAt: env.Engine.NewTimestamp(), LocalDeletionTime: env.Engine.Now()}}
		if err := env.Engine.Apply(ctx, t, m); err != nil {
			return err
		}
	}
	return nil
}
