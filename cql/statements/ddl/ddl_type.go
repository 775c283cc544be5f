package ddl

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/expr"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/describe"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// User-defined types (CREATE, ALTER and DROP TYPE) follow Cassandra 4's
// CreateTypeStatement, AlterTypeStatement and DropTypeStatement. A type
// belongs to a keyspace (schema.Keyspace.Types); its values are tuples of
// its fields, one cell when frozen and a cell per field otherwise. ALTER
// TYPE rewrites the columns and the types that use it, in one schema
// change, so reads see the new fields (null in older values).

func compileCreateType(s *plan.Compiler, st *parser.CreateType) (plan.Plan, error) {
	ks, name, err := s.ModifiableTable(st.Name)
	if err != nil {
		return nil, err
	}
	return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		def, ok := q.Env.Engine.Keyspace(ks)
		if !ok {
			return nil, query.Invalidf("Keyspace '%s' doesn't exist", ks)
		}
		if _, ok := def.Type(name); ok {
			if st.IfNotExists {
				return query.VoidResult(), nil
			}
			return nil, query.Invalidf("A user type with name '%s' already exists", name)
		}
		ut := &types.UserType{Keyspace: ks, Name: name}
		var fields []types.Type
		for _, f := range st.Fields {
			fn := string(f.Name)
			if slices.Contains(ut.Fields, fn) {
				return nil, query.Invalidf("Duplicate field name '%s' in type '%s'", fn, name)
			}
			ft, err := fieldType(f, def)
			if err != nil {
				return nil, err
			}
			ut.Fields = append(ut.Fields, fn)
			fields = append(fields, ft)
		}
		next := *def
		next.Types = append(slices.Clone(def.Types), types.UserTypeOf(ut, fields, false))
		if err := q.Env.Engine.AlterKeyspace(&next); err != nil {
			return nil, err
		}
		return schemaChange(wire.Created, wire.TargetType, ks, name), nil
	}}, nil
}

// fieldType converts the type of a user type field (no counters, no
// non-frozen user types; fields are frozen).
func fieldType(f *parser.ColumnDef, def *schema.Keyspace) (types.Type, error) {
	ft, err := expr.ConvertType(f.Type, def)
	if err != nil {
		return types.Type{}, err
	}
	if ft.Kind == types.Counter {
		return types.Type{}, query.Invalidf("A user type cannot contain counters")
	}
	if ft.UDT != nil && !ft.Frozen {
		return types.Type{}, query.Invalidf("A user type cannot contain non-frozen UDTs")
	}
	return ft, nil
}

