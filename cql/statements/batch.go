package statements

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/expr"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/restrictions"
	"github.com/minicass/minicass/cql/virtual"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// Cassandra's batch thresholds (cassandra.yaml's defaults:
// batch_size_warn_threshold 5KiB, batch_size_fail_threshold 50KiB,
// unlogged_batch_across_partitions_warn_threshold 10).
const (
	batchSizeWarnThreshold               = 5 * 1024
	batchSizeFailThreshold               = 50 * 1024
	unloggedBatchPartitionsWarnThreshold = 10
)

// batchPlan is a compiled BATCH.
type batchPlan struct {
	typ       parser.BatchType
	stmts     []*modPlan
	specs     []query.ColumnSpec
	timestamp expr.Term
}

func (p *batchPlan) Binds() []query.ColumnSpec   { return p.specs }
func (p *batchPlan) Columns() []query.ColumnSpec { return nil }
func (p *batchPlan) PKIndexes() []uint16 {
	if len(p.stmts) > 0 {
		return p.stmts[0].pkIdx
	}
	return nil
}

func compileBatch(s *plan.Compiler, st *parser.Batch) (plan.Plan, error) {
	if st.Using.TTL != nil {
		return nil, query.Invalidf("Global TTL on the BATCH statement is not supported.")
	}
	bp := &batchPlan{typ: st.Type, specs: make([]query.ColumnSpec, st.BindCount())}
	c := expr.NewCompileCtx(st.BindCount())
	c.Partitioner = s.Env.Engine.Partitioner()
	c.UDFs = s.UDFs()
	if st.Using.Timestamp != nil {
		t, err := c.CompileTerm(st.Using.Timestamp, expr.Receiver{Name: "[timestamp]", Typ: types.BigintType})
		if err != nil {
			return nil, err
		}
		bp.timestamp = t
	}
	for _, inner := range st.Statements {
		var pl plan.Plan
		var err error
		switch is := inner.(type) {
		case *parser.Insert:
			pl, err = compileInsert(s, is)
		case *parser.Update:
			pl, err = compileUpdate(s, is)
		case *parser.Delete:
			pl, err = compileDelete(s, is)
		default:
			return nil, errBatchStatement()
		}
		if err != nil {
			return nil, err
		}
		mp := pl.(*modPlan)
		for i, spec := range mp.specs {
			if i < len(bp.specs) && spec.Name != "" {
				bp.specs[i] = spec
			}
		}
		bp.stmts = append(bp.stmts, mp)
	}
	for i, spec := range c.Specs {
		if spec.Name != "" {
			bp.specs[i] = spec
		}
	}
	if err := bp.validate(); err != nil {
		return nil, err
	}
	return bp, nil
}

// errBatchStatement refuses a statement other than INSERT, UPDATE and
// DELETE in a batch.
func errBatchStatement() error {
	return query.Invalidf("Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.")
}

// validate checks the statements of a batch together, as BatchStatement's
// constructor and validate do: counters only in a counter batch and never
// with other statements, one timestamp, and conditions on one table.
func (bp *batchPlan) validate() error {
	hasCounters, hasNonCounters, hasConditions := false, false, false
	for _, mp := range bp.stmts {
		isCounter := mp.tbl.IsCounter()
		switch {
		case bp.typ == parser.BatchCounter && !isCounter:
			return query.Invalidf("Cannot include non-counter statement in a counter batch")
		case bp.typ == parser.BatchLogged && isCounter:
			return query.Invalidf("Cannot include a counter statement in a logged batch")
		}
		if isCounter {
			hasCounters = true
		} else {
			hasNonCounters = true
		}
		if hasCounters && hasNonCounters {
			return query.Invalidf("Counter and non-counter mutations cannot exist in the same batch")
		}
		if mp.timestamp != nil && bp.timestamp != nil {
			return query.Invalidf("Timestamp must be set either on BATCH or individual statements")
		}
		if mp.conds != nil {
			hasConditions = true
		}
	}
	if bp.timestamp != nil && bp.typ == parser.BatchCounter && !hasConditions {
		return query.Invalidf("Cannot provide custom timestamp for counter BATCH")
	}
	// BatchStatement.validate's rules for virtual tables.
	hasVirtual, hasRegular := false, false
	for _, mp := range bp.stmts {
		if virtual.IsVirtualTable(mp.tbl) {
			hasVirtual = true
		} else {
			hasRegular = true
		}
	}
	switch {
	case hasVirtual && bp.typ == parser.BatchLogged:
		return query.Invalidf("Cannot include a virtual table statement in a logged batch")
	case hasVirtual && hasRegular:
		return query.Invalidf("Mutations for virtual and regular tables cannot exist in the same batch")
	case hasVirtual && hasConditions:
		return query.Invalidf("Conditional BATCH statements cannot include mutations for virtual tables")
	}
	if hasVirtual {
		for _, mp := range bp.stmts {
			if err := mp.checkVirtual(); err != nil {
				return err
			}
		}
	}
	if hasConditions {
		if bp.timestamp != nil {
			return query.Invalidf("Cannot provide custom timestamp for conditional BATCH")
		}
		for _, mp := range bp.stmts {
			if mp.tbl != bp.stmts[0].tbl {
				return query.Invalidf("Batch with conditions cannot span multiple tables")
			}
		}
	}
	return nil
}

