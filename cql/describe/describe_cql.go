package describe

import (
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/minicass/minicass/cql/virtual"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// CQL generation for DESCRIBE, as Cassandra 4.1 prints it
// (schema/KeyspaceMetadata.toCqlString, schema/TableMetadata.toCqlString,
// schema/TableParams.appendCqlTo, cql3/CqlBuilder):
//
//	CREATE TABLE ks.t (
//	    k int,
//	    c text,
//	    s int static,
//	    v text,
//	    PRIMARY KEY (k, c)
//	) WITH CLUSTERING ORDER BY (c ASC)
//	    AND additional_write_policy = '99p'
//	    ...
//	    AND speculative_retry = '99p';
//
// Identifiers are quoted only when needed (ColumnIdentifier.maybeQuote),
// maps print with their keys sorted and values quoted, doubles print as
// Java's Double.toString does, and the options are always all printed, in
// the alphabetical order of TableParams (memtable after compression, as in
// 4.1).

// QuoteIdent returns name as CQL writes an identifier: bare when it lexes
// back as itself, double-quoted otherwise.
func QuoteIdent(name string) string { return parser.Ident(name).String() }

// QuoteString returns s as a CQL string literal.
func QuoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// cqlMap formats a map as CqlBuilder.append(Map) does: keys sorted, keys
// and (when quoteValues) values single-quoted.
func cqlMap(m map[string]string, quoteValues bool) string {
	entries := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		if quoteValues {
			v = QuoteString(v)
		}
		entries = append(entries, QuoteString(k)+": "+v)
	}
	return "{" + strings.Join(entries, ", ") + "}"
}

// KeyspaceCQL returns the CREATE KEYSPACE statement of ks (with Cassandra's
// two spaces before AND).
func KeyspaceCQL(ks *schema.Keyspace) string {
	if virtual.VirtualKeyspaces[ks.Name] {
		return "/*\nWarning: Keyspace " + QuoteIdent(ks.Name) + " is a virtual keyspace and cannot be recreated with CQL.\n" +
			"Structure, for reference:\nVIRTUAL KEYSPACE " + QuoteIdent(ks.Name) + ";\n*/"
	}
	return "CREATE KEYSPACE " + QuoteIdent(ks.Name) + " WITH replication = " + cqlMap(ks.Replication, true) +
		"  AND durable_writes = " + strconv.FormatBool(ks.DurableWrites) + ";"
}

// TableCQL returns the CREATE TABLE statement of t. Tables of virtual
// keyspaces print as a commented VIRTUAL TABLE, as Cassandra does.
func TableCQL(t *schema.Table) string { return TableCQLWith(t, TableCQLOptions{}) }

// TableCQLOptions are the switches of Cassandra 4.1's
// TableMetadata.toCqlString(includeDroppedColumns, withInternals,
// ifNotExists): DESCRIBE TABLE ... WITH INTERNALS sets the first two,
// SchemaCQLHelper.getTableMetadataAsCQL (snapshots' schema.cql) all three.
type TableCQLOptions struct {
	// DroppedColumns lists the dropped columns among the columns (a
	// dropped column added again only among them) and follows the
	// statement with an ALTER TABLE ... DROP ... USING TIMESTAMP per
	// dropped column, and an ALTER TABLE ... ADD for one added again.
	DroppedColumns bool
	// Internals prints the table's id first among the options
	// (ID = <uuid>).
	Internals bool
	// IfNotExists writes CREATE TABLE IF NOT EXISTS.
	IfNotExists bool
}

