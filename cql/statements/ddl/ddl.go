package ddl

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/minicass/minicass/cql/index"
	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/expr"
	"github.com/minicass/minicass/cql/virtual"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// ddlPlan is a schema statement: it has no bind markers and runs once.
type ddlPlan struct {
	plan.NoBinds
	run func(ctx context.Context, q *plan.Execution) (*query.Result, error)
}

func (p *ddlPlan) Exec(ctx context.Context, q *plan.Execution) (*query.Result, error) {
	return p.run(ctx, q)
}

func schemaChange(change wire.ChangeType, target wire.ChangeTarget, ks, name string) *query.Result {
	return &query.Result{Kind: wire.ResultSchemaChange, Change: &wire.SchemaChange{Change: change, Target: target, Keyspace: ks, Name: name}}
}

func CompileDDL(s *plan.Compiler, stmt parser.Statement) (plan.Plan, error) {
	switch st := stmt.(type) {
	case *parser.CreateKeyspace:
		name := string(st.Name)
		if s.Env.System.UserVirtualKeyspace(name) {
			return nil, s.CheckSchemaModifiable(name)
		}
		if virtual.IsSystemKeyspace(name) {
			if st.IfNotExists {
				return &ddlPlan{run: func(context.Context, *plan.Execution) (*query.Result, error) { return query.VoidResult(), nil }}, nil
			}
			return nil, &query.Error{Code: wire.CodeAlreadyExists, Message: fmt.Sprintf("Cannot add existing keyspace \"%s\"", name), Keyspace: name}
		}
		if err := validateName("Keyspace", name); err != nil {
			return nil, err
		}
		dc := s.Env.System.DataCenter()
		durable := &schema.Keyspace{Name: name, DurableWrites: true}
		repl, err := keyspaceOptions(durable, st.Options, true)
		if err != nil {
			return nil, err
		}
		return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
			exists := func() (*query.Result, error) {
				if st.IfNotExists {
					return query.VoidResult(), nil
				}
				return nil, &query.Error{Code: wire.CodeAlreadyExists, Message: fmt.Sprintf("Cannot add existing keyspace \"%s\"", name), Keyspace: name}
			}
			// CreateKeyspaceStatement.apply: an existing keyspace is
			// found before the options are validated.
			if _, ok := q.Env.Engine.Keyspace(name); ok {
				return exists()
			}
			r, err := validateReplication(name, repl, nil, dc, defaultKeyspaceRF(q.Env))
			if err != nil {
				return nil, err
			}
			ks := &schema.Keyspace{Name: name, DurableWrites: durable.DurableWrites, Replication: r}
			if err := q.Env.Engine.CreateKeyspace(ks); err != nil {
				if errors.Is(err, engine.ErrKeyspaceExists) {
					return exists()
				}
				return nil, err
			}
			res := schemaChange(wire.Created, wire.TargetKeyspace, name, "")
			res.Warnings = append(res.Warnings, replicationWarnings(ks, q.Env.System.DataCenter())...)
			return res, nil
		}}, nil
	case *parser.AlterKeyspace:
		name := string(st.Name)
		if err := s.CheckSchemaModifiable(name); err != nil {
			return nil, err
		}
		altered := &schema.Keyspace{Name: name}
		repl, err := keyspaceOptions(altered, st.Options, false)
		if err != nil {
			return nil, err
		}
		durableGiven := false
		for _, p := range st.Options {
			durableGiven = durableGiven || strings.EqualFold(string(p.Name), "durable_writes")
		}
		return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
			old, ok := q.Env.Engine.Keyspace(name)
			if !ok {
				if st.IfExists {
					return query.VoidResult(), nil
				}
				return nil, query.Invalidf("Keyspace '%s' doesn't exist", name)
			}
			ks := &schema.Keyspace{Name: name, Replication: old.Replication, DurableWrites: old.DurableWrites, Types: old.Types}
			if durableGiven {
				ks.DurableWrites = altered.DurableWrites
			}
			if repl != nil {
				r, err := validateReplication(name, repl, old.Replication, q.Env.System.DataCenter(), defaultKeyspaceRF(q.Env))
				if err != nil {
					return nil, err
				}
				ks.Replication = r
			}
			if err := q.Env.Engine.AlterKeyspace(ks); err != nil {
				return nil, err
			}
			res := schemaChange(wire.Updated, wire.TargetKeyspace, name, "")
			res.Warnings = append(res.Warnings, replicationWarnings(ks, q.Env.System.DataCenter())...)
			return res, nil
		}}, nil
	case *parser.DropKeyspace:
		name := string(st.Name)
		if err := s.CheckSchemaModifiable(name); err != nil {
			return nil, err
		}
		return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
			hadViews := false
			for _, t := range q.Env.Engine.Tables(name) {
				hadViews = hadViews || t.IsView()
			}
			if err := q.Env.Engine.DropKeyspace(name); err != nil {
				if errors.Is(err, engine.ErrNoKeyspace) {
					if st.IfExists {
						return query.VoidResult(), nil
					}
					// DropKeyspaceStatement.apply: an InvalidRequest.
					return nil, query.Invalidf("Keyspace '%s' doesn't exist", name)
				}
				return nil, err
			}
			if hadViews {
				if err := forgetKeyspaceViews(ctx, q.Env, name); err != nil {
					return nil, err
				}
			}
			if q.Session.Keyspace() == name {
				q.Session.SetKeyspace("")
			}
			return schemaChange(wire.Dropped, wire.TargetKeyspace, name, ""), nil
		}}, nil
	case *parser.CreateTable:
		return compileCreateTable(s, st)
	case *parser.AlterTable:
		return compileAlterTable(s, st)
	case *parser.DropTable:
		ks, name, err := s.ModifiableTable(st.Table)
		if err != nil {
			return nil, err
		}
		return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
			old, ok := q.Env.Engine.Table(ks, name)
			if ok {
				if old.IsIndexTable() {
					// An index's table is not for CQL: as missing.
					if st.IfExists {
						return query.VoidResult(), nil
					}
					return nil, query.Invalidf("Table '%s.%s' doesn't exist", ks, name)
				}
				if old.IsView() {
					return nil, query.Invalidf("Cannot use DROP TABLE on a materialized view. Please use DROP MATERIALIZED VIEW instead.")
				}
				if len(q.Env.Engine.ViewsOf(old)) > 0 {
					// DropTableStatement's format has one %s for two
					// arguments: the keyspace is all it prints.
					return nil, query.Invalidf("Cannot drop a table when materialized views still depend on it (%s)", ks)
				}
			}
			if err := q.Env.Engine.DropTable(ks, name); err != nil {
				if errors.Is(err, engine.ErrNoTable) || errors.Is(err, engine.ErrNoKeyspace) {
					if st.IfExists {
						return query.VoidResult(), nil
					}
					// DropTableStatement.apply: a missing keyspace is a
					// missing table.
					return nil, query.Invalidf("Table '%s.%s' doesn't exist", ks, name)
				}
				return nil, err
			}
			// The base table is gone: its indexes' tables go with it.
			for i := range old.Indexes {
				if index.IsBuiltin(&old.Indexes[i]) {
					if err := index.Drop(q.Env.Engine, old, old.Indexes[i].Name); err != nil {
						return nil, err
					}
				}
			}
			return schemaChange(wire.Dropped, wire.TargetTable, ks, name), nil
		}}, nil
	case *parser.CreateType:
		return compileCreateType(s, st)
	case *parser.AlterUserType:
		return compileAlterType(s, st)
	case *parser.DropType:
		return compileDropType(s, st)
	case *parser.CreateIndex:
		return compileCreateIndex(s, st)
	case *parser.DropIndex:
		return compileDropIndex(s, st)
	case *parser.CreateView:
		return compileCreateView(s, st)
	case *parser.AlterView:
		return compileAlterView(s, st)
	case *parser.DropView:
		return compileDropView(s, st)
	case *parser.CreateFunction:
		return compileCreateFunction(s, st)
	case *parser.CreateAggregate:
		return compileCreateAggregate(s, st)
	case *parser.DropFunction:
		return compileDropFunction(s, st)
	case *parser.CreateTrigger:
		return compileCreateTrigger(s, st)
	case *parser.DropTrigger:
		return compileDropTrigger(s, st)
	case *parser.Truncate:
		ks, name, err := s.TableKeyspace(st.Table)
		if err != nil {
			return nil, err
		}
		vt, err := s.LookupTable(st.Table)
		if err != nil {
			return nil, err
		}
		if virtual.IsUserVirtual(vt) {
			return compileTruncateVirtual(vt), nil
		}
		if tbl, ok := s.Env.Engine.Table(ks, name); ok && tbl.IsView() {
			return nil, query.Invalidf("Cannot TRUNCATE materialized view directly; must truncate base table instead")
		}
		return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
			// The indexes' tables first, as Cassandra truncates a table's
			// indexes with it: a write racing with TRUNCATE can then leave
			// an entry whose row is gone (which reads skip), never a row
			// without its entry.
			if tbl, ok := q.Env.Engine.Table(ks, name); ok {
				for _, it := range q.Env.Engine.IndexTables(ks) {
					if schema.OwnsTable(tbl.Name, it.Name) && it.Name != tbl.Name {
						if err := q.Env.Engine.Truncate(ks, it.Name); err != nil {
							return nil, err
						}
					}
				}
			}
			if err := q.Env.Engine.Truncate(ks, name); err != nil {
				return nil, err
			}
			// The views go with their base (TableViews.truncateBlocking).
			if tbl, ok := q.Env.Engine.Table(ks, name); ok {
				for _, v := range q.Env.Engine.ViewsOf(tbl) {
					if err := q.Env.Engine.Truncate(ks, v.Name); err != nil {
						return nil, err
					}
				}
			}
			return query.VoidResult(), nil
		}}, nil
	}
	return nil, query.Invalidf("unsupported schema statement %s", stmt)
}