// ProtocolBatch returns the plan of a protocol BATCH of type typ whose
// entries compiled to plans: each must be an INSERT, UPDATE or DELETE, and
// together they are validated as a CQL BATCH is.
func ProtocolBatch(typ parser.BatchType, plans []plan.Plan) (plan.Plan, error) {
	bp := &batchPlan{typ: typ, stmts: make([]*modPlan, 0, len(plans))}
	var reqs []requirement
	for _, pl := range plans {
		pl, r := unwrapAuthorized(pl)
		reqs = append(reqs, r...)
		mp, ok := pl.(*modPlan)
		if !ok {
			return nil, errBatchStatement()
		}
		bp.stmts = append(bp.stmts, mp)
	}
	if err := bp.validate(); err != nil {
		return nil, err
	}
	if len(reqs) > 0 {
		// BatchStatement.authorize: each statement's permissions.
		return &authorizedPlan{Plan: bp, reqs: reqs}, nil
	}
	return bp, nil
}

// partitionKeyOf identifies a mutation's partition across tables.
func partitionKeyOf(m *data.Mutation) string { return string(m.Table[:]) + string(m.Key) }

func (p *batchPlan) Exec(ctx context.Context, q *plan.Execution) (*query.Result, error) {
	var ts int64
	switch {
	case p.timestamp != nil:
		v, err := p.timestamp.Eval(&q.Execution)
		if err != nil {
			return nil, err
		}
		switch {
		case v.Unset:
			// Attributes.getTimestamp: an unset timestamp is now.
			ts = q.Env.Engine.NewTimestamp()
		case v.Bytes == nil:
			return nil, query.Invalidf("Invalid null value of timestamp")
		default:
			if ts, err = timestampValue(v.Bytes); err != nil {
				return nil, err
			}
		}
	case q.Params.HasTimestamp:
		ts = q.Params.Timestamp
	default:
		ts = q.Env.Engine.NewTimestamp()
	}
	q.Batch = &plan.BatchContext{Timestamp: ts}
	conditional := false
	for _, mp := range p.stmts {
		if mp.conds != nil {
			conditional = true
		}
	}
	if conditional {
		return p.execConditional(ctx, q)
	}
	merged, tables, err := p.buildMutations(ctx, q)
	if err != nil {
		return nil, err
	}
	warns, err := p.checkSize(merged, tables)
	if err != nil {
		return nil, err
	}
	res := query.VoidResult()
	res.Warnings = warns
	if p.hasTriggers() {
		if err := p.applyWithTriggers(ctx, q, merged, tables); err != nil {
			return nil, err
		}
		q.Trace.Add("Applied batch of %d statements as %d partition mutations", len(p.stmts), len(merged))
		return res, nil
	}
	// StorageProxy.mutateAtomically counts every mutation's replicas
	// before it writes any.
	for _, m := range merged {
		if m.IsEmpty() {
			continue
		}
		if err := q.CheckWrite(tables[partitionKeyOf(m)].Keyspace); err != nil {
			return nil, err
		}
	}
	for _, m := range merged {
		if m.IsEmpty() {
			continue
		}
		if tbl := tables[partitionKeyOf(m)]; virtual.IsUserVirtual(tbl) {
			if err := plan.VirtualError(virtual.ApplyUser(ctx, tbl, m)); err != nil {
				return nil, err
			}
			continue
		}
		if err := q.Env.Engine.Apply(ctx, tables[partitionKeyOf(m)], m); err != nil {
			return nil, query.AsError(err)
		}
	}
	q.Trace.Add("Applied batch of %d statements as %d partition mutations", len(p.stmts), len(merged))
	return res, nil
}

