package parser

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseTests are {input, output} round trips in the vitess style: output is
// the canonical text, or "" when it equals input.
var parseTests = []struct{ input, output string }{
	// Keyspaces.
	{input: "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"},
	{input: "create keyspace if not exists KS with REPLICATION = {'class':'SimpleStrategy','replication_factor':'3'} and durable_writes = false",
		output: "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '3'} AND durable_writes = false"},
	{input: "ALTER KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3} AND durable_writes = true"},
	{input: "ALTER KEYSPACE IF EXISTS \"MyKs\" WITH durable_writes = false"},
	{input: "DROP KEYSPACE ks"},
	{input: "DROP KEYSPACE IF EXISTS ks"},
	{input: "USE ks"},
	{input: "use \"Quoted\"\"Name\";", output: "USE \"Quoted\"\"Name\""},
	// Tables.
	{input: "CREATE TABLE t (k int PRIMARY KEY, v text)"},
	{input: "CREATE TABLE IF NOT EXISTS ks.t (k int, c int, s text STATIC, v list<frozen<map<text, int>>>, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)"},
	{input: "CREATE COLUMNFAMILY t (k int, c1 int, c2 int, PRIMARY KEY ((k), c1, c2)) WITH compaction = {'class': 'LeveledCompactionStrategy'} AND CLUSTERING ORDER BY (c1 ASC, c2 DESC) AND COMPACT STORAGE AND comment = 'x'",
		output: "CREATE TABLE t (k int, c1 int, c2 int, PRIMARY KEY (k, c1, c2)) WITH CLUSTERING ORDER BY (c1 ASC, c2 DESC) AND COMPACT STORAGE AND compaction = {'class': 'LeveledCompactionStrategy'} AND comment = 'x'"},
	{input: "CREATE TABLE t (a ascii, b bigint, c blob, d boolean, e counter, f date, g decimal, h double, i duration, j float, k inet, l int, m smallint, n text, o time, p timestamp, q timeuuid, r tinyint, s uuid, t varchar, u varint, PRIMARY KEY ((a, b)))"},
	{input: "CREATE TABLE t (k int PRIMARY KEY, a set<text>, b map<int, frozen<list<int>>>, c tuple<int, text, float>, d frozen<address>, e ks.address, f 'org.apache.cassandra.db.marshal.DateType')"},
	{input: "CREATE TABLE t (k int PRIMARY KEY, v int,)", output: "CREATE TABLE t (k int PRIMARY KEY, v int)"},
	{input: "CREATE TABLE t (k int PRIMARY KEY) WITH default_time_to_live = 0 AND gc_grace_seconds = 864000 AND bloom_filter_fp_chance = 0.01 AND caching = {} AND speculative_retry = '99PERCENTILE'"},
	{input: "ALTER TABLE t ADD v text"},
	{input: "ALTER TABLE t ADD v text STATIC"},
	{input: "ALTER TABLE ks.t ADD (a int, b set<text>)"},
	{input: "ALTER TABLE t ADD a int, b text", output: "ALTER TABLE t ADD (a int, b text)"},
	{input: "ALTER TABLE t ADD (a int)", output: "ALTER TABLE t ADD a int"},
	{input: "ALTER TABLE ks.t DROP COMPACT STORAGE"},
	{input: "ALTER TABLE t DROP compact", output: "ALTER TABLE t DROP compact"},
	{input: "ALTER TABLE t DROP v"},
	{input: "ALTER TABLE t DROP (a, b)"},
	{input: "ALTER TABLE t RENAME a TO b AND c TO d"},
	{input: "ALTER TABLE IF EXISTS t WITH comment = 'hello' AND default_time_to_live = 10"},
	{input: "ALTER TABLE t ALTER v TYPE blob"},
	{input: "DROP TABLE t"},
	{input: "DROP TABLE IF EXISTS ks.t"},
	{input: "DROP COLUMNFAMILY t", output: "DROP TABLE t"},
	// User-defined types.
	{input: "CREATE TYPE address (street text, zip int, tags frozen<set<text>>)"},
	{input: "create type if not exists ks.\"Addr\" (a int)", output: "CREATE TYPE IF NOT EXISTS ks.\"Addr\" (a int)"},
	{input: "ALTER TYPE address ADD city text"},
	{input: "ALTER TYPE IF EXISTS ks.address RENAME street TO road AND zip TO code"},
	{input: "ALTER TYPE address ALTER zip TYPE bigint"},
	{input: "DROP TYPE address"},
	{input: "DROP TYPE IF EXISTS ks.address"},
	{input: "CREATE TABLE t (k int PRIMARY KEY, a frozen<address>, b list<frozen<ks.address>>)"},
	// Materialized views (parsed whole; the executor refuses them).
	{input: "CREATE MATERIALIZED VIEW v AS SELECT * FROM t WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)"},
	{input: "create materialized view if not exists ks.v as select a, b from ks.t where a is not null and b is not null and k = 1 primary key ((a, b), k) with clustering order by (k desc) and comment = 'x'",
		output: "CREATE MATERIALIZED VIEW IF NOT EXISTS ks.v AS SELECT a, b FROM ks.t WHERE a IS NOT NULL AND b IS NOT NULL AND k = 1 PRIMARY KEY ((a, b), k) WITH CLUSTERING ORDER BY (k DESC) AND comment = 'x'"},
	{input: "ALTER MATERIALIZED VIEW IF EXISTS ks.v WITH gc_grace_seconds = 10"},
	{input: "DROP MATERIALIZED VIEW v"},
	{input: "DROP MATERIALIZED VIEW IF EXISTS ks.v"},
	// Functions and aggregates (parsed whole; the executor refuses them).
	{input: "CREATE FUNCTION ks.f (a int, b text) CALLED ON NULL INPUT RETURNS text LANGUAGE java AS 'return b;'"},
	{input: "create or replace function f(x double) returns null on null input returns double language java as $$return Math.sqrt(x);$$",
		output: "CREATE OR REPLACE FUNCTION f (x double) RETURNS NULL ON NULL INPUT RETURNS double LANGUAGE java AS 'return Math.sqrt(x);'"},
	{input: "CREATE FUNCTION IF NOT EXISTS f () CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return 1;'"},
	{input: "CREATE AGGREGATE ks.avg2 (int) SFUNC st STYPE tuple<int, bigint> FINALFUNC fin INITCOND (0, 0)"},
	{input: "CREATE OR REPLACE AGGREGATE IF NOT EXISTS a (int, text) SFUNC s STYPE map<text, int>"},
	{input: "DROP FUNCTION ks.f"},
	{input: "DROP FUNCTION IF EXISTS f (int, text)"},
	{input: "DROP AGGREGATE a ()"},
	{input: "SELECT function, aggregate, language, returns, input FROM t", output: "SELECT \"function\", aggregate, language, returns, input FROM t"},
	// Triggers (parsed whole; the executor cannot load the class).
	{input: "CREATE TRIGGER tr ON ks.t USING 'org.apache.cassandra.triggers.AuditTrigger'"},
	{input: "create trigger if not exists \"Tr\" on t using 'x.Y'", output: "CREATE TRIGGER IF NOT EXISTS \"Tr\" ON t USING 'x.Y'"},
	{input: "DROP TRIGGER tr ON t"},
	{input: "DROP TRIGGER IF EXISTS tr ON ks.t"},
	{input: "SELECT trigger FROM trigger", output: "SELECT \"trigger\" FROM trigger"},
	// Roles, users and permissions.
	{input: "CREATE ROLE bob", output: "CREATE ROLE 'bob'"},
	{input: "create role if not exists Bob with password = 'x' and LOGIN = true and superuser = False",
		output: "CREATE ROLE IF NOT EXISTS 'bob' WITH PASSWORD = 'x' AND LOGIN = true AND SUPERUSER = false"},
	{input: "CREATE ROLE \"Bob\" WITH OPTIONS = {'a': 1} AND ACCESS TO DATACENTERS {'dc1', 'dc2'}",
		output: "CREATE ROLE 'Bob' WITH OPTIONS = {'a': 1} AND ACCESS TO DATACENTERS {'dc1', 'dc2'}"},
	{input: "CREATE ROLE 'r' WITH HASHED PASSWORD = '$2a$10$x' AND ACCESS TO ALL DATACENTERS"},
	{input: "CREATE USER Bob WITH PASSWORD 'pw' SUPERUSER", output: "CREATE USER 'Bob' WITH PASSWORD 'pw' SUPERUSER"},
	{input: "CREATE USER IF NOT EXISTS 'al' NOSUPERUSER"},
	{input: "ALTER ROLE r WITH LOGIN = false", output: "ALTER ROLE 'r' WITH LOGIN = false"},
	{input: "ALTER USER al WITH PASSWORD 'n'", output: "ALTER USER 'al' WITH PASSWORD 'n'"},
	{input: "DROP ROLE IF EXISTS r", output: "DROP ROLE IF EXISTS 'r'"},
	{input: "DROP USER al", output: "DROP USER 'al'"},
	{input: "LIST ROLES"},
	{input: "list roles of r norecursive", output: "LIST ROLES OF 'r' NORECURSIVE"},
	{input: "LIST USERS"},
	{input: "GRANT r TO s", output: "GRANT 'r' TO 's'"},
	{input: "REVOKE all FROM s", output: "REVOKE 'all' FROM 's'"},
	{input: "GRANT SELECT ON ks.t TO r", output: "GRANT SELECT ON TABLE ks.t TO 'r'"},
	{input: "GRANT ALL PERMISSIONS ON KEYSPACE ks TO r", output: "GRANT ALL PERMISSIONS ON KEYSPACE ks TO 'r'"},
	{input: "GRANT ALL ON ALL KEYSPACES TO r", output: "GRANT ALL PERMISSIONS ON ALL KEYSPACES TO 'r'"},
	{input: "REVOKE modify permission ON TABLE t FROM r", output: "REVOKE MODIFY ON TABLE t FROM 'r'"},
	{input: "GRANT EXECUTE ON FUNCTION ks.f(int, text) TO r", output: "GRANT EXECUTE ON FUNCTION ks.f (int, text) TO 'r'"},
	{input: "GRANT EXECUTE ON ALL FUNCTIONS IN KEYSPACE ks TO r", output: "GRANT EXECUTE ON ALL FUNCTIONS IN KEYSPACE ks TO 'r'"},
	{input: "GRANT DESCRIBE ON ALL ROLES TO r", output: "GRANT DESCRIBE ON ALL ROLES TO 'r'"},
	{input: "GRANT ALTER ON ROLE s TO r", output: "GRANT ALTER ON ROLE 's' TO 'r'"},
	{input: "GRANT SELECT ON MBEAN 'org.apache.cassandra.db:type=Tables' TO r", output: "GRANT SELECT ON MBEAN 'org.apache.cassandra.db:type=Tables' TO 'r'"},
	{input: "LIST ALL PERMISSIONS"},
	{input: "LIST SELECT ON ALL KEYSPACES OF r NORECURSIVE", output: "LIST SELECT ON ALL KEYSPACES OF 'r' NORECURSIVE"},
	{input: "SELECT user, role, password, login, all FROM users", output: "SELECT \"user\", role, password, login, all FROM users"},
	// Element and slice selection.
	{input: "SELECT m['k'], s[3], m['a'..'c'], s[..5], s[1..], m[?] FROM t"},
	{input: "SELECT m[ 'k' ] AS x FROM t", output: "SELECT m['k'] AS x FROM t"},
	// Secondary indexes.
	{input: "CREATE INDEX ON t (v)"},
	{input: "create index if not exists MyIdx on ks.t (keys(m))", output: "CREATE INDEX IF NOT EXISTS myidx ON ks.t (KEYS(m))"},
	{input: "CREATE INDEX i ON t (VALUES(l))"},
	{input: "CREATE INDEX i ON t (ENTRIES(m))"},
	{input: "CREATE INDEX IF NOT EXISTS ON t (FULL(f))"},
	{input: "CREATE INDEX keys ON t (values)"},
	{input: "CREATE CUSTOM INDEX i ON t (v) USING 'org.apache.cassandra.index.sasi.SASIIndex' WITH OPTIONS = {'mode': 'CONTAINS'}"},
	{input: "CREATE CUSTOM INDEX i ON t () USING 'org.example.RowIndex'"},
	{input: "DROP INDEX i"},
	{input: "DROP INDEX IF EXISTS ks.i"},
	{input: "TRUNCATE t", output: "TRUNCATE TABLE t"},
	{input: "TRUNCATE TABLE ks.t"},
	// INSERT.
	{input: "INSERT INTO ks.t (a, b, c) VALUES (?, ?, ?)"},
	{input: "INSERT INTO t (k, v) VALUES (1, 'it''s') IF NOT EXISTS USING TTL 86400 AND TIMESTAMP 123456789"},
	{input: "INSERT INTO t (k, v) VALUES (1, $$it's$$) USING TIMESTAMP ? AND TTL :ttl"},
	{input: "INSERT INTO t (k, l, s, m, e, tu, u) VALUES (1, [1, 2], {'a', 'b'}, {'k': 1, 'j': 2}, {}, (1, 'x'), {street: 'x', zip: 12})"},
	{input: "INSERT INTO t (a, b, c, d, e, f, g, h, i) VALUES (-1, 1.5, -2.5e10, true, FALSE, 0xCAFE, 123e4567-e89b-12d3-a456-426614174000, 1h30m, P1DT2H)",
		output: "INSERT INTO t (a, b, c, d, e, f, g, h, i) VALUES (-1, 1.5, -2.5e10, true, FALSE, 0xCAFE, 123e4567-e89b-12d3-a456-426614174000, 1h30m, P1DT2H)"},
	{input: "INSERT INTO t (a, b, c, d) VALUES (NaN, Infinity, -Infinity, null)", output: "INSERT INTO t (a, b, c, d) VALUES (NaN, Infinity, -Infinity, NULL)"},
	{input: "INSERT INTO t (a, b) VALUES ((int) ?, (list<text>) :v)"},
	{input: "INSERT INTO t (a, b) VALUES (toTimestamp(now()), system.blobAsText(0x00))",
		output: "INSERT INTO t (a, b) VALUES (totimestamp(now()), system.blobastext(0x00))"},
	{input: "INSERT INTO t (a) VALUES (- (int) ?)", output: "INSERT INTO t (a) VALUES (- (int) ?)"},
	{input: "INSERT INTO t (a) VALUES (1 + 2 * 3 - 4 / 2 % 3)"},
	{input: "INSERT INTO t JSON '{\"k\": 1}'"},
	{input: "INSERT INTO t JSON ? DEFAULT UNSET IF NOT EXISTS USING TTL 5"},
	{input: "INSERT INTO t JSON :j DEFAULT NULL"},
	{input: "INSERT INTO t (a) VALUES (CAST(1 AS text))"},
	{input: "INSERT INTO t (a, b, c) VALUES (12mo, 3w2d, 1y2mo3w4d5h6m7s8ms9us10ns)"},
	// UPDATE.
	{input: "UPDATE t SET v = 1 WHERE k = 0"},
	{input: "UPDATE ks.t USING TTL 10 AND TIMESTAMP 5 SET a = 'x', b = ? WHERE k = ? AND c = ? IF EXISTS"},
	{input: "UPDATE t SET c = c + 3, d = d - 1, l = [0] + l, l2 = l2 + [4], s = s - {'a'} WHERE k = 1"},
	{input: "UPDATE t SET c = c -1 WHERE k = 1", output: "UPDATE t SET c = c + -1 WHERE k = 1"},
	{input: "UPDATE t SET c += 2, d -= 1 WHERE k = 1", output: "UPDATE t SET c = c + 2, d = d - 1 WHERE k = 1"},
	{input: "UPDATE t SET m['k'] = 'v', l[0] = 1, addr.street = 'x' WHERE k = 1"},
	{input: "UPDATE t SET v = 2 WHERE k = 1 IF v = 1 AND m['k'] = 'v' AND x IN (1, 2) AND y != 3 AND z > 4 AND addr.zip = 5"},
	{input: "UPDATE t SET v = null WHERE k IN (1, 2) IF w IN ?", output: "UPDATE t SET v = NULL WHERE k IN (1, 2) IF w IN ?"},
	// DELETE.
	{input: "DELETE FROM t WHERE k = 1"},
	{input: "DELETE a, m['k'], l[1], addr.street FROM ks.t USING TIMESTAMP 99 WHERE k = 1 AND c > 2 IF EXISTS"},
	{input: "DELETE FROM t WHERE k = 1 IF v = 3"},
	// BATCH.
	{input: "BEGIN BATCH INSERT INTO t (k) VALUES (1); UPDATE t SET v = 1 WHERE k = 2; DELETE FROM t WHERE k = 3; APPLY BATCH"},
	{input: "BEGIN UNLOGGED BATCH USING TIMESTAMP 1 INSERT INTO t (k) VALUES (?) INSERT INTO u (k) VALUES (?) APPLY BATCH",
		output: "BEGIN UNLOGGED BATCH USING TIMESTAMP 1 INSERT INTO t (k) VALUES (?); INSERT INTO u (k) VALUES (?); APPLY BATCH"},
	{input: "BEGIN COUNTER BATCH UPDATE c SET n = n + 1 WHERE k = 1; APPLY BATCH"},
	// SELECT.
	{input: "SELECT * FROM t"},
	{input: "SELECT a, b FROM ks.t WHERE k = ? AND c > ? LIMIT 10"},
	{input: "select DISTINCT k FROM t", output: "SELECT DISTINCT k FROM t"},
	{input: "SELECT JSON * FROM t"},
	{input: "SELECT JSON DISTINCT k, v FROM t"},
	{input: "SELECT a AS x, token(k) AS tk, writetime(v), ttl(v), count(*), COUNT(1), count(v) AS n FROM t",
		output: "SELECT a AS x, token(k) AS tk, writetime(v), ttl(v), count(*), count(1), count(v) AS n FROM t"},
	{input: "SELECT now(), uuid(), toTimestamp(x), toDate(x), toUnixTimestamp(x), currentTimestamp(), minTimeuuid('2013-01-01 00:05+0000'), maxTimeuuid('2013-01-01'), min(a), max(a), sum(a), avg(a) FROM t",
		output: "SELECT now(), uuid(), totimestamp(x), todate(x), tounixtimestamp(x), currenttimestamp(), mintimeuuid('2013-01-01 00:05+0000'), maxtimeuuid('2013-01-01'), min(a), max(a), sum(a), avg(a) FROM t"},
	{input: "SELECT CAST(a AS text), 1, 'lit', (int) b, addr.street, a + b * 2, ks.f(a) FROM t"},
	{input: "SELECT \"MixedCase\", \"select\" FROM t"},
	{input: "SELECT * FROM t WHERE k = 1 AND c >= 2 AND c <= 3 AND d < 4 AND e > 5 AND f != 6"},
	{input: "SELECT * FROM t WHERE k IN (1, 2, 3) AND c IN ? AND d IN () AND e IN :e"},
	{input: "SELECT * FROM t WHERE k = 0 AND (c1, c2) > (1, 2) AND (c1, c2) <= ? AND (c1, c2) IN ((1, 2), (3, 4)) AND (c1) IN (?, ?) AND (c1, c2) IN ?"},
	{input: "SELECT * FROM t WHERE token(a, b) > token(1, 2) AND token(a, b) <= ?"},
	{input: "SELECT * FROM t WHERE tags CONTAINS 'x' AND m CONTAINS KEY 'k' AND name LIKE 'ab%' AND m['k'] = 'v' ALLOW FILTERING"},
	{input: "SELECT * FROM t WHERE v IS NOT NULL"},
	{input: "SELECT k, count(*) FROM t WHERE k = 1 GROUP BY k, c ORDER BY c DESC, d PER PARTITION LIMIT 2 LIMIT ? ALLOW FILTERING",
		output: "SELECT k, count(*) FROM t WHERE k = 1 GROUP BY k, c ORDER BY c DESC, d ASC PER PARTITION LIMIT 2 LIMIT ? ALLOW FILTERING"},
	{input: "SELECT * FROM t PER PARTITION LIMIT :p LIMIT :l"},
	{input: "SELECT * FROM t WHERE a = [1, 2] AND b = {1, 2} AND c = {1: 'a'} AND d = (1, 'x')"},
	// Comments and whitespace.
	{input: "SELECT /* block\ncomment */ a -- line\nFROM t // other\nWHERE k = 1;;", output: "SELECT a FROM t WHERE k = 1"},
	// DESCRIBE.
	{input: "DESCRIBE KEYSPACES"},
	{input: "DESC KEYSPACE", output: "DESCRIBE KEYSPACE"},
	{input: "DESCRIBE KEYSPACE ks"},
	{input: "DESCRIBE ONLY KEYSPACE ks WITH INTERNALS"},
	{input: "DESCRIBE TABLES"},
	{input: "DESCRIBE TABLE ks.t"},
	{input: "DESC COLUMNFAMILY t", output: "DESCRIBE TABLE t"},
	{input: "DESCRIBE SCHEMA"},
	{input: "DESCRIBE FULL SCHEMA"},
	{input: "DESCRIBE CLUSTER"},
	{input: "DESCRIBE TYPES"},
	{input: "DESCRIBE TYPE ks.address"},
	{input: "DESCRIBE FUNCTIONS"},
	{input: "DESCRIBE AGGREGATES"},
	{input: "DESCRIBE INDEX ks.idx"},
	{input: "DESCRIBE MATERIALIZED VIEW ks.mv"},
	{input: "DESCRIBE ks"},
	{input: "DESCRIBE ks.t"},
	{input: "DESCRIBE \"keyspaces\""},
}

