package cql

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/wire"
)

// optionsClass is an index class that validates its options, as a Java
// index class's static validateOptions: it knows "mode" and refuses the
// value "bad".
type optionsClass struct{ stubIndexClass }

func (optionsClass) ValidateOptions(_ *schema.Table, options map[string]string) ([]string, error) {
	var unknown []string
	for k, v := range options {
		if k != "mode" {
			unknown = append(unknown, k)
		} else if v == "bad" {
			return nil, errors.New("mode bad is not a mode")
		}
	}
	return unknown, nil
}

// TestCreateCustomIndexClass checks CREATE CUSTOM INDEX's class checks
// (IndexMetadata.validate): a class not in the registry, options the class
// does not understand or refuses, and an index without a target, which
// only a CUSTOM index may be.
func TestCreateCustomIndexClass(t *testing.T) {
	classes := conformanceIndexClasses()
	classes["org.example.OptionsIndex"] = optionsClass{}
	s := newConformanceSession(t, engine.Options{IndexClasses: classes}, Options{})
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v text)",
	} {
		mustQuery(t, s, q)
	}
	cases := []struct {
		q    string
		code wire.ErrorCode
		msg  string
	}{
		{"CREATE CUSTOM INDEX ON ks.t (v) USING 'org.example.Missing'", wire.CodeConfig, "Unable to find custom indexer class 'org.example.Missing'"},
		{"CREATE CUSTOM INDEX ON ks.t (v) USING 'org.apache.cassandra.index.sai.StorageAttachedIndex'", wire.CodeConfig,
			"Unable to find custom indexer class 'org.apache.cassandra.index.sai.StorageAttachedIndex'"},
		{"CREATE CUSTOM INDEX ON ks.t (v) USING 'org.example.OptionsIndex' WITH OPTIONS = {'mode': 'x', 'zeta': '1', 'alpha': '2'}", wire.CodeConfig,
			"Properties specified [alpha, zeta] are not understood by OptionsIndex"},
		{"CREATE CUSTOM INDEX ON ks.t (v) USING 'org.example.OptionsIndex' WITH OPTIONS = {'mode': 'bad'}", wire.CodeConfig, "mode bad is not a mode"},
		{"CREATE INDEX ON ks.t ()", wire.CodeInvalid, "Only CUSTOM indexes can be created without specifying a target column"},
	}
	for _, c := range cases {
		_, err := s.Query(ctx, c.q, nil)
		require.Error(t, err, c.q)
		requireCodeContains(t, err, c.code, c.msg)
	}
	tbl, _ := s.x.env.Engine.Table("ks", "t")
	require.Empty(t, tbl.Indexes, "a refused index changes nothing")

	for _, q := range []string{
		"CREATE CUSTOM INDEX ON ks.t (v) USING 'org.example.OptionsIndex' WITH OPTIONS = {'mode': 'x'}",
		"CREATE CUSTOM INDEX ON ks.t () USING 'org.apache.cassandra.index.StubIndex'",
		"CREATE CUSTOM INDEX sasi ON ks.t (v) USING 'org.apache.cassandra.index.sasi.SASIIndex'",
	} {
		mustQuery(t, s, q)
	}
	tbl, _ = s.x.env.Engine.Table("ks", "t")
	var names []string
	for _, ix := range tbl.Indexes {
		names = append(names, ix.Name)
	}
	// A target-less index is named after its table (generateDefaultIndexName).
	require.Equal(t, []string{"t_v_idx", "t_idx", "sasi"}, names)
	res, err := s.Query(ctx, "SELECT options FROM system_schema.indexes WHERE keyspace_name = 'ks' AND table_name = 't' AND index_name = 't_idx'", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"{'class_name': 'org.apache.cassandra.index.StubIndex', 'target': ''}"}, rowLines(res))
	_, ok := s.x.env.Engine.CustomIndex(tbl, "t_idx")
	require.True(t, ok, "the StubIndex has a Go instance")
	_, ok = s.x.env.Engine.CustomIndex(tbl, "sasi")
	require.False(t, ok, "SASI keeps no Go instance")
}