// TableCQLWith returns the CREATE TABLE statement of t with the switches
// of o. The layout is TableMetadata.appendCqlTo's: the columns, the primary
// key unless it is one inlined column, then WITH and the options, one per
// line after four spaces and AND: COMPACT STORAGE for a compact table, ID
// with internals, CLUSTERING ORDER BY, and the table parameters.
func TableCQLWith(t *schema.Table, o TableCQLOptions) string {
	if virtual.VirtualKeyspaces[t.Keyspace] {
		return virtualTableCQL(t)
	}
	var b strings.Builder
	name := QuoteIdent(t.Keyspace) + "." + QuoteIdent(t.Name)
	if t.IsCompact() {
		// CompactTableMetadata.appendCqlTo: the statement inside a comment,
		// with COMPACT STORAGE before the options.
		b.WriteString("/*\nWarning: Table " + name +
			" omitted because it has constructs not compatible with CQL (was created via legacy API).\n" +
			"Approximate structure, for reference:\n(this should not be used to reproduce this schema)\n\n")
	}
	b.WriteString("CREATE TABLE ")
	if o.IfNotExists {
		b.WriteString("IF NOT EXISTS ")
	}
	b.WriteString(name)
	b.WriteString(" (\n")
	dropped := droppedNames(t, o.DroppedColumns)
	writeColumns(&b, t, dropped)
	b.WriteString(") WITH ")
	if t.IsCompact() {
		b.WriteString("COMPACT STORAGE\n    AND ")
	}
	if o.Internals {
		b.WriteString("ID = " + types.UUIDValue(t.ID).String() + "\n    AND ")
	}
	if ck := t.ClusteringColumns(); len(ck) > 0 {
		b.WriteString("CLUSTERING ORDER BY (")
		for i, c := range ck {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(QuoteIdent(c.Name))
			if c.Desc {
				b.WriteString(" DESC")
			} else {
				b.WriteString(" ASC")
			}
		}
		b.WriteString(")\n    AND ")
	}
	writeTableParams(&b, virtual.ParamsOf(t.Options))
	b.WriteString(";")
	// TableMetadata.appendDropColumns, in the order of
	// system_schema.dropped_columns (by name).
	for _, n := range dropped {
		d := t.Dropped[n]
		b.WriteString("\nALTER TABLE " + name + " DROP " + QuoteIdent(n) + " USING TIMESTAMP " + strconv.FormatInt(d.DroppedAt, 10) + ";")
		if c := t.Column(n); c != nil {
			b.WriteString("\nALTER TABLE " + name + " ADD " + columnDefinition(t, c) + ";")
		}
	}
	if t.IsCompact() {
		b.WriteString("\n*/")
	}
	return b.String()
}