func TestParseRoundTrip(t *testing.T) {
	for _, tc := range parseTests {
		t.Run(tc.input, func(t *testing.T) {
			want := tc.output
			if want == "" {
				want = tc.input
			}
			st, err := Parse(tc.input)
			require.NoError(t, err)
			assert.Equal(t, want, st.String())
			checkRoundTrip(t, st)
		})
	}
}

// TestKeywordsAsIdentifiers checks that Cassandra's unreserved keywords work
// as column, table and keyspace names, and reserved ones do not.
func TestKeywordsAsIdentifiers(t *testing.T) {
	unreserved := []string{"timestamp", "date", "time", "key", "value", "type", "status", "level",
		"message", "hour", "prefix", "ttl", "writetime", "count", "json", "distinct", "as", "values",
		"keys", "exists", "static", "frozen", "list", "map", "tuple", "text", "int", "counter",
		"filtering", "clustering", "compact", "storage", "contains", "like", "group", "per",
		"partition", "cast", "keyspaces", "tables", "types", "cluster", "replace", "default", "unset"}
	for _, w := range unreserved {
		t.Run(w, func(t *testing.T) {
			assert.False(t, IsReservedKeyword(w))
			for _, q := range []string{
				"CREATE TABLE " + w + "." + w + " (" + w + " int PRIMARY KEY, v int)",
				"SELECT " + w + ", v FROM " + w + " WHERE " + w + " = 1",
				"SELECT v, " + w + " AS " + w + " FROM t ORDER BY " + w + " DESC",
				"INSERT INTO t (" + w + ") VALUES (1)",
				"UPDATE t SET " + w + " = 1 WHERE " + w + " = 2 IF " + w + " = 3",
				"DELETE " + w + " FROM t WHERE " + w + " IN (1)",
			} {
				st, err := Parse(q)
				require.NoError(t, err, q)
				checkRoundTrip(t, st)
			}
		})
	}
	for _, w := range []string{"select", "from", "where", "and", "table", "keyspace", "token", "primary",
		"limit", "set", "in", "null", "order", "by", "with", "if", "not", "nan", "infinity", "true", "false"} {
		t.Run(w, func(t *testing.T) {
			assert.True(t, IsReservedKeyword(w))
			_, err := Parse("CREATE TABLE t (" + w + " int PRIMARY KEY)")
			require.ErrorIs(t, err, ErrSyntax)
			_, err = Parse("UPDATE t SET " + w + " = 1 WHERE k = 1")
			require.ErrorIs(t, err, ErrSyntax)
			st, err := Parse(`SELECT "` + w + `" FROM t`)
			require.NoError(t, err)
			assert.Equal(t, `SELECT "`+w+`" FROM t`, st.String())
		})
	}
}