func validateName(what, name string) error {
	if len(name) > 48 {
		return query.Invalidf("%s name must not be more than 48 characters long (got %d characters for \"%s\")", what, len(name), name)
	}
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return query.Invalidf("%s name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got \"%s\")", what, name)
		}
	}
	if name == "" {
		return query.Invalidf("%s name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got \"%s\")", what, name)
	}
	return nil
}

func compileCreateTable(s *plan.Compiler, st *parser.CreateTable) (plan.Plan, error) {
	ks, name, err := s.ModifiableTable(st.Table)
	if err != nil {
		return nil, err
	}
	if err := validateName("Table", name); err != nil {
		return nil, err
	}
	// CreateTableStatement.validate: the compact_tables guardrail.
	if st.CompactStorage && s.Env.CompactTablesDisabled {
		return nil, query.Invalidf("Guardrail compact_tables violated: Creation of new COMPACT STORAGE tables is not allowed")
	}
	ksDef, _ := s.Env.Engine.Keyspace(ks)
	defs := map[string]*parser.ColumnDef{}
	var order []string
	var inlinePK []string
	for _, c := range st.Columns {
		n := string(c.Name)
		if _, dup := defs[n]; dup {
			return nil, query.Invalidf("Duplicate column '%s' declaration for table '%s'", n, name)
		}
		defs[n] = c
		order = append(order, n)
		if c.PrimaryKey {
			inlinePK = append(inlinePK, n)
		}
	}
	var pk, ck []string
	switch {
	case st.Key != nil && len(inlinePK) > 0, len(inlinePK) > 1:
		return nil, query.Invalidf("Multiple PRIMARY KEY specified for table '%s' (exactly one required)", name)
	case st.Key != nil:
		for _, id := range st.Key.PartitionKey {
			pk = append(pk, string(id))
		}
		for _, id := range st.Key.Clustering {
			ck = append(ck, string(id))
		}
	case len(inlinePK) == 1:
		pk = inlinePK
	default:
		return nil, query.Invalidf("No PRIMARY KEY specifed for table '%s' (exactly one required)", name)
	}
	// CreateTableStatement.builder: a non-frozen user type column whose type
	// has a field declared a non-frozen collection is refused, before the
	// primary key checks (a type that does not convert fails below).
	for _, n := range order {
		if t, err := expr.ConvertType(defs[n].Type, ksDef); err == nil && t.UDT != nil && !t.Frozen && t.UDT.HasMultiCellField() {
			return nil, query.Invalidf("Non-frozen UDTs with nested non-frozen collections are not supported")
		}
	}
	var cols []*schema.Column
	keyCols := map[string]bool{}
	addKey := func(n string, kind schema.ColumnKind, pos int) error {
		def, ok := defs[n]
		if !ok {
			return query.Invalidf("Unknown column '%s' referenced in PRIMARY KEY for table '%s'", n, name)
		}
		if keyCols[n] {
			return query.Invalidf("Duplicate column '%s' in PRIMARY KEY clause for table '%s'", n, name)
		}
		if def.Static {
			return query.Invalidf("Static column '%s' cannot be part of the PRIMARY KEY", n)
		}
		t, err := expr.ConvertType(def.Type, ksDef)
		if err != nil {
			return err
		}
		switch {
		case t.UDT != nil && !t.Frozen:
			return query.Invalidf("Invalid non-frozen user-defined type \"%s\" for PRIMARY KEY column '%s'", t.UDT.Name, n)
		case t.Kind == types.Counter:
			return query.Invalidf("counter type is not supported for PRIMARY KEY column '%s'", n)
		case t.Kind == types.Duration || containsDuration(t):
			return query.Invalidf("duration type is not supported for PRIMARY KEY column '%s'", n)
		case t.IsMultiCell():
			return query.Invalidf("Invalid non-frozen collection type %s for PRIMARY KEY column '%s'", t, n)
		}
		keyCols[n] = true
		cols = append(cols, &schema.Column{Name: n, Type: t.Freeze(), Kind: kind, Position: pos})
		return nil
	}
	for i, n := range pk {
		if err := addKey(n, schema.PartitionKey, i); err != nil {
			return nil, err
		}
	}
	for i, n := range ck {
		if err := addKey(n, schema.Clustering, i); err != nil {
			return nil, err
		}
	}
	hasCounter, hasNonCounter := false, false
	for _, n := range order {
		if keyCols[n] {
			continue
		}
		def := defs[n]
		t, err := expr.ConvertType(def.Type, ksDef)
		if err != nil {
			return nil, err
		}
		kind := schema.Regular
		if def.Static && !st.CompactStorage {
			if len(ck) == 0 {
				return nil, query.Invalidf("Static columns are only useful (and thus allowed) if the table has at least one clustering column")
			}
			kind = schema.Static
		}
		if t.Kind == types.Counter {
			hasCounter = true
		} else {
			hasNonCounter = true
		}
		if err := checkNestedCounter(t, n); err != nil {
			return nil, err
		}
		cols = append(cols, &schema.Column{Name: n, Type: t, Kind: kind, Position: -1})
	}
	if st.CompactStorage {
		if err := validateCompactTable(st, cols, len(ck) > 0); err != nil {
			return nil, err
		}
	}
	if hasCounter && hasNonCounter {
		return nil, query.Invalidf("Cannot mix counter and non counter columns in the same table") // CreateTableStatement.builder: ire
	}
	// CLUSTERING ORDER BY lists a prefix of the clustering columns, in order
	// (CreateTableStatement.builder): the unlisted tail stays ASC.
	for _, o := range st.ClusteringOrder {
		if !containsString(ck, string(o.Column)) {
			return nil, query.Invalidf("Only clustering key columns can be defined in CLUSTERING ORDER directive: [%s] are not clustering columns", o.Column)
		}
	}
	listed := map[string]bool{}
	for _, o := range st.ClusteringOrder {
		if listed[string(o.Column)] {
			return nil, query.Invalidf("Duplicate column '%s' in CLUSTERING ORDER directive", o.Column)
		}
		listed[string(o.Column)] = true
	}
	for i, o := range st.ClusteringOrder {
		if c := ck[i]; c != string(o.Column) {
			if listed[c] {
				return nil, query.Invalidf("The order of columns in the CLUSTERING ORDER directive must match that of the clustering columns (%s must appear before %s)", c, o.Column)
			}
			return nil, query.Invalidf("Missing CLUSTERING ORDER for column %s", c)
		}
	}
	for _, o := range st.ClusteringOrder {
		for _, c := range cols {
			if c.Name == string(o.Column) {
				c.Desc = o.Desc
			}
		}
	}
	opts := schema.DefaultOptions()
	props, idText, hasID, err := tableIDOption(st.Options)
	if err != nil {
		return nil, err
	}
	if err := tableOptions(s.Env, &opts, props, hasCounter); err != nil {
		return nil, err
	}
	return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		if _, ok := s.Env.Engine.Keyspace(ks); !ok {
			return nil, query.Invalidf("Keyspace '%s' doesn't exist", ks)
		}
		id := data.TableID(types.NewRandomUUID())
		// CreateTableStatement.apply reads the ID only once it knows the
		// table is new, so an existing table is refused (or skipped) first.
		if _, exists := s.Env.Engine.Table(ks, name); hasID && !exists {
			u, err := types.ParseUUID(idText)
			if err != nil {
				return nil, query.Configf("Invalid table id")
			}
			id = data.TableID(u)
		}
		var compact *schema.CompactStorage
		tcols := cols
		if st.CompactStorage {
			compact, tcols = fixupCompactTable(cols, len(ck) > 0, hasCounter)
		}
		tbl := schema.NewTable(ks, name, id, tcols, opts)
		tbl.Compact = compact
		if err := s.Env.Engine.CreateTable(tbl); err != nil {
			if errors.Is(err, engine.ErrTableExists) {
				if st.IfNotExists {
					return query.VoidResult(), nil
				}
				return nil, &query.Error{Code: wire.CodeAlreadyExists, Message: fmt.Sprintf("Cannot add already existing table \"%s\" to keyspace \"%s\"", name, ks), Keyspace: ks, Table: name}
			}
			if errors.Is(err, engine.ErrNoKeyspace) {
				return nil, query.Invalidf("Keyspace '%s' doesn't exist", ks)
			}
			return nil, err
		}
		return schemaChange(wire.Created, wire.TargetTable, ks, name), nil
	}}, nil
}