func compileAlterType(s *plan.Compiler, st *parser.AlterUserType) (plan.Plan, error) {
	ks, name, err := s.ModifiableTable(st.Name)
	if err != nil {
		return nil, err
	}
	if st.Kind == parser.AlterType {
		return nil, query.Invalidf("Alterations of user type field types are not supported")
	}
	return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		def, ok := q.Env.Engine.Keyspace(ks)
		if !ok {
			return nil, query.Invalidf("Keyspace '%s' doesn't exist", ks)
		}
		old, ok := def.Type(name)
		if !ok {
			if st.IfExists {
				return query.VoidResult(), nil
			}
			return nil, query.Invalidf("Type '%s.%s' doesn't exist", ks, name)
		}
		ut := &types.UserType{Keyspace: ks, Name: name, Fields: slices.Clone(old.UDT.Fields), MultiCell: slices.Clone(old.UDT.MultiCell)}
		fields := slices.Clone(old.Params)
		switch st.Kind {
		case parser.AlterAdd:
			fn := string(st.Add.Name)
			if slices.Contains(ut.Fields, fn) {
				return nil, query.Invalidf("Cannot add new field %s to type %s: a field with name %s already exists", fn, name, fn)
			}
			ft, err := fieldType(st.Add, def)
			if err != nil {
				return nil, err
			}
			if usesType(ft, name) { // AlterTypeStatement.AddField: referencesUserType, at any depth
				return nil, query.Invalidf("Cannot add new field %s of type %s to user type %s as it would create a circular reference", fn, ft, name)
			}
			// AlterTypeStatement.AddField: a type in a partition key keeps
			// its fields, as the key's serialized form would change.
			var inKey []string
			for _, tbl := range q.Env.Engine.Tables(ks) {
				if slices.ContainsFunc(tbl.PartitionKey(), func(c *schema.Column) bool { return usesType(c.Type, name) }) {
					inKey = append(inKey, tbl.QualifiedName())
				}
			}
			if len(inKey) > 0 {
				sort.Strings(inKey)
				return nil, query.Invalidf("Cannot add new field %s of type %s to user type %s.%s as the type is being used in partition key by the following tables: %s", fn, ft, ks, name, strings.Join(inKey, ", "))
			}
			ut.Fields = append(ut.Fields, fn)
			fields = append(fields, ft)
		case parser.AlterRename:
			// AlterTypeStatement.RenameFields: an aggregate whose INITCOND
			// is a value of the type would no longer parse back.
			var deps []string
			for _, a := range def.Aggregates {
				if a.InitCond != nil && usesType(a.StateType, name) {
					deps = append(deps, a.Keyspace+"."+a.Name)
				}
			}
			if len(deps) > 0 {
				return nil, query.Invalidf("Cannot alter user type %s.%s as it is still used in INITCOND by aggregates %s", ks, name, strings.Join(deps, ", "))
			}
			for _, r := range st.Renames {
				from, to := string(r.From), string(r.To)
				i := slices.Index(ut.Fields, from)
				if i < 0 {
					return nil, query.Invalidf("Unkown field %s in user type %s", from, name)
				}
				if slices.Contains(ut.Fields, to) {
					return nil, query.Invalidf("Duplicate field name %s in type %s", to, name)
				}
				ut.Fields[i] = to
			}
		}
		nt := types.UserTypeOf(ut, fields, false)
		next := *def
		next.Types = make([]types.Type, len(def.Types))
		for i, t := range def.Types {
			if t.UDT.Name == name {
				next.Types[i] = nt
				continue
			}
			next.Types[i] = replaceType(t, name, nt)
		}
		// KeyspaceMetadata.withUpdatedUserType: the functions and
		// aggregates using the type take its new definition (a function's
		// body compiles again on its next call).
		next.Functions = updateFunctionTypes(def.Functions, name, nt)
		next.Aggregates = updateAggregateTypes(def.Aggregates, name, nt)
		var tables []*schema.Table
		for _, tbl := range q.Env.Engine.Tables(ks) {
			if !slices.ContainsFunc(tbl.Columns, func(c *schema.Column) bool { return usesType(c.Type, name) }) {
				continue
			}
			cols := make([]*schema.Column, len(tbl.Columns))
			for i, c := range tbl.Columns {
				cp := *c
				cp.Type = replaceType(c.Type, name, nt)
				cols[i] = &cp
			}
			t := schema.NewTable(ks, tbl.Name, tbl.ID, cols, tbl.Options)
			t.Dropped, t.Indexes, t.Compact, t.Triggers = tbl.Dropped, tbl.Indexes, tbl.Compact, tbl.Triggers
			tables = append(tables, t)
		}
		if err := q.Env.Engine.AlterKeyspace(&next, tables...); err != nil {
			return nil, err
		}
		return schemaChange(wire.Updated, wire.TargetType, ks, name), nil
	}}, nil
}