func TestSelectModifiersVersusColumns(t *testing.T) {
	st, err := Parse("SELECT json FROM t")
	require.NoError(t, err)
	sel := st.(*Select)
	assert.False(t, sel.JSON)
	assert.Equal(t, &ColumnRef{Name: "json"}, sel.Exprs[0].Expr)
	assert.Equal(t, `SELECT "json" FROM t`, st.String())

	st, err = Parse("SELECT distinct, json FROM t")
	require.NoError(t, err)
	sel = st.(*Select)
	assert.False(t, sel.Distinct)
	assert.Len(t, sel.Exprs, 2)

	st, err = Parse("SELECT JSON json FROM t")
	require.NoError(t, err)
	sel = st.(*Select)
	assert.True(t, sel.JSON)
	assert.Equal(t, &ColumnRef{Name: "json"}, sel.Exprs[0].Expr)
}

func TestConstantsKeepKindAndText(t *testing.T) {
	st, err := Parse("INSERT INTO t (a, b, c, d, e, f, g, h, i, j) VALUES ('it''s', -12, 1.5E-3, TRUE, " +
		"01234567-89ab-cdef-0123-456789ABCDEF, 0xff, -1h30m, NULL, P2W, -Infinity)")
	require.NoError(t, err)
	want := []*Constant{
		{Kind: ConstString, Raw: "'it''s'"},
		{Kind: ConstInteger, Raw: "-12"},
		{Kind: ConstFloat, Raw: "1.5E-3"},
		{Kind: ConstBoolean, Raw: "TRUE"},
		{Kind: ConstUUID, Raw: "01234567-89ab-cdef-0123-456789ABCDEF"},
		{Kind: ConstHex, Raw: "0xff"},
		{Kind: ConstDuration, Raw: "-1h30m"},
		{Kind: ConstNull, Raw: "NULL"},
		{Kind: ConstDuration, Raw: "P2W"},
		{Kind: ConstFloat, Raw: "-Infinity"},
	}
	vals := st.(*Insert).Values
	require.Len(t, vals, len(want))
	for i, w := range want {
		assert.Equal(t, w, vals[i], "value %d", i)
	}
	assert.Equal(t, "it's", vals[0].(*Constant).Value())

	st, err = Parse("INSERT INTO t (a) VALUES ($$a 'quoted' $ string$$)")
	require.NoError(t, err)
	assert.Equal(t, "a 'quoted' $ string", st.(*Insert).Values[0].(*Constant).Value())
}