func containsDuration(t types.Type) bool {
	if t.Kind == types.Duration {
		return true
	}
	for _, p := range t.Params {
		if containsDuration(p) {
			return true
		}
	}
	return false
}

func checkNestedCounter(t types.Type, col string) error {
	for _, p := range t.Params {
		if p.Kind == types.Counter {
			return query.Invalidf("Counters are not allowed inside collections: %s", t)
		}
	}
	return nil
}

func containsString(ss []string, s string) bool { return indexOf(ss, s) >= 0 }

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

func cloneOptions(o schema.Options) schema.Options {
	cp := o
	cp.Compaction = maps.Clone(o.Compaction)
	cp.Compression = maps.Clone(o.Compression)
	cp.Extra = maps.Clone(o.Extra)
	return cp
}

func compileAlterTable(s *plan.Compiler, st *parser.AlterTable) (plan.Plan, error) {
	ks, name, err := s.ModifiableTable(st.Table)
	if err != nil {
		return nil, err
	}
	return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		old, ok := s.Env.Engine.Table(ks, name)
		if ok && old.IsIndexTable() {
			ok = false
		}
		if !ok {
			if st.IfExists {
				return query.VoidResult(), nil
			}
			if _, ok := s.Env.Engine.Keyspace(ks); !ok {
				return nil, query.Invalidf("Keyspace '%s' doesn't exist", ks)
			}
			return nil, query.Invalidf("Table '%s.%s' doesn't exist", ks, name)
		}
		if old.IsView() {
			return nil, query.Invalidf("Cannot use ALTER TABLE on a materialized view; use ALTER MATERIALIZED VIEW instead")
		}
		views := q.Env.Engine.ViewsOf(old)
		var changedViews []*schema.Table
		cols := make([]*schema.Column, 0, len(old.Columns))
		for _, c := range old.Columns {
			cp := *c
			cols = append(cols, &cp)
		}
		opts := cloneOptions(old.Options)
		dropped := old.Dropped
		find := func(n string) int {
			for i, c := range cols {
				if c.Name == n {
					return i
				}
			}
			return -1
		}
		switch st.Kind {
		case parser.AlterAdd:
			for _, def := range st.Add {
				n := string(def.Name)
				if find(n) >= 0 {
					if st.IfColumn {
						continue // AddColumns with IF NOT EXISTS
					}
					return nil, query.Invalidf("Column with name '%s' already exists", n)
				}
				ksDef, _ := s.Env.Engine.Keyspace(ks)
				t, err := expr.ConvertType(def.Type, ksDef)
				if err != nil {
					return nil, err
				}
				if old.IsCompact() {
					return nil, query.Invalidf("Cannot add new column to a COMPACT STORAGE table")
				}
				if d, ok := old.Dropped[n]; ok {
					// AlterTableStatement.AddColumns: a dropped column may
					// come back only with a type its old cells still read as.
					if !reAddCompatible(t, d.Type) {
						return nil, query.Invalidf("Cannot re-add previously dropped column '%s' of type %s, incompatible with previous type %s", n, t, d.Type)
					}
					if d.Static != def.Static {
						kind := map[bool]string{true: "STATIC", false: "REGULAR"}
						return nil, query.Invalidf("Cannot re-add previously dropped column '%s' of kind %s, incompatible with previous kind %s", n, kind[def.Static], kind[d.Static])
					}
					if old.IsCounter() {
						return nil, query.Invalidf("Cannot re-add previously dropped counter column %s", n)
					}
				}
				kind := schema.Regular
				if def.Static {
					if len(old.ClusteringColumns()) == 0 {
						return nil, query.Invalidf("Static columns are only useful (and thus allowed) if the table has at least one clustering column")
					}
					kind = schema.Static
				}
				if (t.Kind == types.Counter) != old.IsCounter() && len(old.Columns) > len(old.PartitionKey())+len(old.ClusteringColumns()) {
					if t.Kind == types.Counter {
						return nil, query.Configf("Cannot add a counter column (%s) in a non counter column family", n)
					}
					return nil, query.Configf("Cannot add a non counter column (%s) in a counter column family", n)
				}
				cols = append(cols, &schema.Column{Name: n, Type: t, Kind: kind, Position: -1})
				if kind == schema.Regular {
					// A SELECT * view gets the column too (AddColumns).
					for i, v := range views {
						if v.View.IncludeAllColumns {
							views[i] = viewWithColumn(v, &schema.Column{Name: n, Type: t, Kind: schema.Regular, Position: -1})
							changedViews = appendOnce(changedViews, views[i])
						}
					}
				}
			}
		case parser.AlterDrop:
			for _, id := range st.Drop {
				n := string(id)
				i := find(n)
				if i < 0 {
					if st.IfColumn {
						continue // DropColumns with IF EXISTS
					}
					return nil, query.Invalidf("Column %s was not found in table %s", n, name)
				}
				if cols[i].Kind == schema.PartitionKey || cols[i].Kind == schema.Clustering {
					return nil, query.Invalidf("Cannot drop PRIMARY KEY column %s", n)
				}
				if ix := old.IndexesOn(n); len(ix) > 0 {
					return nil, query.Invalidf("Cannot drop column %s because it has dependent secondary indexes (%s)", n, strings.Join(ix, ", "))
				}
				if len(views) > 0 {
					return nil, query.Invalidf("Cannot drop column %s on base table %s with materialized views", n, name)
				}
				// Cells written up to now stay hidden even if a column of
				// that name comes back (system_schema.dropped_columns).
				dropped = maps.Clone(dropped)
				if dropped == nil {
					dropped = map[string]schema.DroppedColumn{}
				}
				at := s.Env.Engine.NewTimestamp()
				if st.DropTimestamp != nil {
					at = *st.DropTimestamp // AlterTableStatement.DropColumns' timestamp
				}
				dropped[n] = schema.DroppedColumn{Type: cols[i].Type.WithoutUDTs(), DroppedAt: at, Static: cols[i].Kind == schema.Static}
				cols = append(cols[:i], cols[i+1:]...)
			}
		case parser.AlterRename:
			for _, r := range st.Renames {
				from, to := string(r.From), string(r.To)
				if old.IsCompact() && old.Column(from) == nil && !st.IfColumn {
					// A hidden or missing column: RenameColumns' getExistingColumn
					// (CompactTableMetadata) refuses it by name.
					return nil, query.Invalidf("Undefined column name %s in table %s", from, old.QualifiedName())
				}
				i := find(from)
				if i < 0 {
					if st.IfColumn {
						continue // RenameColumns with IF EXISTS
					}
					return nil, query.Invalidf("Column %s was not found in table %s", from, name)
				}
				if cols[i].Kind != schema.PartitionKey && cols[i].Kind != schema.Clustering {
					return nil, query.Invalidf("Cannot rename non PRIMARY KEY column %s", from)
				}
				if find(to) >= 0 {
					return nil, query.Invalidf("Cannot rename column %s to %s in table %s; another column with that name already exists", from, to, name)
				}
				if ix := old.IndexesOn(from); len(ix) > 0 {
					return nil, query.Invalidf("Cannot rename column %s because it has dependent secondary indexes (%s)", from, strings.Join(ix, ", "))
				}
				cols[i].Name = to
				for j, v := range views {
					if v.Column(from) != nil {
						views[j] = viewWithRenamedColumn(v, from, to)
						changedViews = appendOnce(changedViews, views[j])
					}
				}
			}
		case parser.AlterOptions:
			props, _, hasID, err := tableIDOption(st.Options)
			if err != nil {
				return nil, err
			}
			if err := tableOptions(s.Env, &opts, props, old.IsCounter()); err != nil {
				return nil, err
			}
			if hasID {
				// TableAttributes.asAlteredTableParams.
				return nil, query.Configf("Cannot alter table id.")
			}
			if len(views) > 0 && opts.GCGraceSeconds == 0 {
				return nil, query.Invalidf("Cannot alter gc_grace_seconds of the base table of a materialized view to 0, since this value is used to TTL undelivered updates. Setting gc_grace_seconds too low might cause undelivered updates to expire before being replayed.")
			}
		case parser.AlterType:
			return nil, query.Invalidf("Altering column types is no longer supported")
		}
		compact := old.Compact
		if st.Kind == parser.AlterDropCompactStorage {
			// AlterTableStatement.DropCompactStorage: the table becomes a
			// CQL one (flags compound, and counter), which makes its hidden
			// columns visible; its columns and data stay as they are.
			if !q.Env.DropCompactStorageEnabled {
				return nil, query.Invalidf("DROP COMPACT STORAGE is disabled. Enable in cassandra.yaml to use.")
			}
			if !old.IsCompact() {
				return nil, query.Invalidf("Cannot DROP COMPACT STORAGE on table without COMPACT STORAGE")
			}
			compact = nil
		}
		tbl := schema.NewTable(ks, name, old.ID, cols, opts)
		tbl.Compact = compact
		tbl.Dropped = dropped
		tbl.Indexes = old.Indexes
		tbl.Triggers = old.Triggers
		if err := q.Env.Engine.AlterTables(append([]*schema.Table{tbl}, changedViews...)...); err != nil {
			return nil, err
		}
		// An index's table takes its base table's options (gc_grace_seconds,
		// compaction, compression...), as Cassandra reloads an index's
		// table from its base's parameters.
		for _, it := range s.Env.Engine.IndexTables(ks) {
			if schema.OwnsTable(name, it.Name) && it.Name != name {
				nt := it.Clone()
				nt.Options = opts
				if err := s.Env.Engine.AlterTable(nt); err != nil {
					return nil, err
				}
			}
		}
		return schemaChange(wire.Updated, wire.TargetTable, ks, name), nil
	}}, nil
}