// droppedNames returns the names of t's dropped columns in name order, or
// nil when they are not listed.
func droppedNames(t *schema.Table, list bool) []string {
	if !list || len(t.Dropped) == 0 {
		return nil
	}
	names := make([]string, 0, len(t.Dropped))
	for n := range t.Dropped {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// columnDefinition is ColumnMetadata.appendCqlTo: the name, the type and,
// for a static column of a table that is not static compact, static.
func columnDefinition(t *schema.Table, c *schema.Column) string {
	s := QuoteIdent(c.Name) + " " + schema.TypeName(c.Type)
	if c.Kind == schema.Static && !t.IsStaticCompact() {
		s += " static"
	}
	return s
}

func virtualTableCQL(t *schema.Table) string {
	var b strings.Builder
	name := QuoteIdent(t.Keyspace) + "." + QuoteIdent(t.Name)
	b.WriteString("/*\nWarning: Table " + name + " is a virtual table and cannot be recreated with CQL.\nStructure, for reference:\n")
	b.WriteString("VIRTUAL TABLE " + name + " (\n")
	writeColumns(&b, t, nil)
	b.WriteString(") WITH ")
	if ck := t.ClusteringColumns(); len(ck) > 0 {
		b.WriteString("CLUSTERING ORDER BY (")
		for i, c := range ck {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(QuoteIdent(c.Name) + map[bool]string{true: " DESC", false: " ASC"}[c.Desc])
		}
		b.WriteString(")\n    AND ")
	}
	b.WriteString("comment = " + QuoteString(t.Options.Comment) + ";\n*/")
	return b.String()
}

// writeColumns writes the column definitions and the PRIMARY KEY clause:
// partition key, clustering, static then regular columns (each sorted by
// name), as TableMetadata.allColumnsInCreateOrder orders them. For a compact
// table (CompactTableMetadata.allColumnsInCreateOrder) the hidden columns
// are left out and a static compact table's static columns print as
// regular ones; the primary key is inlined only when the stored one has a
// single column.
func writeColumns(b *strings.Builder, t *schema.Table, dropped []string) {
	pk, ck := t.PartitionKey(), t.ClusteringColumns()
	inlinePK := len(pk) == 1 && len(ck) == 0
	ck = t.VisibleClusteringColumns()
	isDropped := func(name string) bool { return slices.Contains(dropped, name) }
	var statics, regulars []*schema.Column
	for _, c := range t.Columns {
		if t.IsHidden(c) || isDropped(c.Name) {
			// A column added again after a drop is listed as dropped,
			// and its ADD follows the statement.
			continue
		}
		switch {
		case c.Kind == schema.Static && !t.IsStaticCompact():
			statics = append(statics, c)
		case c.Kind == schema.Regular, c.Kind == schema.Static:
			regulars = append(regulars, c)
		}
	}
	sort.Slice(statics, func(i, j int) bool { return statics[i].Name < statics[j].Name })
	sort.Slice(regulars, func(i, j int) bool { return regulars[i].Name < regulars[j].Name })
	all := append(append(append(append([]*schema.Column{}, pk...), ck...), statics...), regulars...)
	for _, c := range all {
		b.WriteString("    " + columnDefinition(t, c))
		if inlinePK && c.Kind == schema.PartitionKey {
			b.WriteString(" PRIMARY KEY")
		}
		if !inlinePK || len(dropped) > 0 || c != all[len(all)-1] {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	// The dropped columns, with the type they had; as
	// TableMetadata.appendColumnDefinitions, each takes a comma unless the
	// primary key is inlined.
	for _, n := range dropped {
		d := t.Dropped[n]
		b.WriteString("    " + QuoteIdent(n) + " " + schema.TypeName(d.Type))
		if d.Static && !t.IsStaticCompact() {
			b.WriteString(" static")
		}
		if !inlinePK {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	if inlinePK {
		return
	}
	b.WriteString("    ")
	writePrimaryKey(b, pk, ck)
	b.WriteString("\n")
}

// writePrimaryKey writes PRIMARY KEY (...) of partition key pk and
// clustering columns ck, the partition key in its own parentheses when it
// has several columns.
func writePrimaryKey(b *strings.Builder, pk, ck []*schema.Column) {
	b.WriteString("PRIMARY KEY (")
	if len(pk) > 1 {
		b.WriteByte('(')
	}
	for i, c := range pk {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteIdent(c.Name))
	}
	if len(pk) > 1 {
		b.WriteByte(')')
	}
	for _, c := range ck {
		b.WriteString(", " + QuoteIdent(c.Name))
	}
	b.WriteString(")")
}

// writeTableParams writes the table options, one per line after the first,
// as TableParams.appendCqlTo does.
func writeTableParams(b *strings.Builder, p virtual.TableParams) {
	ext := make(map[string]string, len(p.Extensions))
	for k, v := range p.Extensions {
		ext[k] = "0x" + hex.EncodeToString(v)
	}
	lines := []string{
		"additional_write_policy = " + QuoteString(p.AdditionalWritePolicy),
		"bloom_filter_fp_chance = " + types.JavaFloat(p.BloomFilterFPChance, 64),
		"caching = " + cqlMap(p.Caching, true),
		"cdc = " + strconv.FormatBool(p.Cdc),
		"comment = " + QuoteString(p.Comment),
		"compaction = " + cqlMap(p.Compaction, true),
		"compression = " + cqlMap(p.Compression, true),
		"memtable = " + QuoteString(p.Memtable),
		"crc_check_chance = " + types.JavaFloat(p.CrcCheckChance, 64),
		"default_time_to_live = " + strconv.Itoa(int(p.DefaultTTL)),
		"extensions = " + cqlMap(ext, false),
		"gc_grace_seconds = " + strconv.Itoa(int(p.GcGraceSeconds)),
		"max_index_interval = " + strconv.Itoa(int(p.MaxIndexInterval)),
		"memtable_flush_period_in_ms = " + strconv.Itoa(int(p.MemtableFlushPeriod)),
		"min_index_interval = " + strconv.Itoa(int(p.MinIndexInterval)),
		"read_repair = " + QuoteString(p.ReadRepair),
		"speculative_retry = " + QuoteString(p.SpeculativeRetry),
	}
	b.WriteString(strings.Join(lines, "\n    AND "))
}

// Index returns the CREATE INDEX statement of ix on tbl, as
// DESCRIBE prints it.
func Index(tbl *schema.Table, ix *schema.Index) string {
	var b strings.Builder
	if ix.Class != "" {
		b.WriteString("CREATE CUSTOM INDEX ")
	} else {
		b.WriteString("CREATE INDEX ")
	}
	fmt.Fprintf(&b, "%s ON %s.%s (%s)", QuoteIdent(ix.Name), QuoteIdent(tbl.Keyspace), QuoteIdent(tbl.Name), virtual.IndexTargetCQL(ix))
	if ix.Class != "" {
		b.WriteString(" USING " + QuoteString(ix.Class))
		if len(ix.Options) > 0 {
			b.WriteString(" WITH OPTIONS = " + cqlMap(ix.Options, true))
		}
	}
	b.WriteByte(';')
	return b.String()
}

// ViewCQL returns the CREATE MATERIALIZED VIEW statement of view v, as
// ViewMetadata.appendCqlTo prints it: the SELECT (* for a view of every
// column), the base table, the WHERE clause, the primary key, then the
// options as a table's.
func ViewCQL(v *schema.Table) string { return ViewCQLWith(v, false) }

// ViewCQLWith is ViewCQL, with the view's ID first among the options when
// internals is set (DESCRIBE ... WITH INTERNALS).
func ViewCQLWith(v *schema.Table, internals bool) string {
	var b strings.Builder
	b.WriteString("CREATE MATERIALIZED VIEW " + QuoteIdent(v.Keyspace) + "." + QuoteIdent(v.Name) + " AS\n    SELECT ")
	if v.View.IncludeAllColumns {
		b.WriteByte('*')
	} else {
		for i, c := range v.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(QuoteIdent(c.Name))
		}
	}
	b.WriteString("\n    FROM " + QuoteIdent(v.Keyspace) + "." + QuoteIdent(v.View.BaseName))
	b.WriteString("\n    WHERE " + v.View.WhereClause + "\n    ")
	pk, ck := v.PartitionKey(), v.ClusteringColumns()
	writePrimaryKey(&b, pk, ck)
	b.WriteString("\n WITH ")
	if internals {
		b.WriteString("ID = " + types.UUIDValue(v.ID).String() + "\n    AND ")
	}
	if len(ck) > 0 {
		b.WriteString("CLUSTERING ORDER BY (")
		for i, c := range ck {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(QuoteIdent(c.Name) + map[bool]string{true: " DESC", false: " ASC"}[c.Desc])
		}
		b.WriteString(")\n    AND ")
	}
	writeTableParams(&b, virtual.ParamsOf(v.Options))
	b.WriteString(";")
	return b.String()
}

// FunctionCQL returns the CREATE FUNCTION statement of f, as
// UDFunction.toCqlString writes it:
//
//	CREATE FUNCTION ks.f(a int, b text)
//	    CALLED ON NULL INPUT
//	    RETURNS int
//	    LANGUAGE java
//	    AS $$return a;$$;
func FunctionCQL(f *schema.Function) string {
	var b strings.Builder
	b.WriteString("CREATE FUNCTION " + QuoteIdent(f.Keyspace) + "." + QuoteIdent(f.Name) + "(")
	for i, n := range f.ArgNames {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteIdent(n) + " " + schema.FunctionTypeString(f.ArgTypes[i]))
	}
	b.WriteString(")\n    ")
	if f.CalledOnNullInput {
		b.WriteString("CALLED")
	} else {
		b.WriteString("RETURNS NULL")
	}
	b.WriteString(" ON NULL INPUT\n    RETURNS " + schema.FunctionTypeString(f.Return) + "\n    LANGUAGE " + f.Language + "\n    AS $$" + f.Body + "$$;")
	return b.String()
}

// AggregateCQL returns the CREATE AGGREGATE statement of a, as
// UDAggregate.toCqlString writes it:
//
//	CREATE AGGREGATE ks.a(int)
//	    SFUNC f
//	    STYPE int
//	    FINALFUNC g
//	    INITCOND 0;
func AggregateCQL(a *schema.Aggregate) string {
	var b strings.Builder
	b.WriteString("CREATE AGGREGATE " + QuoteIdent(a.Keyspace) + "." + QuoteIdent(a.Name) + "(" + a.Signature() + ")")
	b.WriteString("\n    SFUNC " + QuoteIdent(a.StateFunc) + "\n    STYPE " + schema.FunctionTypeString(a.StateType))
	if a.FinalFunc != "" {
		b.WriteString("\n    FINALFUNC " + QuoteIdent(a.FinalFunc))
	}
	if a.InitCond != nil {
		b.WriteString("\n    INITCOND " + types.FormatLiteral(a.StateType, a.InitCond))
	}
	b.WriteString(";")
	return b.String()
}

// FunctionElementName is a function's or aggregate's name in a DESCRIBE
// listing (SchemaElement.elementNameQuotedIfNeeded): f(int, text), the name
// quoted if needed.
func FunctionElementName(name, signature string) string {
	return QuoteIdent(name) + "(" + signature + ")"
}
