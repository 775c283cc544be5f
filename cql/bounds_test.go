package cql

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// boundsSession is a session with a keyspace ks and a table ks.t.
func boundsSession(t *testing.T) *Session {
	s := newSelectTestSession(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int, de decimal)",
		"INSERT INTO ks.t (k, v, de) VALUES (1, 2, 1.5)",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(t, err, q)
	}
	return s
}

// requireCodeContains checks that err is a *query.Error with code and a
// message containing text.
func requireCodeContains(t *testing.T, err error, code wire.ErrorCode, text string) {
	t.Helper()
	require.Error(t, err)
	var qe *query.Error
	require.ErrorAs(t, err, &qe)
	assert.Equal(t, code, qe.Code, qe.Message)
	assert.Contains(t, qe.Message, text)
}

// TestDeepNestingRefused is issue 18's first defect: a WHERE value nested
// 300,000 parentheses deep ended the process with a stack overflow in the
// compiler. It is now a syntax error, as is any expression deeper than
// parser.MaxDepth, and one just within the limit still runs.
func TestDeepNestingRefused(t *testing.T) {
	s := boundsSession(t)
	ctx := context.Background()
	for _, n := range []int{parser.MaxDepth, 100_000, 300_000} {
		q := "SELECT * FROM system.local WHERE key = " + strings.Repeat("(", n) + "'local'" + strings.Repeat(")", n)
		_, err := s.Query(ctx, q, nil)
		requireCodeContains(t, err, wire.CodeSyntax, "expression nested too deeply: more than 1000 levels")
		_, err = s.Prepare(ctx, q)
		requireCodeContains(t, err, wire.CodeSyntax, "expression nested too deeply")
	}
	n := parser.MaxDepth - 1
	res, err := s.Query(ctx, "SELECT key FROM system.local WHERE key = "+strings.Repeat("(", n)+"'local'"+strings.Repeat(")", n), nil)
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
}

// TestLongChains is issue 18's second defect for operator chains: 1+1+...+1
// took seconds at 1,000 terms. A chain within the depth limit computes its
// value, in a selection and in a term; a longer one is refused.
func TestLongChains(t *testing.T) {
	s := boundsSession(t)
	ctx := context.Background()
	n := parser.MaxDepth - 1 // operators: the chain is n+1 levels deep
	res, err := s.Query(ctx, "SELECT 1"+strings.Repeat(" + 1", n)+" FROM ks.t", nil)
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
	assert.Equal(t, uint32(n+1), binary.BigEndian.Uint32(res.Rows[0][0]))
	res, err = s.Query(ctx, "SELECT v FROM ks.t WHERE k = 1"+strings.Repeat(" * 1", n), nil)
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
	for _, m := range []int{n + 1, 4000, 100_000} {
		_, err = s.Query(ctx, "SELECT v FROM ks.t WHERE k = 1"+strings.Repeat(" + 1", m), nil)
		requireCodeContains(t, err, wire.CodeSyntax, "expression nested too deeply")
	}
	// Nested function calls are bounded the same way.
	_, err = s.Query(ctx, "SELECT "+strings.Repeat("blobasint(intasblob(", 600)+"v"+strings.Repeat("))", 600)+" FROM ks.t", nil)
	requireCodeContains(t, err, wire.CodeSyntax, "expression nested too deeply")
}

// TestTooManyBindMarkers is part of issue 18's ninth defect: PREPARE
// accepted more than 65,535 bind markers, which the protocol counts in an
// unsigned short. Cassandra's QueryProcessor.prepare refuses them.
func TestTooManyBindMarkers(t *testing.T) {
	s := boundsSession(t)
	ctx := context.Background()
	in := func(n int) string {
		return "SELECT v FROM ks.t WHERE k IN (" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
	}
	p, err := s.Prepare(ctx, in(65535))
	require.NoError(t, err)
	assert.Len(t, p.Bind, 65535)
	_, err = s.Prepare(ctx, in(65536))
	requireCode(t, err, wire.CodeInvalid, "Too many markers(?). 65536 markers exceed the allowed maximum of 65535")
}