// reAddCompatible reports whether a column dropped with type prev may be
// added again with type t. For a non-frozen collection this is
// CollectionType.isCompatibleWith: the same kind of collection, still
// non-frozen, with the same keys (or elements) and the same values, as the
// cells written before the drop are read with the new type. Other dropped
// types are not checked (Cassandra's value compatibility between simple
// types, such as int to varint, is not modelled).
func reAddCompatible(t, prev types.Type) bool {
	// AbstractType.isSerializationCompatibleWith: the cells' fixed length,
	// if any, must stay the same (a dropped int does not come back as a
	// varint). Only the types whose fixed length is certain are compared.
	if a, okA := fixedLength(t); okA {
		if b, okB := fixedLength(prev); okB && a != b {
			return false
		}
	}
	if t.IsMultiCell() && !prev.IsMultiCell() {
		// A non-frozen type reads only cells of its own kind
		// (CollectionType.isValueCompatibleWithInternal).
		return false
	}
	if !prev.IsMultiCell() || prev.IsUDT() || prev.Kind == types.Tuple {
		return true
	}
	if !t.IsMultiCell() || t.Kind != prev.Kind || len(t.Params) != len(prev.Params) {
		return false
	}
	for i := range t.Params {
		if !t.Params[i].Equal(prev.Params[i]) {
			return false
		}
	}
	return true
}

