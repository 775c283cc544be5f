package cql

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/types"
)

// TestExpirationDateOverflowPolicy checks 4.1's three
// cassandra.expiration_date_overflow_policy values on a write whose TTL ends
// after 2038-01-19T03:14:06Z: REJECT refuses it with
// MAXIMUM_EXPIRATION_DATE_EXCEEDED_REJECT_MESSAGE and writes nothing, CAP
// writes it capped with MAXIMUM_EXPIRATION_DATE_EXCEEDED_WARNING as a client
// warning ("default " for a table's default_time_to_live), CAP_NOWARN caps
// without one; a TTL that fits gets no warning under any.
func TestExpirationDateOverflowPolicy(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		policy string
		warn   bool
	}{{"REJECT", false}, {"cap", true}, {"Cap_NoWarn", false}} {
		t.Run(tc.policy, func(t *testing.T) {
			p, ok := ParseExpirationOverflowPolicy(tc.policy)
			require.True(t, ok)
			eng, err := engine.Open(engine.Options{Clock: engine.NewManualClock(testEpoch)})
			require.NoError(t, err)
			t.Cleanup(func() { eng.Close() })
			s := NewExecutor(eng, Options{ExpirationDateOverflowPolicy: p}).NewSession()
			for _, q := range []string{
				"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
				"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
				"CREATE TABLE ks.d (k int PRIMARY KEY, v int) WITH default_time_to_live = 630720000",
			} {
				_, err := s.Query(ctx, q, nil)
				require.NoError(t, err, q)
			}
			res, err := s.Query(ctx, "INSERT INTO ks.t (k, v) VALUES (1, 1) USING TTL 100", nil)
			require.NoError(t, err)
			assert.Empty(t, res.Warnings)

			for _, w := range []struct{ stmt, table, kind string }{
				{"INSERT INTO ks.t (k, v) VALUES (2, 2) USING TTL 630720000", "t", ""},
				{"INSERT INTO ks.d (k, v) VALUES (2, 2)", "d", "default "},
			} {
				res, err := s.Query(ctx, w.stmt, nil)
				if p == ExpirationOverflowReject {
					require.Error(t, err)
					assert.Equal(t, "InvalidRequest: Request on table ks."+w.table+" with "+w.kind+"ttl of 630720000 seconds exceeds maximum supported expiration date of 2038-01-19T03:14:06+00:00. In order to avoid this use a lower TTL, change the expiration date overflow policy or upgrade to a version where this limitation is fixed. See CASSANDRA-14092 for more details.", errorText(err))
					rows, err := s.Query(ctx, "SELECT * FROM ks."+w.table+" WHERE k = 2", nil)
					require.NoError(t, err)
					assert.Empty(t, rows.Rows, "a refused write writes nothing")
					continue
				}
				require.NoError(t, err)
				if tc.warn {
					assert.Equal(t, []string{"Request on table ks." + w.table + " with " + w.kind + "ttl of 630720000 seconds exceeds maximum supported expiration date of 2038-01-19T03:14:06+00:00 and will have its expiration capped to that date. In order to avoid this use a lower TTL or upgrade to a version where this limitation is fixed. See CASSANDRA-14092 for more details."}, res.Warnings)
				} else {
					assert.Empty(t, res.Warnings)
				}
				rows, err := s.Query(ctx, "SELECT v, ttl(v) FROM ks."+w.table+" WHERE k = 2", nil)
				require.NoError(t, err)
				require.Len(t, rows.Rows, 1)
				assert.Equal(t, "442170846", types.Format(types.IntType, rows.Rows[0][1]), "capped to 2038-01-19T03:14:06Z")
			}
		})
	}
	_, ok := ParseExpirationOverflowPolicy("DROP")
	assert.False(t, ok)
	assert.Equal(t, "CAP_NOWARN", ExpirationOverflowCapNoWarn.String())
}
