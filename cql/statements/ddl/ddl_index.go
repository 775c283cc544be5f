package ddl

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/minicass/minicass/cql/index"
	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// Secondary indexes (CREATE INDEX, DROP INDEX) follow Cassandra 4's
// CreateIndexStatement and DropIndexStatement: the checks, the default
// name <table>_<column>_idx, and an UPDATED TABLE schema change. A built-in
// index keeps its data in an index table (package index), created and built
// here before the index is published; a CUSTOM one (SASI, SAI) keeps only
// its definition and is served by a filtered scan.

// nonWordChars are removed from default index names
// (IndexMetadata.PATTERN_NON_WORD_CHAR).
var nonWordChars = regexp.MustCompile(`\W`)

func compileCreateIndex(s *plan.Compiler, st *parser.CreateIndex) (plan.Plan, error) {
	ks, name, err := s.ModifiableTable(st.Table)
	if err != nil {
		return nil, err
	}
	var options map[string]string
	if st.Custom {
		if st.Using == "" {
			return nil, query.Invalidf("Must specify index implementation via USING")
		}
		if st.Options != nil {
			if _, options, err = propertyValue(parser.Property{Name: "options", Value: st.Options}); err != nil {
				return nil, err
			}
			if options == nil {
				return nil, &query.Error{Code: wire.CodeSyntax, Message: "Invalid value for property 'options'"}
			}
			if _, ok := options["class_name"]; ok {
				return nil, query.Invalidf("Cannot specify index class as a regular option and via USING")
			}
			if _, ok := options["target"]; ok {
				return nil, query.Invalidf("target is a reserved index option")
			}
		}
	} else if st.Using != "" {
		return nil, query.Invalidf("Cannot specify a custom index class for a non-custom index")
	}
	return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		if _, ok := q.Env.Engine.Keyspace(ks); !ok {
			return nil, query.Invalidf("Keyspace '%s' doesn't exist", ks)
		}
		tbl, ok := q.Env.Engine.Table(ks, name)
		if !ok || tbl.IsIndexTable() {
			return nil, query.Invalidf("Table '%s' doesn't exist", name)
		}
		if tbl.IsView() {
			return nil, query.Invalidf("Secondary indexes are not supported on materialized views")
		}
		indexName := string(st.Name)
		if indexName != "" && keyspaceIndex(q.Env.Engine.Tables(ks), indexName) != nil {
			if st.IfNotExists {
				return query.VoidResult(), nil
			}
			return nil, query.Invalidf("Index '%s' already exists", indexName)
		}
		if tbl.IsCounter() {
			return nil, query.Invalidf("Secondary indexes on counter tables aren't supported")
		}
		if st.Target.Column == "" {
			if !st.Custom {
				return nil, query.Invalidf("Only CUSTOM indexes can be created without specifying a target column")
			}
			if indexName == "" {
				indexName = availableIndexName(q.Env.Engine.Tables(ks), nonWordChars.ReplaceAllString(name+"_idx", ""))
			}
			return addIndex(ctx, q, st, tbl, schema.Index{Name: indexName, Class: st.Using, Options: options})
		}
		col := tbl.Column(string(st.Target.Column))
		if col == nil {
			if tbl.StoredColumn(string(st.Target.Column)) != nil {
				// A hidden column (CompactTableMetadata.getExistingColumn).
				return nil, query.Invalidf("Undefined column name %s in table %s", st.Target.Column, tbl.QualifiedName())
			}
			return nil, query.Invalidf("Column '%s' doesn't exist", st.Target.Column)
		}
		// CreateIndexStatement.apply: a compact table takes indexes only on
		// its columns outside the primary key, which are the static columns
		// of a static compact table: a dense table's one is its compact
		// value column.
		if tbl.IsCompact() {
			if col.Kind == schema.PartitionKey || col.Kind == schema.Clustering {
				return nil, query.Invalidf("Secondary indexes are not supported on PRIMARY KEY columns in COMPACT STORAGE tables")
			}
			if col == tbl.CompactValueColumn() {
				return nil, query.Invalidf("Secondary indexes are not supported on compact value column of COMPACT STORAGE tables")
			}
		}
		target, err := indexTarget(tbl, col, st.Target.Kind)
		if err != nil {
			return nil, err
		}
		if indexName == "" {
			indexName = availableIndexName(q.Env.Engine.Tables(ks), nonWordChars.ReplaceAllString(fmt.Sprintf("%s_%s_idx", name, col.Name), ""))
		}
		return addIndex(ctx, q, st, tbl, schema.Index{Name: indexName, Column: col.Name, Target: target, Class: st.Using, Options: options})
	}}, nil
}