// TestTTLBeyond2038 is part of issue 18's ninth defect: a TTL whose expiry
// falls after 2038-01-19 answered with the engine's internal text.
// Cassandra 4.1's default REJECT policy answers with
// ExpirationDateOverflowHandling's message, naming a table's default TTL
// as such.
func TestTTLBeyond2038(t *testing.T) {
	s := boundsSession(t)
	ctx := context.Background()
	const msg = " seconds exceeds maximum supported expiration date of 2038-01-19T03:14:06+00:00. In order to avoid this use a lower TTL, change the expiration date overflow policy or upgrade to a version where this limitation is fixed. See CASSANDRA-14092 for more details."
	_, err := s.Query(ctx, "INSERT INTO ks.t (k, v) VALUES (5, 1) USING TTL 630720000", nil)
	requireCode(t, err, wire.CodeInvalid, "Request on table ks.t with ttl of 630720000"+msg)
	_, err = s.Query(ctx, "UPDATE ks.t USING TTL 630720000 SET v = 1 WHERE k = 5", nil)
	requireCode(t, err, wire.CodeInvalid, "Request on table ks.t with ttl of 630720000"+msg)
	_, err = s.Query(ctx, "INSERT INTO ks.t (k, v) VALUES (5, 1) USING TTL 630720001", nil)
	requireCode(t, err, wire.CodeInvalid, "ttl is too large. requested (630720001) maximum (630720000)")
	mustQuery(t, s, "CREATE TABLE ks.d (k int PRIMARY KEY, v int) WITH default_time_to_live = 630720000")
	_, err = s.Query(ctx, "INSERT INTO ks.d (k, v) VALUES (5, 1)", nil)
	requireCode(t, err, wire.CodeInvalid, "Request on table ks.d with default ttl of 630720000"+msg)
	// A TTL that ends before 2038 is written; nothing was written before.
	mustQuery(t, s, "INSERT INTO ks.t (k, v) VALUES (5, 1) USING TTL 86400")
	res := mustQuery(t, s, "SELECT v FROM ks.t WHERE k = 5")
	require.Len(t, res.Rows, 1)
}

// TestHugeDecimalExponents is issue 18's second defect for decimals:
// SELECT de + 1e999999999 squared a big integer for minutes. Decimal
// arithmetic now computes what Java's BigDecimal computes with
// DecimalType's MathContext(10000) (types/testdata/arith has the Java
// vectors), so the sum is 1E+999999999 at 10,000 digits of precision;
// scales past an int are Java's Overflow and Underflow, and powers of ten
// too large to compute are BigInteger's overflow error.
func TestHugeDecimalExponents(t *testing.T) {
	s := boundsSession(t)
	ctx := context.Background()
	res, err := s.Query(ctx, "SELECT de + 1e999999999, de - 1e-999999999, de * 1e999999999 FROM ks.t", nil)
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
	sum := res.Rows[0][0]
	assert.Equal(t, int32(-999990000), int32(binary.BigEndian.Uint32(sum)), "scale of the rounded sum")
	diff := res.Rows[0][1]
	assert.Equal(t, int32(9999), int32(binary.BigEndian.Uint32(diff)), "scale of the rounded difference")
	assert.Equal(t, int32(-999999999+1), int32(binary.BigEndian.Uint32(res.Rows[0][2])), "scale of the product")

	_, err = s.Query(ctx, "SELECT de * 1e-2000000000 * 1e-2000000000 FROM ks.t", nil)
	requireCodeContains(t, err, wire.CodeFunctionFailure, "Underflow")
	for _, q := range []string{
		"SELECT 1e999999999 / de FROM ks.t",
		"SELECT de % 1e-999999999 FROM ks.t",
	} {
		_, err = s.Query(ctx, q, nil)
		requireCodeContains(t, err, wire.CodeFunctionFailure, "BigInteger would overflow supported range")
	}
	mustQuery(t, s, "INSERT INTO ks.t (k, de) VALUES (2, 1e-999999999)")
	_, err = s.Query(ctx, "SELECT sum(de) FROM ks.t", nil)
	requireCodeContains(t, err, wire.CodeFunctionFailure, "BigInteger would overflow supported range")
	res = mustQuery(t, s, "SELECT cast(de AS double), cast(de AS bigint) FROM ks.t WHERE k = 2")
	require.Len(t, res.Rows, 1)
	assert.Equal(t, make([]byte, 8), res.Rows[0][0], "1e-999999999 as a double is 0")
	assert.Equal(t, make([]byte, 8), res.Rows[0][1], "1e-999999999 as a bigint is 0")
}

// flipCtx is a context that turns cancelled after its Err has been asked
// live times, and counts how often it is asked after that.
type flipCtx struct {
	context.Context
	live, asked, askedAfter int
}

func (c *flipCtx) Err() error {
	c.asked++
	if c.asked > c.live {
		c.askedAfter++
		return context.Canceled
	}
	return nil
}