// replicationWarnings are the client warnings of a keyspace created or
// altered with more replicas than its data center has nodes (the
// maybeWarnOnOptions of Cassandra's SimpleStrategy and
// NetworkTopologyStrategy). The node is the only one of its data center
// localDC; a data center without nodes draws no warning, as in Cassandra,
// nor does a system keyspace.
func replicationWarnings(ks *schema.Keyspace, localDC string) []string {
	if virtual.IsSystemKeyspace(ks.Name) {
		return nil
	}
	const nodes = 1
	class := ks.Replication["class"]
	var warns []string
	switch {
	case strings.HasSuffix(class, "SimpleStrategy"):
		if rf := fullReplicas(ks.Replication["replication_factor"]); rf > nodes {
			warns = append(warns, fmt.Sprintf("Your replication factor %d for keyspace %s is higher than the number of nodes %d", rf, ks.Name, nodes))
		}
	case strings.HasSuffix(class, "NetworkTopologyStrategy"):
		if rf := fullReplicas(ks.Replication[localDC]); rf > nodes {
			warns = append(warns, fmt.Sprintf("Your replication factor %d for keyspace %s is higher than the number of nodes %d for datacenter %s", rf, ks.Name, nodes, localDC))
		}
	}
	return warns
}

// fullReplicas is the number of full replicas of a replication factor
// option: "3", or "3/1" with transient replicas.
func fullReplicas(opt string) int {
	all, transient, ok := strings.Cut(opt, "/")
	n, err := strconv.Atoi(strings.TrimSpace(all))
	if err != nil {
		return 0
	}
	if ok {
		t, err := strconv.Atoi(strings.TrimSpace(transient))
		if err != nil {
			return 0
		}
		n -= t
	}
	return n
}