// availableIndexName returns base, or base_N with the first N from 1 that
// no index of tables has (KeyspaceMetadata.findAvailableIndexName).
func availableIndexName(tables []*schema.Table, base string) string {
	name := base
	for i := 1; keyspaceIndex(tables, name) != nil; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	return name
}

// addIndex ends CREATE INDEX for index ix of tbl: the duplicate check
// (IndexMetadata.equalsWithoutName: kind, target, class and options), the
// class's validation (IndexMetadata.validate: the class must be in the
// engine's registry, and accept the options), the build of a built-in
// index's table, and the publication.
func addIndex(ctx context.Context, q *plan.Execution, st *parser.CreateIndex, tbl *schema.Table, ix schema.Index) (*query.Result, error) {
	ks, name := tbl.Keyspace, tbl.Name
	for _, other := range tbl.Indexes {
		if other.Column == ix.Column && other.Target == ix.Target && other.Class == ix.Class && maps.Equal(other.Options, ix.Options) {
			if st.IfNotExists {
				return query.VoidResult(), nil
			}
			return nil, query.Invalidf("Index %s is a duplicate of existing index %s", ix.Name, other.Name)
		}
	}
	if !index.IsBuiltin(&ix) {
		if err := validateIndexClass(q.Env.Engine, tbl, &ix); err != nil {
			return nil, err
		}
	}
	if index.IsBuiltin(&ix) {
		// The index's table is made and built before the index is
		// published: a query reads it, and system."IndexInfo" lists
		// it, only once it is built.
		if err := index.Create(ctx, q.Env.Engine, tbl, &ix); err != nil {
			return nil, err
		}
	}
	// The base table again: a write may not have changed it, but an
	// ALTER may have.
	if cur, ok := q.Env.Engine.Table(ks, name); ok {
		tbl = cur
	}
	nt := tbl.Clone()
	nt.Indexes = append(slices.Clone(tbl.Indexes), ix)
	if err := q.Env.Engine.AlterTable(nt); err != nil {
		if index.IsBuiltin(&ix) {
			_ = index.Drop(q.Env.Engine, tbl, ix.Name)
		}
		return nil, err
	}
	return schemaChange(wire.Updated, wire.TargetTable, ks, name), nil
}

// validateIndexClass is IndexMetadata.validate for a CUSTOM index: its
// class must be one of the engine's registry (FBUtilities.classForName's
// "Unable to find custom indexer class"), and a class that validates
// options must understand every one given (validateCustomIndexOptions).
func validateIndexClass(eng *engine.Engine, tbl *schema.Table, ix *schema.Index) error {
	class, ok := eng.IndexClass(ix.Class)
	if !ok {
		return query.Configf("Unable to find custom indexer class '%s'", ix.Class)
	}
	v, ok := class.(engine.IndexOptionsValidator)
	if !ok || len(ix.Options) == 0 {
		return nil
	}
	unknown, err := v.ValidateOptions(tbl, maps.Clone(ix.Options))
	if err != nil {
		var qe *query.Error
		if errors.As(err, &qe) {
			return qe
		}
		return query.Configf("%s", err.Error())
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		simple := ix.Class[strings.LastIndexAny(ix.Class, ".$")+1:]
		return query.Configf("Properties specified [%s] are not understood by %s", strings.Join(unknown, ", "), simple)
	}
	return nil
}