func TestLexDurationsAndNumbers(t *testing.T) {
	cases := []struct {
		in   string
		kind tokenKind
		text string
	}{
		{"12mo", tDuration, "12mo"},
		{"1h30m", tDuration, "1h30m"},
		{"5ms", tDuration, "5ms"},
		{"3µs", tDuration, "3µs"},
		{"7NS", tDuration, "7NS"},
		{"P1Y2M3DT4H5M6S", tDuration, "P1Y2M3DT4H5M6S"},
		{"PT5M", tDuration, "PT5M"},
		{"P0001-02-03T04:05:06", tDuration, "P0001-02-03T04:05:06"},
		{"-P1D", tDuration, "-P1D"},
		{"p1d", tIdent, "p1d"},
		{"P", tIdent, "P"},
		{"1.", tFloat, "1."},
		{"1e10", tFloat, "1e10"},
		{"0x", tHex, "0x"},
		{"123", tInteger, "123"},
		{"-7", tInteger, "-7"},
		{"deadbeef-dead-beef-dead-beefdeadbeef", tUUID, "deadbeef-dead-beef-dead-beefdeadbeef"},
		{`"a""b"`, tQuotedIdent, `"a""b"`},
		{"false", tBoolean, "false"},
	}
	for _, c := range cases {
		toks, err := lex(c.in)
		require.Nil(t, err, c.in)
		require.Len(t, toks, 2, c.in)
		assert.Equal(t, c.kind, toks[0].kind, c.in)
		assert.Equal(t, c.text, toks[0].text, c.in)
	}
	toks, err := lex(`"a""b"`)
	require.Nil(t, err)
	assert.Equal(t, `a"b`, toks[0].val)
}