// fixedLength is a type's valueLengthIfFixed in Cassandra (-1 for a type of
// variable length), and whether minicass knows it: false for the types
// (date, time, smallint, tinyint, counter) it does not compare.
func fixedLength(t types.Type) (int, bool) {
	if t.IsMultiCell() || t.IsUDT() {
		return -1, true
	}
	switch t.Kind {
	case types.Int, types.Float:
		return 4, true
	case types.Bigint, types.Double, types.Timestamp:
		return 8, true
	case types.Boolean:
		return 1, true
	case types.UUID, types.TimeUUID:
		return 16, true
	case types.Ascii, types.Text, types.Varint, types.Decimal, types.Blob, types.Inet, types.Duration,
		types.List, types.Set, types.Map, types.Tuple:
		return -1, true
	}
	return 0, false
}

// validateCompactTable refuses what a COMPACT STORAGE table cannot hold, as
// CreateTableStatement.validateCompactTable does: a non-frozen collection or
// user type outside the primary key, a static column, no column outside a
// primary key without clustering columns, or more than one with them. cols
// are the table's declared columns.
func validateCompactTable(st *parser.CreateTable, cols []*schema.Column, dense bool) error {
	var rest []string
	for _, c := range cols {
		if c.Kind == schema.PartitionKey || c.Kind == schema.Clustering {
			continue
		}
		if c.Type.IsMultiCell() {
			return query.Invalidf("Non-frozen collections and UDTs are not supported with COMPACT STORAGE")
		}
		rest = append(rest, c.Name)
	}
	for _, c := range st.Columns {
		if c.Static {
			return query.Invalidf("Static columns are not supported in COMPACT STORAGE tables")
		}
	}
	// The columns in the byte order of their names (the TreeMap of
	// CreateTableStatement.builder).
	slices.Sort(rest)
	switch {
	case !dense && len(rest) == 0:
		return query.Invalidf("No definition found that is not part of the PRIMARY KEY")
	case dense && len(rest) > 1:
		return query.Invalidf("COMPACT STORAGE with composite PRIMARY KEY allows no more than one column not part of the PRIMARY KEY (got: %s)", strings.Join(rest, ", "))
	}
	return nil
}