// indexTarget checks that column col of tbl can carry an index of kind k
// and returns the target (validateIndexTarget; a plain target on a
// non-frozen collection indexes its values).
func indexTarget(tbl *schema.Table, col *schema.Column, k parser.IndexTargetKind) (schema.IndexTarget, error) {
	t := col.Type
	target := map[parser.IndexTargetKind]schema.IndexTarget{parser.IndexSimple: schema.IndexSimple, parser.IndexValues: schema.IndexValues,
		parser.IndexKeys: schema.IndexKeys, parser.IndexEntries: schema.IndexEntries, parser.IndexFull: schema.IndexFull}[k]
	multiCell := t.IsCollection() && t.IsMultiCell()
	frozenCollection := t.IsCollection() && !t.IsMultiCell()
	if target == schema.IndexSimple && multiCell {
		target = schema.IndexValues
	}
	switch {
	case containsDuration(t):
		switch {
		case t.IsCollection():
			return 0, query.Invalidf("Secondary indexes are not supported on collections containing durations")
		case t.IsUDT():
			// A UDT is a tuple in minicass's types, but UserType.isTuple is
			// false in Cassandra, so CreateIndexStatement names it as a UDT.
			return 0, query.Invalidf("Secondary indexes are not supported on UDTs containing durations")
		case t.Kind == types.Tuple:
			return 0, query.Invalidf("Secondary indexes are not supported on tuples containing durations")
		}
		return 0, query.Invalidf("Secondary indexes are not supported on duration columns")
	case col.Kind == schema.PartitionKey && len(tbl.PartitionKey()) == 1:
		return 0, query.Invalidf("Cannot create secondary index on the only partition key column %s", col.Name)
	case frozenCollection && target != schema.IndexFull:
		return 0, query.Invalidf("Cannot create %s() index on frozen column %s. Frozen collections are immutable and must be fully indexed by using the 'full(%s)' modifier", target, col.Name, col.Name)
	case !frozenCollection && target == schema.IndexFull:
		return 0, query.Invalidf("full() indexes can only be created on frozen collections")
	case !t.IsCollection() && target != schema.IndexSimple:
		return 0, query.Invalidf("Cannot create %s() index on %s. Non-collection columns only support simple indexes", target, col.Name)
	case !(t.Kind == types.Map && multiCell) && (target == schema.IndexKeys || target == schema.IndexEntries):
		return 0, query.Invalidf("Cannot create index on %s of column %s with non-map type", target, col.Name)
	case t.UDT != nil && !t.Frozen:
		return 0, query.Invalidf("Cannot create index on non-frozen UDT column %s", col.Name)
	}
	return target, nil
}

// keyspaceIndex returns the index called name among tables, or nil.
func keyspaceIndex(tables []*schema.Table, name string) *schema.Index {
	_, ix := findIndex(tables, name)
	return ix
}

// findIndex returns the index called name among tables and its table, or
// nils.
func findIndex(tables []*schema.Table, name string) (*schema.Table, *schema.Index) {
	for _, t := range tables {
		for i := range t.Indexes {
			if t.Indexes[i].Name == name {
				return t, &t.Indexes[i]
			}
		}
	}
	return nil, nil
}

func compileDropIndex(s *plan.Compiler, st *parser.DropIndex) (plan.Plan, error) {
	ks, name, err := s.ModifiableTable(st.Name)
	if err != nil {
		return nil, err
	}
	return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		for _, tbl := range q.Env.Engine.Tables(ks) {
			i := slices.IndexFunc(tbl.Indexes, func(ix schema.Index) bool { return ix.Name == name })
			if i < 0 {
				continue
			}
			ix := tbl.Indexes[i]
			nt := tbl.Clone()
			nt.Indexes = slices.Delete(slices.Clone(tbl.Indexes), i, i+1)
			if err := q.Env.Engine.AlterTable(nt); err != nil {
				return nil, err
			}
			// Unpublished first, so no query reads it; then its data goes.
			if index.IsBuiltin(&ix) {
				if err := index.Drop(q.Env.Engine, nt, ix.Name); err != nil {
					return nil, err
				}
			}
			return schemaChange(wire.Updated, wire.TargetTable, ks, tbl.Name), nil
		}
		if st.IfExists {
			return query.VoidResult(), nil
		}
		return nil, query.Invalidf("Index '%s.%s' doesn't exist'", ks, name)
	}}, nil
}