func TestBindMarkers(t *testing.T) {
	st, err := Parse("UPDATE t USING TTL ? SET a = :a, b = ? WHERE k = :k AND c IN ? IF d = ?")
	require.NoError(t, err)
	assert.Equal(t, 6, st.BindCount())
	assert.Equal(t, []string{"", "a", "", "k", "", ""}, st.BindNames())
	u := st.(*Update)
	assert.Equal(t, &BindMarker{Index: 1, Name: "a"}, u.Set[0].Value)
	assert.Equal(t, &BindMarker{Index: 4}, u.Where[1].(*ColumnRelation).Value)

	st, err = Parse("BEGIN BATCH INSERT INTO t (a, b) VALUES (?, ?); UPDATE t SET v = :v WHERE k = ?; APPLY BATCH")
	require.NoError(t, err)
	assert.Equal(t, []string{"", "", "v", ""}, st.BindNames())
	b := st.(*Batch)
	assert.Equal(t, 2, b.Statements[0].BindCount())
	assert.Equal(t, []string{"v", ""}, b.Statements[1].BindNames())
	assert.Equal(t, &BindMarker{Index: 3}, b.Statements[1].(*Update).Where[0].(*ColumnRelation).Value)

	st, err = Parse("CREATE TABLE t (k int PRIMARY KEY)")
	require.NoError(t, err)
	assert.Equal(t, 0, st.BindCount())
}