// hasTriggers reports whether a table the batch writes has triggers.
func (p *batchPlan) hasTriggers() bool {
	for _, mp := range p.stmts {
		if len(mp.tbl.Triggers) > 0 {
			return true
		}
	}
	return false
}

// applyWithTriggers applies the batch's merged mutations with what the
// triggers of their tables add (StorageProxy.mutateWithTriggers): a
// counter batch takes none.
func (p *batchPlan) applyWithTriggers(ctx context.Context, q *plan.Execution, merged []*data.Mutation, tables map[string]*schema.Table) error {
	own := make([]tableMutation, 0, len(merged))
	counter := false
	for _, m := range merged {
		own = append(own, tableMutation{tbl: tables[partitionKeyOf(m)], m: m})
	}
	for _, mp := range p.stmts {
		counter = counter || mp.counter
	}
	added, err := runTriggers(ctx, q, own, counter)
	if err != nil {
		return err
	}
	return applyAll(ctx, q, mergeByPartition(own, added))
}

// buildMutations builds every statement's mutations and merges those of the
// same partition, so each partition's changes apply atomically. Nothing is
// written: a statement that fails validation fails the whole batch.
func (p *batchPlan) buildMutations(ctx context.Context, q *plan.Execution) ([]*data.Mutation, map[string]*schema.Table, error) {
	var merged []*data.Mutation
	index := map[string]int{}
	tables := map[string]*schema.Table{}
	for i, mp := range p.stmts {
		q.UseStatement(i)
		wc, err := mp.WriteContext(q)
		if err != nil {
			return nil, nil, err
		}
		muts, err := mp.Mutations(ctx, q, wc)
		if err != nil {
			return nil, nil, err
		}
		for _, m := range muts {
			k := partitionKeyOf(m)
			tables[k] = mp.tbl
			if i, ok := index[k]; ok {
				merged[i] = mergeMutations(merged[i], m)
				continue
			}
			index[k] = len(merged)
			merged = append(merged, m)
		}
	}
	return merged, tables, nil
}

// mergeMutations combines two mutations of the same partition.
func mergeMutations(a, b *data.Mutation) *data.Mutation {
	out := &data.Mutation{Table: a.Table, Key: a.Key, PartitionDeletion: data.MaxDeletion(a.PartitionDeletion, b.PartitionDeletion)}
	out.RangeTombstones = append(append(out.RangeTombstones, a.RangeTombstones...), b.RangeTombstones...)
	switch {
	case a.Static == nil:
		out.Static = b.Static
	case b.Static == nil:
		out.Static = a.Static
	default:
		st := data.MergeRows(a.Static, b.Static)
		out.Static = &st
	}
	rows := append(append([]data.Row{}, a.Rows...), b.Rows...)
	sort.SliceStable(rows, func(i, j int) bool { return bytes.Compare(rows[i].Clustering, rows[j].Clustering) < 0 })
	for _, r := range rows {
		if n := len(out.Rows); n > 0 && bytes.Equal(out.Rows[n-1].Clustering, r.Clustering) {
			out.Rows[n-1] = data.MergeRows(&out.Rows[n-1], &r)
			continue
		}
		out.Rows = append(out.Rows, r)
	}
	return out
}