// fixupCompactTable lays out a COMPACT STORAGE table's columns, as
// CreateTableStatement.fixupCompactTable does: a static compact table (no
// clustering columns declared) keeps its declared columns as static ones
// and gets a text clustering column column1 and a blob (or counter) value
// column; a dense table without a declared value column gets the EmptyType
// column value. The added columns take the first free name of DefaultNames.
func fixupCompactTable(cols []*schema.Column, dense, counter bool) (*schema.CompactStorage, []*schema.Column) {
	used := map[string]bool{}
	for _, c := range cols {
		used[c.Name] = true
	}
	free := func(base string, first int) string {
		for i := first; ; i++ {
			n := base
			if i > 0 {
				n = base + strconv.Itoa(i)
			}
			if !used[n] {
				used[n] = true
				return n
			}
		}
	}
	out := make([]*schema.Column, 0, len(cols)+2)
	hasRegular := false
	for _, c := range cols {
		cp := *c
		if !dense && cp.Kind == schema.Regular {
			cp.Kind = schema.Static
		}
		hasRegular = hasRegular || cp.Kind == schema.Regular
		out = append(out, &cp)
	}
	switch {
	case !dense:
		out = append(out, &schema.Column{Name: free(schema.DefaultClusteringName, 1), Type: types.Type{Kind: types.Text}, Kind: schema.Clustering, Position: 0})
		vt := types.Type{Kind: types.Blob}
		if counter {
			vt = types.Type{Kind: types.Counter}
		}
		out = append(out, &schema.Column{Name: free(schema.DefaultCompactValueName, 0), Type: vt, Kind: schema.Regular, Position: -1})
	case !hasRegular:
		out = append(out, &schema.Column{Name: free(schema.DefaultCompactValueName, 0), Type: schema.EmptyType, Kind: schema.Regular, Position: -1})
	}
	return &schema.CompactStorage{Dense: dense}, out
}

// compileTruncateVirtual is TRUNCATE of a registered virtual table:
// TruncateStatement.executeForVirtualTable calls the table's truncate, which
// a table that does not support it refuses.
func compileTruncateVirtual(tbl *schema.Table) plan.Plan {
	return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		if err := virtual.TruncateUser(ctx, tbl); err != nil {
			return nil, plan.VirtualError(err)
		}
		return query.VoidResult(), nil
	}}
}