func TestSyntaxErrorPositions(t *testing.T) {
	cases := []struct {
		in        string
		line, col int
		msg       string
	}{
		{"SELECT u.* FROM t", 1, 8, "no viable alternative at input '.'"},
		{"SELECT a FROM t WHERE a = 1 JOIN x", 1, 28, "mismatched input 'JOIN' expecting EOF"},
		{"SELECT a\nFROM t\n  WHERE k == 1", 3, 11, "no viable alternative at input '='"},
		{"SELECT a FROM t WHERE", 0, -1, "no viable alternative at input '<EOF>'"},
		{"INSERT INTO t (a) VALUE (1)", 1, 18, "mismatched input 'VALUE' expecting K_VALUES"},
		{"SELECT 'é' FRM t", 1, 11, "mismatched input 'FRM' expecting K_FROM"},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH CLUSTERING ORDER BY (c)", 1, 62, "no viable alternative at input ')'"},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		var se *SyntaxError
		require.True(t, errors.As(err, &se), "%q: %v", c.in, err)
		assert.True(t, errors.Is(err, ErrSyntax))
		assert.Equal(t, c.line, se.Line, c.in)
		assert.Equal(t, c.col, se.Column, c.in)
		assert.Equal(t, c.msg, se.Msg, c.in)
	}
}