// checkSize is BatchStatement.verifyBatchSize and verifyBatchType (4.1):
// for a batch spanning more than one mutation (Cassandra's Mutation groups
// one keyspace's updates of one partition key), it refuses one whose updates
// hold more than batch_size_fail_threshold bytes of data (Batch too large),
// and returns the warnings of one above batch_size_warn_threshold and of an
// unlogged batch over more than unlogged_batch_across_partitions_warn_threshold
// partition keys, with ClientWarn's texts (the sizes in bytes).
func (p *batchPlan) checkSize(muts []*data.Mutation, tables map[string]*schema.Table) ([]string, error) {
	mutations := map[string]bool{}
	keys := map[string]bool{}
	for _, m := range muts {
		t := tables[partitionKeyOf(m)]
		mutations[t.Keyspace+"\x00"+string(m.Key)] = true
		keys[string(m.Key)] = true
	}
	if len(mutations) <= 1 {
		return nil, nil
	}
	var warns []string
	size := 0
	for _, m := range muts {
		size += updateDataSize(m, tables[partitionKeyOf(m)])
	}
	names := batchTableNames(muts, tables)
	if size > batchSizeWarnThreshold {
		if size > batchSizeFailThreshold {
			return nil, query.Invalidf("Batch too large")
		}
		warns = append(warns, fmt.Sprintf("Batch for %s is of size %d, exceeding specified threshold of %d by %d.",
			names, size, batchSizeWarnThreshold, size-batchSizeWarnThreshold))
	}
	if p.typ != parser.BatchLogged && len(keys) > unloggedBatchPartitionsWarnThreshold {
		plural := ""
		if strings.Contains(names, ", ") {
			plural = "s"
		}
		warns = append(warns, fmt.Sprintf("Unlogged batch covering %d partitions detected against table%s %s. You should use a logged batch for atomicity, or asynchronous writes for performance.",
			len(keys), plural, names))
	}
	return warns, nil
}

