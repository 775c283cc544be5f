package ddl

import (
	"context"
	"slices"
	"strings"

	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/describe"

	"github.com/minicass/minicass/cql/virtual"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// Server-side DESCRIBE (Cassandra 4.0+, cql3/statements/DescribeStatement.java).
//
// Listings (DESCRIBE KEYSPACES, TABLES, TYPES, FUNCTIONS, AGGREGATES) return
// the columns keyspace_name, type and name; element descriptions (KEYSPACE,
// TABLE, SCHEMA, a name) add create_statement, which cqlsh prints. DESCRIBE
// CLUSTER returns cluster, partitioner, snitch and, when the session has a
// keyspace, range_ownership. The result's table is system.describe, as in
// Cassandra.

// snitch is the snitch class DESCRIBE CLUSTER reports.
const snitch = "org.apache.cassandra.locator.DynamicEndpointSnitch"

func describeSpec(name string, t types.Type) query.ColumnSpec {
	return query.ColumnSpec{Keyspace: "system", Table: "describe", Name: name, Type: t}
}

var (
	describeListColumns = []query.ColumnSpec{
		describeSpec("keyspace_name", types.TextType), describeSpec("type", types.TextType), describeSpec("name", types.TextType),
	}
	describeElementColumns = append(append([]query.ColumnSpec{}, describeListColumns...), describeSpec("create_statement", types.TextType))
	rangeOwnershipType     = types.MapOf(types.TextType, types.ListOf(types.TextType, true), false)
)

// describePlan is a compiled DESCRIBE; it reads the schema when it runs.
type describePlan struct {
	st   *parser.Describe
	cols []query.ColumnSpec
}

func (p *describePlan) Binds() []query.ColumnSpec   { return nil }
func (p *describePlan) Columns() []query.ColumnSpec { return p.cols }
func (p *describePlan) PKIndexes() []uint16         { return nil }

// CompileDescribe validates a DESCRIBE statement; the schema is read when
// it executes.
func CompileDescribe(s *plan.Compiler, st *parser.Describe) (plan.Plan, error) {
	switch st.Kind {
	case parser.DescribeKeyspaces, parser.DescribeTables, parser.DescribeTypes, parser.DescribeFunctions, parser.DescribeAggregates:
		return &describePlan{st: st, cols: describeListColumns}, nil
	case parser.DescribeCluster:
		cols := []query.ColumnSpec{describeSpec("cluster", types.TextType), describeSpec("partitioner", types.TextType), describeSpec("snitch", types.TextType)}
		if s.Keyspace() != "" {
			cols = append(cols, describeSpec("range_ownership", rangeOwnershipType))
		}
		return &describePlan{st: st, cols: cols}, nil
	}
	return &describePlan{st: st, cols: describeElementColumns}, nil
}

func (p *describePlan) Exec(ctx context.Context, q *plan.Execution) (*query.Result, error) {
	snap := q.Env.System.CurrentSchema()
	st := p.st
	res := &query.Result{Kind: wire.ResultRows, Columns: p.cols, Rows: [][][]byte{}}
	list := func(ks, typ, name string) {
		res.Rows = append(res.Rows, [][]byte{virtual.TextV(ks), virtual.TextV(typ), virtual.TextV(name)})
	}
	elem := func(ks, typ, name, create string) {
		res.Rows = append(res.Rows, [][]byte{virtual.TextV(ks), virtual.TextV(typ), virtual.TextV(name), virtual.TextV(create)})
	}
	// A table is followed by its indexes and its materialized views, as
	// Cassandra describes them.
	describeTable := func(t *schema.Table) {
		if t.IsView() {
			elem(t.Keyspace, "materialized_view", t.Name, describe.ViewCQLWith(t, st.WithInternals))
			return
		}
		// WITH INTERNALS: DescribeStatement's toCqlString(withInternals,
		// false), the table id and the dropped columns.
		internals := describe.TableCQLOptions{Internals: st.WithInternals, DroppedColumns: st.WithInternals}
		elem(t.Keyspace, "table", t.Name, describe.TableCQLWith(t, internals))
		for i := range t.Indexes {
			elem(t.Keyspace, "index", t.Indexes[i].Name, describe.Index(t, &t.Indexes[i]))
		}
		for _, v := range schema.ViewsOf(t, snap.Tables[t.Keyspace]) {
			elem(v.Keyspace, "materialized_view", v.Name, describe.ViewCQLWith(v, st.WithInternals))
		}
	}
	describeKeyspace := func(ks *schema.Keyspace, only bool) {
		elem(ks.Name, "keyspace", ks.Name, describe.KeyspaceCQL(ks))
		if only {
			return
		}
		for _, t := range ks.Types {
			elem(ks.Name, "type", t.UDT.Name, typeCQL(t))
		}
		for _, f := range sortedFunctions(ks.Functions) {
			elem(ks.Name, "function", describe.FunctionElementName(f.Name, f.Signature()), describe.FunctionCQL(f))
		}
		for _, a := range sortedAggregates(ks.Aggregates) {
			elem(ks.Name, "aggregate", describe.FunctionElementName(a.Name, a.Signature()), describe.AggregateCQL(a))
		}
		for _, t := range snap.Tables[ks.Name] {
			if !t.IsView() {
				describeTable(t)
			}
		}
	}
	findKeyspace := func(name string) *schema.Keyspace {
		for _, ks := range snap.Keyspaces {
			if ks.Name == name {
				return ks
			}
		}
		return nil
	}
	findTable := func(ks, name string) *schema.Table {
		for _, t := range snap.Tables[ks] {
			if t.Name == name {
				return t
			}
		}
		return nil
	}
	current := q.Session.Keyspace()
	switch st.Kind {
	case parser.DescribeKeyspaces:
		for _, ks := range snap.Keyspaces {
			list(ks.Name, "keyspace", ks.Name)
		}
	case parser.DescribeTables:
		for _, ks := range snap.Keyspaces {
			for _, t := range snap.Tables[ks.Name] {
				if !t.IsView() {
					list(ks.Name, "table", t.Name)
				}
			}
		}
	case parser.DescribeTypes:
		for _, ks := range snap.Keyspaces {
			for _, t := range ks.Types {
				list(ks.Name, "type", t.UDT.Name)
			}
		}
	case parser.DescribeFunctions:
		for _, ks := range snap.Keyspaces {
			for _, f := range sortedFunctions(ks.Functions) {
				list(ks.Name, "function", describe.FunctionElementName(f.Name, f.Signature()))
			}
		}
	case parser.DescribeAggregates:
		for _, ks := range snap.Keyspaces {
			for _, a := range sortedAggregates(ks.Aggregates) {
				list(ks.Name, "aggregate", describe.FunctionElementName(a.Name, a.Signature()))
			}
		}
	case parser.DescribeFunction, parser.DescribeAggregate:
		ksName := string(st.Name.Keyspace)
		if ksName == "" {
			ksName = current
		}
		if ksName == "" {
			return nil, query.Invalidf("No keyspace specified and no current keyspace")
		}
		ks := findKeyspace(ksName)
		if ks == nil {
			return nil, query.Invalidf("'%s' not found in keyspaces", ksName)
		}
		name := string(st.Name.Name)
		if st.Kind == parser.DescribeFunction {
			fns := sortedFunctions(ks.FunctionsNamed(name))
			if len(fns) == 0 {
				return nil, query.Invalidf("User defined function '%s' not found in '%s'", name, ksName)
			}
			for _, f := range fns {
				elem(ks.Name, "function", describe.FunctionElementName(f.Name, f.Signature()), describe.FunctionCQL(f))
			}
			break
		}
		aggs := sortedAggregates(ks.AggregatesNamed(name))
		if len(aggs) == 0 {
			return nil, query.Invalidf("User defined aggregate '%s' not found in '%s'", name, ksName)
		}
		for _, a := range aggs {
			elem(ks.Name, "aggregate", describe.FunctionElementName(a.Name, a.Signature()), describe.AggregateCQL(a))
		}
	case parser.DescribeSchema:
		for _, ks := range snap.Keyspaces {
			if st.Full || !virtual.IsSystemKeyspace(ks.Name) {
				describeKeyspace(ks, false)
			}
		}
	case parser.DescribeKeyspace:
		name := string(st.Keyspace)
		if name == "" {
			name = current
		}
		if name == "" {
			return nil, query.Invalidf("No keyspace specified and no current keyspace")
		}
		ks := findKeyspace(name)
		if ks == nil {
			return nil, query.Invalidf("'%s' not found in keyspaces", name)
		}
		describeKeyspace(ks, st.Only)
	case parser.DescribeTable:
		ksName := string(st.Name.Keyspace)
		if ksName == "" {
			ksName = current
		}
		if ksName == "" {
			return nil, query.Invalidf("No keyspace specified and no current keyspace")
		}
		if findKeyspace(ksName) == nil {
			return nil, query.Invalidf("'%s' not found in keyspaces", ksName)
		}
		t := findTable(ksName, string(st.Name.Name))
		if t == nil {
			return nil, query.Invalidf("'%s' not found in keyspace '%s'", st.Name.Name, ksName)
		}
		describeTable(t)
	case parser.DescribeName:
		if st.Name.Keyspace == "" {
			if ks := findKeyspace(string(st.Name.Name)); ks != nil {
				describeKeyspace(ks, false)
				break
			}
		}
		ksName := string(st.Name.Keyspace)
		if ksName == "" {
			ksName = current
		}
		if ksName == "" {
			return nil, query.Invalidf("'%s' not found in keyspaces", st.Name.Name)
		}
		if findKeyspace(ksName) == nil {
			return nil, query.Invalidf("'%s' not found in keyspaces", ksName)
		}
		t := findTable(ksName, string(st.Name.Name))
		if t == nil {
			return nil, query.Invalidf("'%s' not found in keyspace '%s'", st.Name.Name, ksName)
		}
		describeTable(t)
	case parser.DescribeIndex, parser.DescribeView:
		name := st.Name.Name
		ksName := string(st.Name.Keyspace)
		if ksName == "" {
			ksName = current
		}
		if st.Kind == parser.DescribeIndex {
			if t, ix := findIndex(snap.Tables[ksName], string(name)); ix != nil {
				elem(ksName, "index", ix.Name, describe.Index(t, ix))
				break
			}
		} else if v := findTable(ksName, string(name)); v != nil && v.IsView() {
			describeTable(v)
			break
		}
		what := "index"
		if st.Kind == parser.DescribeView {
			what = "materialized view"
		}
		return nil, query.Invalidf("%s '%s' not found in '%s' keyspace", what, name, ksName)
	case parser.DescribeType:
		ksName := string(st.Name.Keyspace)
		if ksName == "" {
			ksName = current
		}
		if ks := findKeyspace(ksName); ks != nil {
			if t, ok := ks.Type(string(st.Name.Name)); ok {
				elem(ksName, "type", t.UDT.Name, typeCQL(t))
				break
			}
		}
		return nil, query.Invalidf("User defined type '%s' not found in '%s'", st.Name.Name, ksName)
	case parser.DescribeCluster:
		row := [][]byte{virtual.TextV(q.Env.System.ClusterName()), virtual.TextV(q.Env.System.Partitioner().ClassName()), virtual.TextV(snitch)}
		if len(p.cols) == 4 {
			row = append(row, rangeOwnership(q.Env.System))
		}
		res.Rows = append(res.Rows, row)
	default:
		return nil, query.Invalidf("unsupported DESCRIBE statement %s", st)
	}
	return res, nil
}

// rangeOwnership returns DESCRIBE CLUSTER's range_ownership: each token
// range's end token mapped to its replicas (this node's address), as a
// map<text, frozen<list<text>>>.
func rangeOwnership(node *virtual.Node) []byte {
	ip, _ := node.Address()
	tokens := virtual.NodeTokens(node.HostID(), node.Partitioner())
	var keys, vals [][]byte
	for _, t := range tokens {
		keys = append(keys, virtual.TextV(t))
		vals = append(vals, types.EncodeList([][]byte{virtual.TextV(strings.TrimPrefix(ip.String(), "/") + ":7000")}))
	}
	b, err := types.EncodeMap(rangeOwnershipType, keys, vals)
	if err != nil {
		return nil
	}
	return b
}

// sortedFunctions returns fns in DESCRIBE's order (SchemaElement's
// NAME_COMPARATOR): by element name, f(int, text), ignoring case.
func sortedFunctions(fns []*schema.Function) []*schema.Function {
	out := slices.Clone(fns)
	slices.SortStableFunc(out, func(a, b *schema.Function) int {
		return compareIgnoreCase(a.Name+"("+a.Signature()+")", b.Name+"("+b.Signature()+")")
	})
	return out
}

// sortedAggregates returns aggs in DESCRIBE's order.
func sortedAggregates(aggs []*schema.Aggregate) []*schema.Aggregate {
	out := slices.Clone(aggs)
	slices.SortStableFunc(out, func(a, b *schema.Aggregate) int {
		return compareIgnoreCase(a.Name+"("+a.Signature()+")", b.Name+"("+b.Signature()+")")
	})
	return out
}

// compareIgnoreCase is Java's String.compareToIgnoreCase for ASCII text.
func compareIgnoreCase(a, b string) int {
	return strings.Compare(strings.ToLower(a), strings.ToLower(b))
}