func TestParseScript(t *testing.T) {
	sts, err := ParseScript(";; USE ks; CREATE TABLE t (k int PRIMARY KEY);\nINSERT INTO t (k) VALUES (?) ;")
	require.NoError(t, err)
	require.Len(t, sts, 3)
	assert.Equal(t, "USE ks", sts[0].String())
	assert.Equal(t, 1, sts[2].BindCount())

	sts, err = ParseScript("USE ks; SELEC 1; USE b")
	require.ErrorIs(t, err, ErrSyntax)
	assert.Len(t, sts, 1)

	sts, err = ParseScript("  -- nothing\n")
	require.NoError(t, err)
	assert.Empty(t, sts)
}

func TestSplitStatements(t *testing.T) {
	cases := []struct {
		in       string
		complete []string
		rest     string
	}{
		{"SELECT * FROM t;", []string{"SELECT * FROM t;"}, ""},
		{"USE ks; SELECT * FROM t", []string{"USE ks;"}, "SELECT * FROM t"},
		{"INSERT INTO t (a) VALUES ('x;y');  ", []string{"INSERT INTO t (a) VALUES ('x;y');"}, ""},
		{"INSERT INTO t (a) VALUES ('x;", nil, "INSERT INTO t (a) VALUES ('x;"},
		{"INSERT INTO t (a) VALUES ($$a;b$$); -- c;d\n", []string{"INSERT INTO t (a) VALUES ($$a;b$$);"}, ""},
		{"SELECT \"a;b\" FROM t /* ; */;", []string{"SELECT \"a;b\" FROM t /* ; */;"}, ""},
		{"BEGIN BATCH INSERT INTO t (k) VALUES (1); INSERT INTO t (k) VALUES (2);",
			nil, "BEGIN BATCH INSERT INTO t (k) VALUES (1); INSERT INTO t (k) VALUES (2);"},
		{"begin unlogged batch insert into t (k) values (1); apply batch; select * from t;",
			[]string{"begin unlogged batch insert into t (k) values (1); apply batch;", "select * from t;"}, ""},
		{";;  ;", nil, ""},
		{"-- only a comment", nil, ""},
	}
	for _, c := range cases {
		complete, rest := SplitStatements(c.in)
		assert.Equal(t, c.complete, complete, c.in)
		assert.Equal(t, c.rest, rest, c.in)
	}
}