// batchTableNames lists the tables muts write to as Java prints a set of
// names ("[ks.a, ks.b]"), sorted.
func batchTableNames(muts []*data.Mutation, tables map[string]*schema.Table) string {
	names := map[string]bool{}
	for _, m := range muts {
		names[tables[partitionKeyOf(m)].QualifiedName()] = true
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	return "[" + strings.Join(list, ", ") + "]"
}

// The sizes PartitionUpdate.dataSize counts (4.1): a row's liveness info
// is its timestamp (8 bytes), with the TTL and expiration time (4 each) when
// it expires; a deletion time (row, complex column) is 12 bytes; a cell is
// its timestamp, TTL and local deletion time (16 bytes) with its value and
// path; a counter update's value is a counter context of one local shard.
const (
	livenessDataSize        = 8
	expiringLivenessExtra   = 8
	deletionTimeDataSize    = 12
	cellDataSize            = 16
	counterUpdateValueSize  = 2 + 2 + 16 + 8 + 8
	partitionDeletionSize   = 8
	rangeTombstoneListCount = 4
)

// updateDataSize is PartitionUpdate.dataSize (4.1) of mutation m of table t:
// the data of its rows (clustering values, liveness, deletion, cells), its
// static row (an empty one when m has none, as the update always holds
// one), and its deletion info (the partition deletion's timestamp and each
// range tombstone's bounds, timestamp and local deletion time).
func updateDataSize(m *data.Mutation, t *schema.Table) int {
	size := partitionDeletionSize
	if len(m.RangeTombstones) > 0 {
		size += rangeTombstoneListCount
		for _, rt := range m.RangeTombstones {
			size += clusteringDataSize(t, rt.Start) + clusteringDataSize(t, rt.End) + 8 + 4
		}
	}
	if m.Static == nil {
		size += livenessDataSize + deletionTimeDataSize
	} else {
		size += rowDataSize(m.Static, t, 0)
	}
	for i := range m.Rows {
		size += rowDataSize(&m.Rows[i], t, clusteringDataSize(t, m.Rows[i].Clustering))
	}
	return size
}

// rowDataSize is Row.dataSize: the clustering's data, the liveness info,
// the row deletion, and each column's data (a complex column counts its
// deletion once, with its cells).
func rowDataSize(r *data.Row, t *schema.Table, clustering int) int {
	size := clustering + livenessDataSize + deletionTimeDataSize
	if r.Liveness.TTL > 0 {
		size += expiringLivenessExtra
	}
	complex := map[string]bool{}
	for _, cd := range r.ColumnDeletions {
		complex[cd.Column] = true
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		col := t.StoredColumn(c.Column)
		if col != nil && col.Type.IsMultiCell() {
			complex[c.Column] = true
		}
		size += cellDataSize + len(c.Value)
		if c.Kind == data.CellCounter {
			size += counterUpdateValueSize - len(c.Value)
		}
		if c.Path != nil {
			size += pathDataSize(col, c.Path)
		}
	}
	return size + len(complex)*deletionTimeDataSize
}

// clusteringDataSize is the sum of the sizes of the values of a clustering
// or bound key (ClusteringPrefix.dataSize), 0 for none.
func clusteringDataSize(t *schema.Table, key []byte) int {
	if len(key) == 0 {
		return 0
	}
	values, _, err := types.DecodeClustering(t.ClusteringTypes(), key)
	if err != nil {
		return len(key)
	}
	n := 0
	for _, v := range values {
		n += len(v)
	}
	return n
}

// pathDataSize is a cell path's size as Cassandra serializes it: a map key
// or set element as its value, a list element's time UUID (16 bytes), a
// user type field's index (2 bytes).
func pathDataSize(col *schema.Column, path []byte) int {
	if col == nil {
		return len(path)
	}
	var kt types.Type
	switch ct := col.Type; {
	case ct.IsUDT():
		return len(path)
	case ct.Kind == types.List:
		kt = types.TimeUUIDType
	case len(ct.Params) > 0:
		kt = ct.Params[0]
	default:
		return len(path)
	}
	v, err := types.DecodeKey(kt, path)
	if err != nil {
		return len(path)
	}
	return len(v)
}

// execConditional runs a batch with IF conditions: every statement must touch
// the same partition; all conditions are checked under its lock and the batch
// applies only if they all hold.
func (p *batchPlan) execConditional(ctx context.Context, q *plan.Execution) (*query.Result, error) {
	tbl := p.stmts[0].tbl
	var key []byte
	for i, mp := range p.stmts {
		q.UseStatement(i)
		keys, err := mp.where.PartitionKeys(&q.Execution)
		if err != nil {
			return nil, err
		}
		// BatchStatement.makeCasRequest throws an IllegalArgumentException
		// here, which reaches the client as a Server error.
		if mp.where.KeyIsIn() {
			return nil, &query.Error{Code: wire.CodeServer, Message: "java.lang.IllegalArgumentException: Batch with conditions cannot span multiple partitions (you cannot use IN on the partition key)"}
		}
		if len(keys) != 1 || (key != nil && !bytes.Equal(key, keys[0])) {
			return nil, query.Invalidf("Batch with conditions cannot span multiple partitions")
		}
		key = keys[0]
	}
	req := newCASRequest(tbl, key, true)
	clusterings := make([][]byte, len(p.stmts))
	for i, mp := range p.stmts {
		q.UseStatement(i)
		if mp.conds == nil && mp.kind == restrictions.KindDelete && mp.where.HasSlices() {
			// A range deletion without conditions joins the request
			// as its ranges (CQL3CasRequest.addRangeDeletion); no row
			// is read for it.
			if mp.where.ClusteringHasIn() {
				return nil, query.Invalidf("IN on the clustering key columns is not supported with conditional deletions")
			}
			if err := req.add(mp, nil); err != nil {
				return nil, err
			}
			continue
		}
		c, err := mp.casClustering(q)
		if err != nil {
			return nil, err
		}
		if err := req.add(mp, c); err != nil {
			return nil, err
		}
		clusterings[i] = c
	}
	// StorageProxy.cas: the levels, then the replicas of the Paxos
	// round, its read and its commit.
	if err := q.ValidateCAS(tbl.Keyspace); err != nil {
		return nil, err
	}
	if err := q.CheckCAS(tbl.Keyspace); err != nil {
		return nil, err
	}
	unlock := q.Env.Engine.LockPartition(tbl, key)
	defer unlock()
	for i, mp := range p.stmts {
		if mp.conds == nil {
			continue
		}
		q.UseStatement(i)
		st, err := readState(ctx, q, tbl, key, clusterings[i])
		if err != nil {
			return nil, err
		}
		ok, err := mp.conds.applies(q, st)
		if err != nil {
			return nil, err
		}
		if !ok {
			return req.failure(ctx, q)
		}
	}
	merged, tables, err := p.buildMutations(ctx, q)
	if err != nil {
		return nil, err
	}
	for i, m := range merged {
		// StorageProxy.cas runs the triggers on the update it proposes.
		if m, err = casTriggers(ctx, q, tables[partitionKeyOf(m)], m); err != nil {
			return nil, err
		}
		merged[i] = m
	}
	for _, m := range merged {
		// The partition's lock is held: a table with dependents
		// (indexes, views) derives without taking it again.
		if err := q.Env.Engine.ApplyLocked(ctx, tables[partitionKeyOf(m)], m); err != nil {
			return nil, query.AsError(err)
		}
	}
	for _, mp := range p.stmts {
		if mp.conds != nil {
			return casSuccess(mp.conds), nil
		}
	}
	return query.VoidResult(), nil
}