// TestStubIndexWriteTimeDeletions follows CustomIndexTest's
// indexReceivesWriteTimeDeletionsCorrectly (a class the conformance scripts
// do not port): a DELETE of a clustering prefix reaches the index as one
// range tombstone, a DELETE of the partition as one partition deletion.
func TestStubIndexWriteTimeDeletions(t *testing.T) {
	s := newConformanceSession(t, engine.Options{}, Options{})
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (a int, b int, c int, d int, PRIMARY KEY (a, b, c))",
		"CREATE CUSTOM INDEX test_index ON ks.t(d) USING 'org.apache.cassandra.index.StubIndex'",
		"INSERT INTO ks.t (a, b, c, d) VALUES (0, 0, 0, 0)",
		"INSERT INTO ks.t (a, b, c, d) VALUES (0, 0, 1, 1)",
		"INSERT INTO ks.t (a, b, c, d) VALUES (0, 0, 2, 2)",
		"INSERT INTO ks.t (a, b, c, d) VALUES (0, 1, 3, 3)",
	} {
		mustQuery(t, s, q)
	}
	tbl, _ := s.x.env.Engine.Table("ks", "t")
	ci, ok := s.x.env.Engine.CustomIndex(tbl, "test_index")
	require.True(t, ok)
	x := ci.(*stubIndex)
	counts := func() [3]int {
		x.mu.Lock()
		defer x.mu.Unlock()
		return [3]int{len(x.inserted), len(x.partitionDeletions), len(x.rangeTombstones)}
	}
	require.Equal(t, [3]int{4, 0, 0}, counts())
	_, err := s.Query(ctx, "DELETE FROM ks.t WHERE a=0 AND b=0", nil)
	require.NoError(t, err)
	require.Equal(t, [3]int{4, 0, 1}, counts())
	_, err = s.Query(ctx, "DELETE FROM ks.t WHERE a=0", nil)
	require.NoError(t, err)
	require.Equal(t, [3]int{4, 1, 1}, counts())
	x.mu.Lock()
	require.Equal(t, 6, x.begins, "one Begin per partition update: four inserts, two deletes")
	require.Equal(t, x.begins, x.finishes)
	x.mu.Unlock()
}

// TestCustomIndexSupportsExpression checks that a Go index serves only the
// restrictions its supportsExpression accepts: StubIndex's '=' runs
// without ALLOW FILTERING, its slices need it; SASI serves both.
func TestCustomIndexSupportsExpression(t *testing.T) {
	s := newConformanceSession(t, engine.Options{}, Options{})
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int, w int)",
		"CREATE CUSTOM INDEX stub ON ks.t (v) USING 'org.apache.cassandra.index.StubIndex'",
		"CREATE CUSTOM INDEX sasi ON ks.t (w) USING 'org.apache.cassandra.index.sasi.SASIIndex'",
		"INSERT INTO ks.t (k, v, w) VALUES (1, 1, 1)",
		"INSERT INTO ks.t (k, v, w) VALUES (2, 2, 2)",
	} {
		mustQuery(t, s, q)
	}
	for q, n := range map[string]int{
		"SELECT * FROM ks.t WHERE v = 1":                  1,
		"SELECT * FROM ks.t WHERE v > 1 ALLOW FILTERING":  1,
		"SELECT * FROM ks.t WHERE w > 1":                  1,
		"SELECT * FROM ks.t WHERE v <= 2 ALLOW FILTERING": 2,
	} {
		res, err := s.Query(ctx, q, nil)
		require.NoError(t, err, q)
		require.Len(t, res.Rows, n, q)
	}
	for _, q := range []string{"SELECT * FROM ks.t WHERE v > 1", "SELECT * FROM ks.t WHERE v <= 2"} {
		_, err := s.Query(ctx, q, nil)
		requireCodeContains(t, err, wire.CodeInvalid, "ALLOW FILTERING")
	}
}