func TestSyntaxErrorFormat(t *testing.T) {
	e := &SyntaxError{Line: 1, Column: 8, Msg: "no viable alternative at input '.'"}
	assert.Equal(t, "line 1:8 no viable alternative at input '.'", e.Error())
	e.Snippet = "SELECT u[.]*..."
	assert.Equal(t, "line 1:8 no viable alternative at input '.' (SELECT u[.]*...)", e.Error())
	assert.Equal(t, "Only expressions", (&SyntaxError{Msg: "Only expressions"}).Error())
	assert.ErrorIs(t, e, ErrSyntax)
}

func TestTypes(t *testing.T) {
	st, err := Parse("CREATE TABLE t (k int PRIMARY KEY, m frozen<map<text, list<int>>>, u ks.addr)")
	require.NoError(t, err)
	ct := st.(*CreateTable)
	assert.Equal(t, &Type{Kind: TypeMap, Frozen: true, Params: []*Type{
		{Kind: TypeText}, {Kind: TypeList, Params: []*Type{{Kind: TypeInt}}}}}, ct.Columns[1].Type)
	assert.Equal(t, &Type{Kind: TypeUser, Name: TableName{Keyspace: "ks", Name: "addr"}}, ct.Columns[2].Type)
	assert.Equal(t, "map", TypeMap.String())
	assert.True(t, TypeVarint.IsNative())
	assert.False(t, TypeList.IsNative())
}
