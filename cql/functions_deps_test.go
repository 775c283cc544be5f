package cql

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/engine"
)

// TestPreparedFunctions checks Prepared.Functions beyond what
// UFIdentificationTest covers, against 4.1's getFunctions: an aggregate
// lists its state and final functions (UDAggregate.addFunctionsTo), native
// selectors their functions (count(*) is system.count, toJson
// system.tojson, token(k) system.token), and a statement without calls
// none.
func TestPreparedFunctions(t *testing.T) {
	s := newConformanceSession(t, engine.Options{}, Options{UserDefinedFunctionsEnabled: true})
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
		"CREATE FUNCTION ks.st(s int, v int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return s + v;'",
		"CREATE FUNCTION ks.fin(s int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return s;'",
		"CREATE AGGREGATE ks.agg(int) SFUNC st STYPE int FINALFUNC fin INITCOND 0",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(t, err, q)
	}
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"SELECT ks.agg(v) FROM ks.t", []string{"ks.agg", "ks.fin", "ks.st"}},
		{"SELECT count(*) FROM ks.t", []string{"system.count"}},
		{"SELECT max(v), toJson(v) FROM ks.t", []string{"system.max", "system.tojson"}},
		{"SELECT token(k) FROM ks.t", []string{"system.token"}},
		{"SELECT v FROM ks.t WHERE k = 1", nil},
		{"UPDATE ks.t SET v = ks.fin(1) WHERE k = 1 IF v = blobAsInt(intAsBlob(1))", []string{"ks.fin", "system.blobasint", "system.intasblob"}},
	} {
		p, err := s.Prepare(ctx, c.q)
		require.NoError(t, err, c.q)
		require.Equal(t, c.want, p.Functions(), c.q)
	}
}