// TestCancelledContextStopsWork checks that a request stops when its
// context is cancelled (the client gone, a timeout, shutdown) and answers
// as Cassandra answers a request that timed out: a read with ReadTimeout,
// a write with WriteTimeout and its write type. A scan of 3,000
// partitions cancelled after a few checks stops at the next check: the
// context is asked once after it turned, not once per remaining
// partition.
func TestCancelledContextStopsWork(t *testing.T) {
	s := boundsSession(t)
	ctx := context.Background()
	for i := range 3000 {
		_, err := s.Query(ctx, "INSERT INTO ks.t (k, v) VALUES (?, 1)", &query.Params{Values: []query.Value{{Bytes: binary.BigEndian.AppendUint32(nil, uint32(i))}}})
		require.NoError(t, err)
	}
	fc := &flipCtx{Context: ctx, live: 10}
	_, err := s.Query(fc, "SELECT count(*) FROM ks.t", nil)
	requireCode(t, err, wire.CodeReadTimeout, "Operation timed out - received only 0 responses.")
	assert.Equal(t, 1, fc.askedAfter, "the scan stops at the first check after the cancel")
	var qe *query.Error
	require.ErrorAs(t, err, &qe)
	assert.Equal(t, wire.One, qe.Consistency)
	assert.Equal(t, int32(1), qe.BlockFor)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = s.Query(cancelled, "SELECT v FROM ks.t WHERE k = 1", &query.Params{Consistency: wire.Quorum})
	requireCode(t, err, wire.CodeReadTimeout, "Operation timed out - received only 0 responses.")
	require.ErrorAs(t, err, &qe)
	assert.Equal(t, wire.Quorum, qe.Consistency)
	for q, wt := range map[string]string{
		"INSERT INTO ks.t (k, v) VALUES (1, 1)":                                   "SIMPLE",
		"UPDATE ks.t SET v = 2 WHERE k = 1":                                       "SIMPLE",
		"BEGIN BATCH INSERT INTO ks.t (k, v) VALUES (1, 1); APPLY BATCH":          "BATCH",
		"BEGIN UNLOGGED BATCH INSERT INTO ks.t (k, v) VALUES (1, 1); APPLY BATCH": "UNLOGGED_BATCH",
	} {
		_, err = s.Query(cancelled, q, nil)
		requireCode(t, err, wire.CodeWriteTimeout, "Operation timed out - received only 0 responses.")
		require.ErrorAs(t, err, &qe)
		assert.Equal(t, wt, qe.WriteType, q)
	}
	_, err = s.Query(cancelled, "INSERT INTO ks.t (k, v) VALUES (1, 1) IF NOT EXISTS", nil)
	requireCode(t, err, wire.CodeWriteTimeout, "CAS operation timed out: received 0 of 1 required responses after 0 contention retries")
	// Nothing was written by the cancelled writes.
	res := mustQuery(t, s, "SELECT v FROM ks.t WHERE k = 1")
	require.Len(t, res.Rows, 1)
	assert.Equal(t, uint32(1), binary.BigEndian.Uint32(res.Rows[0][0]))
}

// TestFilterValuesCheckedOnKeyReads checks that a read of a whole partition
// by its key validates its filter and index values before any row is read
// (WhereClause.ValidateFilters): a null filter value is refused on an empty
// partition, and an index value over 64K with the key given as without it.
func TestFilterValuesCheckedOnKeyReads(t *testing.T) {
	s := boundsSession(t)
	ctx := context.Background()
	mustQuery(t, s, "CREATE TABLE ks.f (k int, c int, v text, PRIMARY KEY (k, c))")
	mustQuery(t, s, "CREATE INDEX ON ks.f (v)")
	_, err := s.Query(ctx, "SELECT * FROM ks.t WHERE k = 5 AND v = ? ALLOW FILTERING", &query.Params{Values: []query.Value{{}}})
	requireCodeContains(t, err, wire.CodeInvalid, "Unsupported null value for column v")
	big := []byte(strings.Repeat("x", 70_000))
	for _, q := range []string{"SELECT * FROM ks.f WHERE k = 5 AND v = ?", "SELECT * FROM ks.f WHERE v = ?"} {
		_, err = s.Query(ctx, q, &query.Params{Values: []query.Value{{Bytes: big}}})
		requireCodeContains(t, err, wire.CodeInvalid, "Index expression values may not be larger than 64K")
	}
	res, err := s.Query(ctx, "SELECT * FROM ks.t WHERE k = 1", nil)
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
}