func compileDropType(s *plan.Compiler, st *parser.DropType) (plan.Plan, error) {
	ks, name, err := s.ModifiableTable(st.Name)
	if err != nil {
		return nil, err
	}
	return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		def, ok := q.Env.Engine.Keyspace(ks)
		var i int
		if ok {
			i = slices.IndexFunc(def.Types, func(t types.Type) bool { return t.UDT.Name == name })
		}
		if !ok || i < 0 {
			if st.IfExists {
				return query.VoidResult(), nil
			}
			return nil, query.Invalidf("Type '%s.%s' doesn't exist", ks, name)
		}
		var fns []string
		for _, f := range def.Functions {
			if slices.ContainsFunc(append(slices.Clone(f.ArgTypes), f.Return), func(t types.Type) bool { return usesType(t, name) }) {
				fns = append(fns, f.Keyspace+"."+f.Name)
			}
		}
		for _, a := range def.Aggregates {
			if slices.ContainsFunc(append(a.StateArgs(), a.Return), func(t types.Type) bool { return usesType(t, name) }) {
				fns = append(fns, a.Keyspace+"."+a.Name)
			}
		}
		if len(fns) > 0 {
			return nil, query.Invalidf("Cannot drop user type '%s.%s' as it is still used by functions %s", ks, name, strings.Join(fns, ", "))
		}
		for _, t := range def.Types {
			if t.UDT.Name != name && usesType(t, name) {
				return nil, query.Invalidf("Cannot drop user type %s.%s as it is still used by user type %s", ks, name, t.UDT.Name)
			}
		}
		for _, tbl := range q.Env.Engine.Tables(ks) {
			for _, c := range tbl.Columns {
				if usesType(c.Type, name) {
					return nil, query.Invalidf("Cannot drop user type %s.%s as it is still used by table %s.%s", ks, name, ks, tbl.Name)
				}
			}
		}
		next := *def
		next.Types = slices.Delete(slices.Clone(def.Types), i, i+1)
		if err := q.Env.Engine.AlterKeyspace(&next); err != nil {
			return nil, err
		}
		return schemaChange(wire.Dropped, wire.TargetType, ks, name), nil
	}}, nil
}

// usesType reports whether t is or contains the user type called name.
func usesType(t types.Type, name string) bool {
	if t.UDT != nil && t.UDT.Name == name {
		return true
	}
	return slices.ContainsFunc(t.Params, func(p types.Type) bool { return usesType(p, name) })
}

// replaceType returns t with the user type called name replaced by nt
// (keeping each use's frozenness).
func replaceType(t types.Type, name string, nt types.Type) types.Type {
	if t.UDT != nil && t.UDT.Name == name {
		nt.Frozen = t.Frozen
		return nt
	}
	if !usesType(t, name) {
		return t
	}
	params := make([]types.Type, len(t.Params))
	for i, p := range t.Params {
		params[i] = replaceType(p, name, nt)
	}
	t.Params = params
	return t
}

// typeCQL returns the CREATE TYPE statement of a user type, as DESCRIBE
// prints it.
func typeCQL(t types.Type) string {
	var b strings.Builder
	b.WriteString("CREATE TYPE " + describe.QuoteIdent(t.UDT.Keyspace) + "." + describe.QuoteIdent(t.UDT.Name) + " (\n")
	for i, f := range t.UDT.Fields {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("    " + describe.QuoteIdent(f) + " " + t.DeclaredField(i).String())
	}
	b.WriteString("\n);")
	return b.String()
}

// updateFunctionTypes returns fns with user type name replaced by nt in
// their argument and return types; a function that used it is a new
// definition whose body compiles again when next called.
func updateFunctionTypes(fns []*schema.Function, name string, nt types.Type) []*schema.Function {
	out := slices.Clone(fns)
	for i, f := range fns {
		uses := func(t types.Type) bool { return usesType(t, name) }
		if !slices.ContainsFunc(f.ArgTypes, uses) && !uses(f.Return) {
			continue
		}
		cp := *f
		cp.ArgTypes = make([]types.Type, len(f.ArgTypes))
		for j, t := range f.ArgTypes {
			cp.ArgTypes[j] = replaceType(t, name, nt)
		}
		cp.Return = replaceType(f.Return, name, nt)
		out[i] = cp.Prepared()
	}
	return out
}

// updateAggregateTypes returns aggs with user type name replaced by nt.
func updateAggregateTypes(aggs []*schema.Aggregate, name string, nt types.Type) []*schema.Aggregate {
	out := slices.Clone(aggs)
	for i, a := range aggs {
		uses := func(t types.Type) bool { return usesType(t, name) }
		if !slices.ContainsFunc(a.StateArgs(), uses) && !uses(a.Return) {
			continue
		}
		cp := *a
		cp.ArgTypes = make([]types.Type, len(a.ArgTypes))
		for j, t := range a.ArgTypes {
			cp.ArgTypes[j] = replaceType(t, name, nt)
		}
		cp.StateType = replaceType(a.StateType, name, nt)
		cp.Return = replaceType(a.Return, name, nt)
		out[i] = &cp
	}
	return out
}
