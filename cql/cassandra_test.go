package cql

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/describe"
	"github.com/minicass/minicass/cql/javaudf"
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/vfs"
	"github.com/minicass/minicass/wire"
)

// The scripts under testdata/cassandra port Apache Cassandra 4.1's own CQL
// tests (test/unit/org/apache/cassandra/cql3/...), one folder per Java test
// class and one file per class, the method's blocks after a "method" line. The
// directives mirror CQLTester's helpers, so each block is one assertion of the
// Java test and its expected output is what the Java test expects, never what
// minicass printed:
//
//	method name=testX   starts the Java test method testX (counted by the tally)
//	table               createTable: the input is a CREATE TABLE with %s, which
//	                    becomes a fresh name (table_00, table_01, ...) in the
//	                    keyspace cql_test_keyspace; later %s (and %1$s) name it,
//	                    and %n is its bare name
//	execute             execute: runs each statement; prints nothing unless one
//	                    fails (which then fails the script); a statement is a
//	                    line, or more while a string ('...', $$...$$) is open
//	prepare name=P      sessionNet().prepare: prepares the input's statement as
//	                    P, which "execute prepared=P" (no input) runs later,
//	                    as sessionNet().execute(prepared.bind()) does
//	rows                assertRows: the rows, in order, one a line, values
//	                    separated by " | " as types.Format prints them (a row
//	                    of one empty text value prints as '')
//	rows-any-order      assertRowsIgnoringOrder
//	rows-include        assertRowsIgnoringOrderAndExtra: each expected row is
//	                    among the result's, which may hold others
//	empty               assertEmpty
//	row-count           assertRowCount: the expected output is the count
//	rows page-size=N    assertRowsNet(executeNetWithPaging(query, N)): the
//	                    rows of every page, fetched N at a time (also for
//	                    empty and row-count)
//	rows sstables=N     SSTablesIteratedTest's executeAndCheck (also for empty):
//	                    the table's SSTables-per-read histogram is cleared,
//	                    the rows are checked, and the histogram's max (the
//	                    most SSTables one partition read of the statement
//	                    opened; 0 when only range reads ran) must be N
//	columns             assertColumnNames: the result's column names, one a line
//	column-types        the result metadata's column types, one a line (the
//	                    Java tests read them from result.metadata())
//	warnings            ClientWarn's captured warnings: runs the statement and
//	                    prints its client warnings, one a line (nothing for
//	                    none, as the Java's assertNull)
//	error [kind=K]      assertInvalidMessage / assertInvalidThrowMessage /
//	                    assertInvalid: the statement fails, with an error of
//	                    kind K (InvalidRequest by default; Syntax,
//	                    Configuration, AlreadyExists, FunctionFailure, Any)
//	                    whose message contains the expected text (any message
//	                    when it is empty)
//	warnings            ClientWarn's captured warnings of the statement: one
//	                    expected line per warning, each contained in it
//	                    (assertThat(warning).contains); no line means none
//	                    (assertNull(ClientWarn.instance.getWarnings()))
//	cached name=P       QueryProcessor.instance.getPrepared(P's id): prints
//	                    "cached" while the node's cache holds P, "not cached"
//	                    once a schema change evicted it; counted. With
//	                    id=HEX instead of name, the id is the 16 bytes in
//	                    hex (a QueryProcessor.computeId the script spells
//	                    out: the MD5 of the keyspace and the text)
//	prepare name=P keyspace=K
//	                    QueryProcessor.instance.prepare(query, state) with
//	                    the ClientState's keyspace K (none: not set) rather
//	                    than the current one
//	prepared-id name=P  the statementId of P's PREPARED answer, in hex
//	                    (assertEquals(id, prepared.statementId)); counted
//	prepared-count      QueryProcessor.instance.getPreparedStatements().size():
//	                    the number of statements the node's cache holds; counted
//	prepare-threads threads=N
//	                    N goroutines, released at once, each prepare the
//	                    input's statement without a keyspace
//	                    (QueryProcessor.instance.prepare with
//	                    ClientState.forInternalCalls()) and check that it has
//	                    an id and that the cache holds that id: prints
//	                    "statement ids: K" (the threads that got an id) and
//	                    "all cached: B"; counts N+1 assertions (each thread's
//	                    and the closing one), one when it fails
//	same-id a=P b=Q     prints "same" when P's and Q's statement ids are
//	                    equal, else "different"; counted
//	schema-change       CQLTester.assertLastSchemaChange: runs the statement and
//	                    prints the schema change it answers, as
//	                    wire.SchemaChange prints it ("CREATED AGGREGATE
//	                    ks.a[double]"); counted, with the statement
//	functions           UFIdentificationTest's assertFunctions: the input's
//	                    statement is prepared and its functions
//	                    (CQLStatement.getFunctions, Prepared.Functions) print
//	                    one a line, "ks.f" or "system.f", sorted and each
//	                    once, as the Java compares them as sets; counted
//	verify-class [disallowed-package=P]
//	                    UFVerifierTest's verify(cls): new UDFByteCodeVerifier()
//	                    (with addDisallowedPackage(P)) verifies the class
//	                    whose Java source is the input, as
//	                    javaudf.VerifyClass reads it (the Java verifies the
//	                    compiled udfverify/* helper); the expected output is
//	                    the complaints, one a line (nothing for none),
//	                    compared as a set as the Java's assertEquals of
//	                    HashSets does; counted once
//	parses              assertValidSyntax: the statement parses (it is not
//	                    executed); the expected output is empty
//	trace               a prepared statement executed with tracing on, as
//	                    the driver's PreparedStatement.enableTracing and
//	                    getQueryTrace do: the expected output is the trace
//	                    session's parameters (system_traces.sessions) that
//	                    the Java checks, "query: ..." and then each
//	                    bound_var_* entry, "name: value", in name order
//	prepare name=P      session.prepare(statement) through the driver
//	                    (sessionNet) or SimpleClient: the statement is
//	                    prepared in the current keyspace and kept as P
//	... prepared=P      execute, rows, empty, row-count, columns and error
//	                    with prepared=P execute P's bound statement
//	                    instead of a statement of their own: their input is
//	                    only its "? " line of values (or nothing). As the
//	                    driver does, an execution that the node answers
//	                    Unprepared (the schema change evicted P) prepares
//	                    P's text again, in P's keyspace, and runs once more;
//	                    with the simple-client flag it does not, as
//	                    SimpleClient.executePrepared does not
//	rows with-columns   the first expected line is the result's column names,
//	                    separated by " | ", checked with the rows (the Java's
//	                    checks of the result metadata's names and count)
//	rows column-count=N also checks the result's number of columns
//	                    (assertEquals(rs.getColumnDefinitions().size(), N)),
//	                    one more assertion on the same execution
//	table-cql [table=KS.T] [trailing-newline]
//	                    SchemaCQLHelper.getTableMetadataAsCQL(metadata,
//	                    true, true, true) of the current table (or KS.T),
//	                    asserted as the Java does, with contains: the
//	                    table's CREATE TABLE IF NOT EXISTS with its ID and
//	                    dropped columns (describe.TableCQLWith) must contain
//	                    the expected text, whose %id is the table's id
//	                    (cfs.metadata.id) and whose final newline counts
//	                    only with trailing-newline
//	marshal-name [ignore-freezing]
//	                    AbstractType.toString() (toString(true) with
//	                    ignore-freezing) of the input's CQL type, as
//	                    types.MarshalName prints it, without the package
//	                    org.apache.cassandra.db.marshal.; counted
//	trigger name=N      CreateTest's assertTriggerExists and
//	                    assertTriggerDoesNotExists: the current table's
//	                    metadata (the engine's schema) has a trigger N,
//	                    printed "exists", or none, "absent"; counted
//	                    (a name with a space is written name=(A B))
//	memtable-empty      DeleteTest's and UpdateTest's isMemtableEmpty
//	                    (cfs.metric.allMemtablesLiveDataSize == 0, asserted
//	                    true): the current table's active memtable holds no
//	                    bytes and no memtable awaits its flush, as the
//	                    engine's MemtableStats tells; the expected output
//	                    is empty (a non-empty memtable prints its figures)
//	stub-index name=I  what the StubIndex I of the current table recorded
//	                    (the index class of Cassandra's tests, written in Go
//	                    in customindex_fixture_test.go and registered under
//	                    its Java name): one read a line (the list sizes
//	                    rowsInserted.size() and the like, a row's cell
//	                    values, liveness and deletion;
//	                    stubIndex.query lists them), each expected line one
//	                    assertion
//	stub-index name=I reset
//	                    StubIndex.reset(); counts nothing
//	fail-init           SecondaryIndexTest's LoadTypeConstrainedIndex.failInit
//	                    = true: the next such index's initialization fails
//	rebuild-index name=I
//	                    indexManager.rebuildIndexesBlocking({I}) of the
//	                    current table (engine.RebuildCustomIndexes)
//	wait-index-builds name=I
//	                    CQLTester.waitForIndexBuilds: waits until no build
//	                    of I runs
//	(in names, %n is the current table's bare name, as in statements)
//	snapshots [table=T] Util.listSnapshots(cfs) of the current table (or
//	                    of table T of the keyspace, live or dropped):
//	                    "snapshots: N", then per snapshot "name: ...",
//	                    "table: ..." and "expiring: true|false"
//	                    (TableSnapshot's getTableName and isExpiring); one
//	                    assertion a line
//	snapshots expired   each snapshot's isExpired at the clock's time, one
//	                    "expired: true|false" line (assertion) each
//	node expiration-date-overflow-policy=P
//	                    (with the settings of node below) the fresh node's
//	                    -Dcassandra.expiration_date_overflow_policy is P
//	                    (REJECT, CAP or CAP_NOWARN), where the Java sets
//	                    ExpirationDateOverflowHandling.policy
//	node data-dir=true [auto-snapshot=false] [auto-snapshot-ttl=D]
//	                    (with the settings of node below) the fresh node
//	                    runs on a data directory (in a MemFS), with
//	                    auto_snapshot and auto_snapshot_ttl set
//	commitlog save      (on a node with data-dir=true) the commit log's
//	                    segments are saved aside, as the Java hard-links
//	                    CommitLog.getActiveSegmentNames()
//	commitlog restore point-in-time=D
//	                    the saved segments are replayed (restored) with
//	                    restore_point_in_time the clock's time plus D (D may
//	                    be negative: the time the Java read before it
//	                    slept), as archiver.restorePointInTime and
//	                    CommitLog.resetUnsafe do
//	flush               flush(): every table's memtables become SSTables
//	sstable-stats [count] figures=(F,...)
//	                    SSTableMetadataTrackingTest's reads of
//	                    cfs.getLiveSSTables() and each SSTable's
//	                    StatsMetadata, through engine.SSTables: with count,
//	                    a first line "sstables: N" (assertEquals(N,
//	                    getLiveSSTables().size())), then for each live
//	                    SSTable, oldest first, one line "F: V" per figure
//	                    (minTimestamp, maxTimestamp, minLocalDeletionTime,
//	                    maxLocalDeletionTime). A local deletion time prints
//	                    as Cassandra's int: 2147483647 (Integer.MAX_VALUE,
//	                    Cell.NO_DELETION_TIME) for none, and "now" when it is
//	                    the harness clock's second. Each line is one
//	                    assertion
//	compact             compact(): every table is compacted
//	compact async       CompactionManager.submitMaximal(cfs): the current
//	                    table's major compaction starts in the background
//	compact wait        waitOnFutures of it: it must finish, or stop
//	                    because its table was dropped (the Java's
//	                    CompactionInterruptedException); counted
//	node compaction-throughput=N
//	                    (with the settings of node below) compactions are
//	                    paced to N MiB/s (setCompactionThroughput...)
//	clock advance=D     advances the clock, where the Java test sleeps
//	succeeds            the statements execute without an error: the
//	                    assertion of a Java test that only runs them (a
//	                    JUnit test passes when nothing throws); counted
//	recreate-described from=A to=B
//	                    runs the DESCRIBE statement of the input, replaces A
//	                    by B in the first row's create_statement and executes
//	                    that, as KeywordTestBase re-creates a described table
//	                    in another keyspace; counted: the text must execute
//	execute batch=T     (also succeeds and error) the input's statements are
//	                    sent as one protocol BATCH of type T (LOGGED,
//	                    UNLOGGED or COUNTER), each statement with "? " values
//	                    prepared and bound, as the driver's BatchStatement of
//	                    bound statements and QueryProcessor.processBatch
//	                    send them
//	now-in-seconds=now+N
//	                    (on execute, succeeds, rows, empty and row-count) the
//	                    statements run with the query option nowInSeconds
//	                    (protocol v5's now_in_seconds; QueryOptions.create's
//	                    last argument in CustomNowInSecondsTest) set to the
//	                    clock's time in seconds plus N (N may be negative)
//	node [tombstone-failure-threshold=N] [materialized-views=false]
//	     [mv-allow-filtering-nonkey-columns-unsafe=true] [auto-compaction=false]
//	     [drop-compact-storage=false] [scripted-udfs=false] [datacenter=DC]
//	                    goes on on a fresh node (no table or view of the
//	                    script's earlier blocks, as after CQLTester's cleanup)
//	                    with those settings, where the Java sets them
//	                    (DatabaseDescriptor, in its @BeforeClass or a test;
//	                    auto-compaction=false is disableCompaction;
//	                    drop-compact-storage=false is
//	                    setEnableDropCompactStorage(false);
//	                    scripted-udfs=false is
//	                    enableScriptedUserDefinedFunctions(false); datacenter=DC is
//	                    the node's data center, as the snitch the Java
//	                    installs with DatabaseDescriptor.setEndpointSnitch
//	                    reports it)
//	node partitioner=NAME
//	                    (with the settings above) the fresh node, and every
//	                    later one of the script, runs on partitioner NAME
//	                    (ByteOrderedPartitioner or Murmur3Partitioner, the
//	                    default), where the Java's @BeforeClass calls
//	                    DatabaseDescriptor.setPartitionerUnsafe (or
//	                    StorageService's); a class on the
//	                    ByteOrderedPartitioner starts with this directive
//	node virtual-keyspace=NAME
//	                    (with the settings above) the fresh node has the
//	                    virtual keyspace the Java test registers before its
//	                    node starts, built in Go by the fixture NAME
//	                    (virtual_fixture_test.go)
//	node auth=true      (with the settings above) the fresh node runs
//	                    PasswordAuthenticator and CassandraAuthorizer, as a
//	                    node with authenticator and authorizer set in
//	                    cassandra.yaml: the script's statements run as the
//	                    superuser cassandra unless a directive says as=R
//	... as=R            (on execute, succeeds, rows, empty and error) the
//	                    statements run in a session of role R, which logs
//	                    in first with the password R (the script creates R
//	                    WITH LOGIN = true AND PASSWORD = 'R'), as a client
//	                    logged in as R: every statement is authorized for R
//
//	... each=(v:from:to, ...)
//	                    (on any directive) runs it once per binding of the
//	                    variables, with $(expr) in its input and expected
//	                    output replaced; threads=v runs v's iterations at
//	                    once (cassandra_each_test.go documents both)
//
// A statement's bind values (execute(query, values...)) follow it on a line
// that starts with "? ": CQL literals separated by commas, with the words
// unset and null. An assertion that minicass answers differently on purpose
// carries diff=ANCHOR, naming its entry in docs/compatibility.md: the harness
// then checks that the answer still differs, and counts it as a difference.
// An execute block with diff=ANCHOR is a setup statement minicass refuses on
// purpose: it counts nothing, but must still fail (the assertions that read
// what it would have written carry the diff).
// An assertion minicass does not pass yet, and that is no deliberate
// difference, carries fails=REASON, listed under "Known failures" in
// docs/conformance.md: the harness checks that it still fails and counts it
// as failing, so the table never shows it as passing.
//
// The harness's now() makes fixed time UUIDs (conformanceUUIDNode): the
// clock's time, each call one 100ns tick after the previous.
//
// repeat(N,XX) stands for N bytes 0xXX, in statements, bind values and the
// expected rows (as types.Format prints them in a text value), for the large values the Java test builds in code
// (CollectionsTest's 65,545-byte strings, new String(bytes) of a filled
// array).
//
// zeros(N) binds N zero bytes (CQLTester's TOO_BIG; inside a collection
// literal, a blob of N zero bytes), and a 0x literal bound
// to a type other than blob binds those bytes as they are.
//
// With MINICASS_CONFORMANCE_REPORT=1 a failed assertion is logged rather than
// failing the test, and each script's tally is logged: that is how the
// figures in docs/conformance.md are measured.
func TestCassandraConformance(t *testing.T) {
	tallies := runConformance(t, "testdata/cassandra")
	checkConformanceTable(t, tallies)
}

// conformanceTally counts one script's methods and assertions.
type conformanceTally struct {
	methods, assertions, passed, differences, failing int
}

const conformanceKeyspace = "cql_test_keyspace"

func runConformance(t *testing.T, dir string) map[string]conformanceTally {
	report := os.Getenv("MINICASS_CONFORMANCE_REPORT") != ""
	tallies := map[string]conformanceTally{}
	datadriven.Walk(t, dir, func(t *testing.T, path string) {
		h := &conformanceHarness{t: t, report: report}
		h.startNode(engine.Options{}, Options{MaterializedViewsEnabled: true, DropCompactStorageEnabled: true, UserDefinedFunctionsEnabled: true, ScriptedUserDefinedFunctionsEnabled: true}) // CQLTester's test/conf/cassandra.yaml enables DROP COMPACT STORAGE, and CQLTester enables (scripted) UDFs
		datadriven.RunTest(t, path, h.run)
		name := conformanceKey(path)
		tallies[name] = h.tally
		if report {
			t.Logf("%s: %d methods, %d assertions, %d passed, %d differences, %d failing", name, h.tally.methods, h.tally.assertions, h.tally.passed, h.tally.differences, h.tally.failing)
		}
	})
	return tallies
}

// conformanceKey names a script by its directory and class
// ("operations/DeleteTest"), as docs/conformance.md's rows do with their class
// and directory cells: two Java classes of one name in different folders
// (cql3/DeleteTest and validation/operations/DeleteTest) are two rows.
func conformanceKey(path string) string {
	dir := filepath.Base(filepath.Dir(path))
	return dir + "/" + strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// startNode gives the harness a session on a fresh node with opts (and the
// harness's clock), in the keyspace cql_test_keyspace.
func (h *conformanceHarness) startNode(opts engine.Options, xo Options) {
	h.s = newConformanceSession(h.t, opts, xo)
	h.mustRun(fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", conformanceKeyspace))
	h.s.SetKeyspace(conformanceKeyspace)
}

// startAuthNode is startNode on a node with PasswordAuthenticator and
// CassandraAuthorizer, whose session is the superuser cassandra's.
func (h *conformanceHarness) startAuthNode(opts engine.Options, xo Options) {
	x := newConformanceSession(h.t, opts, xo).Executor()
	ctx := context.Background()
	require.NoError(h.t, x.EnableAuthentication(ctx, AuthOptions{Superusers: map[string]string{"cassandra": "cassandra"}, LogRounds: 4, Authorizer: CassandraAuthorizer}))
	require.NoError(h.t, x.Authenticate(ctx, "cassandra", "cassandra"))
	h.s = x.NewUserSession("cassandra")
	h.mustRun(fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", conformanceKeyspace))
	h.s.SetKeyspace(conformanceKeyspace)
}

// login is the session of role, which logs in (with its name as password)
// the first time, in the keyspace cql_test_keyspace.
func (h *conformanceHarness) login(t *testing.T, role string) *Session {
	if s, ok := h.logins[role]; ok {
		return s
	}
	x := h.s.Executor()
	require.NoError(t, x.Authenticate(context.Background(), role, role), "as=%s: the role logs in with the password %s", role, role)
	s := x.NewUserSession(role)
	s.SetKeyspace(conformanceKeyspace)
	if h.logins == nil {
		h.logins = map[string]*Session{}
	}
	h.logins[role] = s
	return s
}

// conformanceSavedLog is the directory "commitlog save" copies the
// commit-log segments into, in the node's filesystem.
const conformanceSavedLog = "saved-commitlog"

// newConformanceSession is a session on a fresh in-memory node with the
// engine settings opts and the executor settings xo (materialized views
// enabled in CQLTester's node).
func newConformanceSession(t testing.TB, opts engine.Options, xo Options) *Session {
	opts.Clock = engine.NewManualClock(testEpoch)
	if opts.IndexClasses == nil {
		opts.IndexClasses = conformanceIndexClasses()
	}
	eng, err := engine.Open(opts)
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	if xo.MemtableConfigurations == nil {
		xo.MemtableConfigurations, xo.MemtableClasses = conformanceMemtables, conformanceMemtableClasses
	}
	if xo.Triggers == nil {
		xo.Triggers = conformanceTriggers
	}
	x := NewExecutor(eng, xo)
	x.uuid = types.NewTimeUUIDGeneratorAt(conformanceUUIDNode)
	return x.NewSession()
}

// conformanceMemtables are the memtable.configurations of CQLTester's
// test/conf/cassandra.yaml, as far as the tests that name them show them
// (the stored copies of the file predate the section): MemtableQuickTest's
// three, and those CreateTest.testCreateTableWithMemtable and
// AlterTest.testAlterTableWithMemtable select or expect refused, each with
// the class and parameters the expected texts name.
var conformanceMemtables = func() map[string]schema.MemtableConfiguration {
	class := func(s string) *string { return &s }
	return map[string]schema.MemtableConfiguration{
		"skiplist":                    {Inherits: "default", ClassName: class("SkipListMemtable")},
		"skiplist_sharded":            {ClassName: class("ShardedSkipListMemtable"), Parameters: map[string]string{"serialize_writes": "false", "shards": "4"}},
		"skiplist_sharded_locking":    {Inherits: "skiplist_sharded", Parameters: map[string]string{"serialize_writes": "true"}},
		"skiplist_remapped":           {Inherits: "skiplist"},
		"trie":                        {ClassName: class("TrieMemtable"), Parameters: map[string]string{"shards": "4"}},
		"test_fullname":               {Inherits: "default", ClassName: class("org.apache.cassandra.db.memtable.TestMemtable")},
		"test_shortname":              {ClassName: class("SkipListMemtable"), Parameters: map[string]string{}},
		"test_empty_class":            {ClassName: class("")},
		"test_missing_class":          {Parameters: map[string]string{}},
		"test_unknown_class":          {ClassName: class("NotExisting")},
		"test_invalid_param":          {ClassName: class("SkipListMemtable"), Parameters: map[string]string{"invalid": "throw"}},
		"test_invalid_extra_param":    {ClassName: class("org.apache.cassandra.db.memtable.TestMemtable"), Parameters: map[string]string{"invalid": "throw"}},
		"test_invalid_factory_method": {ClassName: class("org.apache.cassandra.cql3.validation.operations.CreateTest$InvalidMemtableFactoryMethod")},
		"test_invalid_factory_field":  {ClassName: class("org.apache.cassandra.cql3.validation.operations.CreateTest$InvalidMemtableFactoryField")},
	}
}()

// conformanceMemtableClasses are the memtable classes of Cassandra's test
// class path that the configurations name: TestMemtable, whose FACTORY
// takes no parameters. (CreateTest's InvalidMemtableFactory* classes have
// no usable factory, so they stay unknown, which 4.1 answers alike.)
var conformanceMemtableClasses = map[string][]string{"org.apache.cassandra.db.memtable.TestMemtable": nil}

// conformanceUUIDNode is the clock sequence and node of the harness's time
// UUIDs. With it and the harness's clock, which moves only by `clock`, each
// now() of a script is a fixed value, so a script can bind the time UUIDs
// that the Java test reads back from a result (TimeuuidTest's rows[i][1]).
const conformanceUUIDNode = 0x8123456789abcdef

type conformanceHarness struct {
	t      *testing.T
	s      *Session
	report bool
	tables int
	table  string
	method string
	tally  conformanceTally
	// partitioner is the partitioner of the script's nodes, set by a node
	// directive's partitioner=NAME and kept by the later ones (the Java
	// sets it for the whole class, in its @BeforeClass).
	partitioner partitioner.Partitioner
	// nowInSec is the nowInSeconds query option of the directive being run
	// (now-in-seconds=now+N), nil when it has none.
	nowInSec *int64
	// prepared are the statements of prepare blocks, by name.
	prepared map[string]*Prepared
	// exec is the prepared execution of the current directive (prepared=P),
	// nil for a directive that runs its own statement.
	exec *preparedRun
	// logins are the sessions of the roles that as=R logged in, by role.
	logins map[string]*Session
	// compaction is the outcome of the major compaction "compact async"
	// started, nil when none runs.
	compaction chan error
}

// preparedRun is a directive's execution of a prepared statement.
type preparedRun struct {
	name string
	prep *Prepared
	// simple is set for SimpleClient's execution, which does not prepare
	// again after an Unprepared answer.
	simple bool
}

func (h *conformanceHarness) mustRun(q string) {
	_, err := h.s.Query(context.Background(), q, nil)
	require.NoError(h.t, err, q)
}

// run executes one directive and returns its expected output, having compared
// it itself: an assertion's expected text holds Cassandra's answer, which
// rewriting the file must never replace with minicass's.
func (h *conformanceHarness) run(t *testing.T, d *datadriven.TestData) string {
	if d.HasArg("each") {
		return h.runEach(t, d)
	}
	h.nowInSec = nil
	if d.HasArg("now-in-seconds") {
		var spec string
		d.ScanArgs(t, "now-in-seconds", &spec)
		off, err := strconv.ParseInt(strings.TrimPrefix(spec, "now"), 10, 64)
		require.NoError(t, err, "now-in-seconds=%s: want now+N or now-N", spec)
		now := h.s.x.env.Engine.Clock().Now().Unix() + off
		h.nowInSec = &now
	}
	h.exec = nil
	if d.HasArg("prepared") {
		var name string
		d.ScanArgs(t, "prepared", &name)
		prep, ok := h.prepared[name]
		require.True(t, ok, "%s: no prepared statement %s", d.Pos, name)
		h.exec = &preparedRun{name: name, prep: prep, simple: d.HasArg("simple-client")}
	}
	if d.HasArg("as") {
		var role string
		d.ScanArgs(t, "as", &role)
		own := h.s
		h.s = h.login(t, role)
		defer func() { h.s = own }()
	}
	switch d.Cmd {
	case "prepare":
		var name string
		d.ScanArgs(t, "name", &name)
		sts := splitConformanceInput(d.Input)
		require.Len(t, sts, 1, "a prepare has one statement: %s", d.Input)
		text := h.substitute(strings.TrimSuffix(strings.TrimSpace(sts[0].text), ";"))
		var prep *Prepared
		var err error
		if d.HasArg("keyspace") {
			// QueryProcessor.instance.prepare(query, state) with a
			// ClientState whose keyspace is set (none: not set).
			var ks string
			d.ScanArgs(t, "keyspace", &ks)
			if ks == "none" {
				ks = ""
			}
			prep, err = h.s.x.prepare(ks, text)
		} else {
			prep, err = h.s.Prepare(context.Background(), text)
		}
		if err != nil {
			t.Fatalf("%s: %s prepare: %s", d.Pos, h.method, errorText(err))
		}
		if h.prepared == nil {
			h.prepared = map[string]*Prepared{}
		}
		h.prepared[name] = prep
		return d.Expected
	case "method":
		d.ScanArgs(t, "name", &h.method)
		h.tally.methods++
		return d.Expected
	case "node":
		if d.HasArg("partitioner") {
			var name string
			d.ScanArgs(t, "partitioner", &name)
			p, ok := partitioner.Parse(name)
			require.True(t, ok, "%s: no partitioner %q", d.Pos, name)
			h.partitioner = p
		}
		opts := engine.Options{Partitioner: h.partitioner}
		if d.HasArg("tombstone-failure-threshold") {
			d.ScanArgs(t, "tombstone-failure-threshold", &opts.TombstoneFailureThreshold)
		}
		xo := Options{MaterializedViewsEnabled: true, DropCompactStorageEnabled: true, UserDefinedFunctionsEnabled: true, ScriptedUserDefinedFunctionsEnabled: true}
		if d.HasArg("scripted-udfs") {
			d.ScanArgs(t, "scripted-udfs", &xo.ScriptedUserDefinedFunctionsEnabled)
		}
		if d.HasArg("materialized-views") {
			d.ScanArgs(t, "materialized-views", &xo.MaterializedViewsEnabled)
		}
		if d.HasArg("mv-allow-filtering-nonkey-columns-unsafe") {
			d.ScanArgs(t, "mv-allow-filtering-nonkey-columns-unsafe", &xo.MaterializedViewsAllowFilteringNonKeyColumnsUnsafe)
		}
		if d.HasArg("drop-compact-storage") {
			d.ScanArgs(t, "drop-compact-storage", &xo.DropCompactStorageEnabled)
		}
		if d.HasArg("datacenter") {
			d.ScanArgs(t, "datacenter", &xo.DataCenter)
		}
		if d.HasArg("compaction-throughput") {
			// DatabaseDescriptor.setCompactionThroughputMebibytesPerSec.
			var mib int64
			d.ScanArgs(t, "compaction-throughput", &mib)
			opts.CompactionThroughput = mib << 20
		}
		if d.HasArg("auto-compaction") {
			auto := true
			d.ScanArgs(t, "auto-compaction", &auto)
			opts.DisableAutoCompaction = !auto
		}
		if d.HasArg("expiration-date-overflow-policy") {
			var name string
			d.ScanArgs(t, "expiration-date-overflow-policy", &name)
			p, ok := ParseExpirationOverflowPolicy(name)
			require.True(t, ok, "%s: no expiration date overflow policy %q", d.Pos, name)
			xo.ExpirationDateOverflowPolicy = p
		}
		if d.HasArg("data-dir") {
			// A node on a data directory (in a MemFS): its drops and
			// truncations take auto snapshots.
			opts.Dir, opts.FS = "node", vfs.NewMem()
		}
		if d.HasArg("auto-snapshot") {
			auto := true
			d.ScanArgs(t, "auto-snapshot", &auto)
			opts.DisableAutoSnapshot = !auto
		}
		if d.HasArg("auto-snapshot-ttl") {
			var ttl string
			d.ScanArgs(t, "auto-snapshot-ttl", &ttl)
			dur, err := time.ParseDuration(ttl)
			require.NoError(t, err)
			opts.AutoSnapshotTTL = dur
		}
		withAuth := false
		if d.HasArg("auth") {
			d.ScanArgs(t, "auth", &withAuth)
		}
		h.logins = nil
		if withAuth {
			h.startAuthNode(opts, xo)
		} else {
			h.startNode(opts, xo)
		}
		if d.HasArg("virtual-keyspace") {
			var name string
			d.ScanArgs(t, "virtual-keyspace", &name)
			h.registerConformanceVirtualKeyspace(t, name)
		}
		return d.Expected
	case "table":
		h.table = fmt.Sprintf("%s.table_%02d", conformanceKeyspace, h.tables)
		h.tables++
		return h.check(t, d, h.execute(d.Input), "")
	case "execute":
		if h.exec != nil {
			got := ""
			if _, err := h.queryPaged(d.Input, 0); err != nil {
				got = "error: " + errorText(err)
			}
			return h.check(t, d, got, "")
		}
		return h.check(t, d, h.executeDirective(t, d), "")
	case "recreate-described":
		h.tally.assertions++
		var from, to string
		d.ScanArgs(t, "from", &from)
		d.ScanArgs(t, "to", &to)
		got := h.recreateDescribed(d.Input, from, to)
		return h.verdict(t, d, got == "", got)
	case "succeeds":
		h.tally.assertions++
		got := h.executeDirective(t, d)
		return h.verdict(t, d, got == "", got)
	case "table-cql":
		// SchemaCQLHelper.getTableMetadataAsCQL(metadata, true, true,
		// true), asserted with actual.contains(expected).
		h.tally.assertions++
		name := h.table
		if d.HasArg("table") {
			d.ScanArgs(t, "table", &name)
		}
		ks, tn, _ := strings.Cut(name, ".")
		tbl, ok := h.s.x.env.Engine.Table(ks, tn)
		require.True(t, ok, "%s: no table %s", d.Pos, name)
		got := describe.TableCQLWith(tbl, describe.TableCQLOptions{DroppedColumns: true, Internals: true, IfNotExists: true})
		want := strings.TrimSuffix(d.Expected, "\n")
		if d.HasArg("trailing-newline") {
			want += "\n"
		}
		want = strings.ReplaceAll(h.substitute(want), "%id", types.UUIDValue(tbl.ID).String())
		return h.verdict(t, d, strings.Contains(got, want), got)
	case "marshal-name":
		// AbstractType.toString() (toString(true) with ignore-freezing) of
		// the input's CQL type, without the package, as
		// FrozenCollectionsTest's clean() strips it.
		h.tally.assertions++
		typ, err := types.ParseType(strings.TrimSpace(d.Input))
		require.NoError(t, err, "%s: %s", d.Pos, d.Input)
		name := types.MarshalName(typ)
		if d.HasArg("ignore-freezing") {
			name = types.MarshalNameIgnoringFreezing(typ)
		}
		return h.check(t, d, strings.ReplaceAll(name, "org.apache.cassandra.db.marshal.", ""), d.Expected)
	case "trigger":
		h.tally.assertions++
		var name string
		d.ScanArgs(t, "name", &name)
		ks, tname, _ := strings.Cut(h.table, ".")
		tbl, ok := h.s.x.env.Engine.Table(ks, tname)
		require.True(t, ok, "%s: no table %s", d.Pos, h.table)
		got := "absent"
		if _, ok := tbl.Trigger(name); ok {
			got = "exists"
		}
		return h.verdict(t, d, got == strings.TrimSpace(d.Expected), got)
	case "stub-index":
		return h.stubIndexDirective(t, d)
	case "fail-init", "rebuild-index", "wait-index-builds":
		return h.indexDirective(t, d)
	case "memtable-empty":
		h.tally.assertions++
		ks, name, _ := strings.Cut(h.table, ".")
		tbl, ok := h.s.x.env.Engine.Table(ks, name)
		require.True(t, ok, "%s: no table %s", d.Pos, h.table)
		st, err := h.s.x.env.Engine.MemtableStats(tbl)
		require.NoError(t, err)
		empty := st.Size == 0 && st.Partitions == 0 && st.Flushing == 0
		return h.verdict(t, d, empty, fmt.Sprintf("the memtable holds %d bytes in %d partitions, %d memtables flushing", st.Size, st.Partitions, st.Flushing))
	case "sstable-stats":
		return h.sstableStats(t, d)
	case "commitlog":
		eng := h.s.x.env.Engine
		switch {
		case d.HasArg("save"):
			// CommitLog.getActiveSegmentNames and their hard links.
			names, err := eng.SaveCommitLog(conformanceSavedLog)
			require.NoError(t, err)
			require.NotEmpty(t, names, "%s: commitlog save: no segment (a node with data-dir=true has a commit log)", d.Pos)
		case d.HasArg("restore"):
			// archiver.restorePointInTime = time; resetUnsafe(false).
			var rel string
			d.ScanArgs(t, "point-in-time", &rel)
			off, err := time.ParseDuration(rel)
			require.NoError(t, err)
			_, err = eng.RestoreCommitLog(context.Background(), conformanceSavedLog, eng.Clock().Now().Add(off))
			require.NoError(t, err)
		default:
			t.Fatalf("%s: commitlog wants save or restore", d.Pos)
		}
		return d.Expected
	case "snapshots":
		return h.snapshots(t, d)
	case "flush":
		require.NoError(t, h.s.x.env.Engine.Flush(context.Background(), "", ""))
		return d.Expected
	case "compact":
		if d.HasArg("async") {
			// CompactionManager.submitMaximal(cfs, ...): the current
			// table's major compaction, in the background.
			ks, name, _ := strings.Cut(h.table, ".")
			h.compaction = make(chan error, 1)
			go func(ch chan error) { ch <- h.s.x.env.Engine.Compact(context.Background(), ks, name) }(h.compaction)
			return d.Expected
		}
		if d.HasArg("wait") {
			// FBUtilities.waitOnFutures(futures), which may only throw
			// CompactionInterruptedException: the compaction finished,
			// or stopped because its table was dropped (ErrNoTable).
			h.tally.assertions++
			require.NotNil(t, h.compaction, "%s: compact wait without compact async", d.Pos)
			err := <-h.compaction
			h.compaction = nil
			got := ""
			if err != nil && !errors.Is(err, engine.ErrNoTable) {
				got = err.Error()
			}
			return h.verdict(t, d, got == "", got)
		}
		require.NoError(t, h.s.x.env.Engine.Flush(context.Background(), "", ""))
		require.NoError(t, h.s.x.env.Engine.Compact(context.Background(), "", ""))
		return d.Expected
	case "clock":
		var adv string
		d.ScanArgs(t, "advance", &adv)
		dur, err := time.ParseDuration(adv)
		require.NoError(t, err)
		advanceClock(h.s, dur)
		return d.Expected
	case "rows", "rows-any-order", "rows-include", "empty", "row-count", "columns", "column-types":
		h.tally.assertions++
		pageSize := 0
		if d.HasArg("page-size") {
			d.ScanArgs(t, "page-size", &pageSize)
		}
		sstables := -1
		if d.HasArg("sstables") {
			d.ScanArgs(t, "sstables", &sstables)
			ks, table, _ := strings.Cut(h.table, ".")
			require.NoError(t, h.s.x.env.Engine.ClearSSTablesPerRead(ks, table))
		}
		res, err := h.queryPaged(d.Input, pageSize)
		if err != nil {
			return h.check(t, d, "error: "+errorText(err)+"\n", d.Expected)
		}
		if sstables >= 0 {
			ks, table, _ := strings.Cut(h.table, ".")
			st, err := h.s.x.env.Engine.TableStats(ks, table)
			require.NoError(t, err)
			if got := st.SSTablesPerRead.Max; got != int64(sstables) {
				return h.verdict(t, d, false, fmt.Sprintf("%d SSTables iterated, not %d, with %d live SSTables", got, sstables, st.SSTableCount))
			}
		}
		var got string
		switch d.Cmd {
		case "rows":
			got = strings.Join(rowLines(res), "\n")
			if d.HasArg("with-columns") {
				names := make([]string, len(res.Columns))
				for i, c := range res.Columns {
					names[i] = c.Name
				}
				got = strings.Join(append([]string{strings.Join(names, " | ")}, rowLines(res)...), "\n")
			}
			if d.HasArg("column-count") {
				var n int
				d.ScanArgs(t, "column-count", &n)
				h.tally.assertions++
				if len(res.Columns) == n {
					h.tally.passed++
				} else {
					h.fail(t, "MISMATCH %s: %s: column-count: expected %d columns, got %d", d.Pos, h.method, n, len(res.Columns))
				}
			}
		case "rows-any-order":
			lines := rowLines(res)
			sort.Strings(lines)
			got = strings.Join(lines, "\n")
			exp := strings.Split(strings.TrimRight(expandExpectedRepeats(d.Expected), "\n"), "\n")
			sort.Strings(exp)
			return h.check(t, d, got, strings.Join(exp, "\n"))
		case "rows-include":
			// Every expected row is among the result's, each matched once;
			// the result may hold others.
			left := map[string]int{}
			for _, l := range rowLines(res) {
				left[l]++
			}
			exp := strings.Split(strings.TrimRight(expandExpectedRepeats(d.Expected), "\n"), "\n")
			var missing []string
			for _, l := range exp {
				if left[l] == 0 {
					missing = append(missing, l)
					continue
				}
				left[l]--
			}
			if len(missing) == 0 {
				return h.check(t, d, strings.Join(exp, "\n"), strings.Join(exp, "\n"))
			}
			return h.check(t, d, "missing:\n"+strings.Join(missing, "\n")+"\nin:\n"+strings.Join(rowLines(res), "\n"), strings.Join(exp, "\n"))
		case "empty":
			got = strings.Join(rowLines(res), "\n")
		case "row-count":
			got = fmt.Sprint(len(res.Rows))
		case "columns":
			names := make([]string, len(res.Columns))
			for i, c := range res.Columns {
				names[i] = c.Name
			}
			got = strings.Join(names, "\n")
		case "column-types":
			names := make([]string, len(res.Columns))
			for i, c := range res.Columns {
				names[i] = c.Type.String()
			}
			got = strings.Join(names, "\n")
		}
		return h.check(t, d, got, expandExpectedRepeats(d.Expected))
	case "warnings":
		h.tally.assertions++
		res, err := h.query(d.Input)
		if err != nil {
			return h.check(t, d, "error: "+errorText(err)+"\n", d.Expected)
		}
		// ClientWarn.getWarnings: each expected line is contained in the
		// warning of its position (assertThat(...).contains), and there
		// are as many; no expected line is assertNull (no warning).
		want := strings.Split(strings.TrimRight(d.Expected, "\n"), "\n")
		if strings.TrimSpace(d.Expected) == "" {
			want = nil
		}
		ok := len(want) == len(res.Warnings)
		for i := 0; ok && i < len(want); i++ {
			ok = strings.Contains(res.Warnings[i], want[i])
		}
		return h.verdict(t, d, ok, strings.Join(res.Warnings, "\n"))
	case "cached":
		h.tally.assertions++
		var id []byte
		if d.HasArg("id") {
			var lit string
			d.ScanArgs(t, "id", &lit)
			b, err := hex.DecodeString(lit)
			require.NoError(t, err, "%s: id=%s is hex", d.Pos, lit)
			id = b
		} else {
			var name string
			d.ScanArgs(t, "name", &name)
			prep := h.prepared[name]
			require.NotNil(t, prep, "%s: no prepared statement %s", d.Pos, name)
			id = prep.ID
		}
		got := "not cached"
		if h.s.x.Lookup(id) != nil {
			got = "cached"
		}
		return h.check(t, d, got, d.Expected)
	case "prepared-id":
		h.tally.assertions++
		var name string
		d.ScanArgs(t, "name", &name)
		prep := h.prepared[name]
		require.NotNil(t, prep, "%s: no prepared statement %s", d.Pos, name)
		return h.check(t, d, hex.EncodeToString(prep.ID), d.Expected)
	case "prepared-count":
		h.tally.assertions++
		return h.check(t, d, strconv.Itoa(h.s.x.PreparedStatements()), d.Expected)
	case "prepare-threads":
		var n int
		d.ScanArgs(t, "threads", &n)
		h.tally.assertions += n + 1
		text := h.substitute(strings.TrimSuffix(strings.TrimSpace(d.Input), ";"))
		var wg sync.WaitGroup
		var ids, cached atomic.Int64
		start := make(chan struct{})
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				p, err := h.s.x.prepare("", text)
				if err != nil || p.ID == nil {
					return
				}
				ids.Add(1)
				if h.s.x.Lookup(p.ID) != nil {
					cached.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		// The block holds every thread's assertNotNull(statementId) and
		// the closing assertTrue(preparedStatementPresentInCache): it
		// passes (n+1 assertions) or fails as a whole.
		got := fmt.Sprintf("statement ids: %d\nall cached: %t", ids.Load(), cached.Load() == ids.Load())
		if got == strings.TrimSpace(d.Expected) {
			h.tally.passed += n
		} else {
			h.tally.assertions -= n
		}
		return h.check(t, d, got, d.Expected)
	case "same-id":
		h.tally.assertions++
		var a, b string
		d.ScanArgs(t, "a", &a)
		d.ScanArgs(t, "b", &b)
		pa, pb := h.prepared[a], h.prepared[b]
		require.True(t, pa != nil && pb != nil, "%s: no prepared statement %s or %s", d.Pos, a, b)
		got := "different"
		if string(pa.ID) == string(pb.ID) {
			got = "same"
		}
		return h.check(t, d, got, d.Expected)
	case "schema-change":
		h.tally.assertions++
		res, err := h.query(d.Input)
		got := ""
		switch {
		case err != nil:
			got = "error: " + errorText(err)
		case res.Change == nil:
			got = "no schema change"
		default:
			got = res.Change.String()
		}
		return h.check(t, d, got, d.Expected)
	case "functions":
		h.tally.assertions++
		sts := splitConformanceInput(d.Input)
		require.Len(t, sts, 1, "a functions block has one statement: %s", d.Input)
		got := ""
		prep, err := h.s.Prepare(context.Background(), h.substitute(strings.TrimSuffix(strings.TrimSpace(sts[0].text), ";")))
		if err != nil {
			got = "error: " + errorText(err)
		} else {
			got = strings.Join(prep.Functions(), "\n")
		}
		return h.check(t, d, got, d.Expected)
	case "trace":
		h.tally.assertions++
		got, err := h.trace(d.Input)
		if err != nil {
			got = "error: " + errorText(err)
		}
		return h.check(t, d, got, d.Expected)
	case "verify-class":
		// UFVerifierTest's verify: new UDFByteCodeVerifier() (with
		// addDisallowedPackage for disallowed-package=P) verifies the
		// input's class; the complaints compare as sets, as the Java's
		// assertEquals of two HashSets does.
		h.tally.assertions++
		var pkgs []string
		if d.HasArg("disallowed-package") {
			var pkg string
			d.ScanArgs(t, "disallowed-package", &pkg)
			pkgs = append(pkgs, pkg)
		}
		complaints, err := javaudf.VerifyClass(d.Input, pkgs...)
		got := strings.Join(sortedLines(complaints), "\n")
		if err != nil {
			got = "error: " + err.Error()
		}
		want := strings.Join(sortedLines(strings.FieldsFunc(d.Expected, func(r rune) bool { return r == '\n' })), "\n")
		return h.verdict(t, d, err == nil && got == want, got)
	case "parses":
		h.tally.assertions++
		_, err := parse(h.substitute(strings.TrimSpace(d.Input)))
		got := ""
		if err != nil {
			got = errorText(err)
		}
		return h.verdict(t, d, err == nil, got)
	case "error":
		h.tally.assertions++
		kind := "InvalidRequest"
		if d.HasArg("kind") {
			d.ScanArgs(t, "kind", &kind)
		}
		var err error
		if d.HasArg("batch") {
			err = h.batch(t, d)
		} else {
			_, err = h.query(d.Input)
		}
		want := strings.TrimSpace(d.Expected)
		ok := false
		got := "no error"
		if err != nil {
			e := query.AsError(err)
			got = errorText(err)
			ok = (kind == "Any" || errorKind(e.Code) == kind) && strings.Contains(e.Message, want)
		}
		return h.verdict(t, d, ok, got)
	}
	t.Fatalf("unknown directive %s", d.Cmd)
	return ""
}

// sortedLines is lines sorted, as a copy.
func sortedLines(lines []string) []string {
	s := append([]string(nil), lines...)
	sort.Strings(s)
	return s
}

// check compares got with want (both without trailing newlines); the empty
// want of an execute block means success.
func (h *conformanceHarness) check(t *testing.T, d *datadriven.TestData, got, want string) string {
	got = strings.TrimRight(got, "\n")
	want = strings.TrimRight(want, "\n")
	if d.Cmd == "execute" && d.HasArg("diff") {
		// A setup statement minicass refuses on purpose: not an
		// assertion, but it must still be refused.
		var anchor string
		d.ScanArgs(t, "diff", &anchor)
		if got == "" {
			h.fail(t, "%s: %s: execute succeeds now: drop diff=%s and its docs/compatibility.md entry", d.Pos, h.method, anchor)
		}
		return d.Expected
	}
	if d.Cmd == "table" || d.Cmd == "execute" || d.Cmd == "prepare" {
		if got != "" {
			t.Fatalf("%s: %s %s: %s", d.Pos, h.method, d.Cmd, got)
		}
		return d.Expected
	}
	return h.verdict(t, d, got == want, got)
}

// verdict records an assertion's outcome: a pass, a documented difference
// (which must still differ), or a failure.
func (h *conformanceHarness) verdict(t *testing.T, d *datadriven.TestData, ok bool, got string) string {
	if d.HasArg("fails") {
		var reason string
		d.ScanArgs(t, "fails", &reason)
		if ok {
			h.fail(t, "%s: %s: passes now: drop fails=%s and its line in docs/conformance.md", d.Pos, h.method, reason)
		} else {
			h.tally.failing++
		}
		return d.Expected
	}
	if d.HasArg("diff") {
		var anchor string
		d.ScanArgs(t, "diff", &anchor)
		if ok {
			h.fail(t, "%s: %s: passes now: drop diff=%s and its docs/compatibility.md entry", d.Pos, h.method, anchor)
		} else {
			h.tally.differences++
		}
		return d.Expected
	}
	if ok {
		h.tally.passed++
	} else {
		h.fail(t, "MISMATCH %s: %s: %s\n%s\nexpected:\n%s\ngot:\n%s", d.Pos, h.method, d.Cmd, d.Input, strings.TrimRight(d.Expected, "\n"), got)
	}
	return d.Expected
}

func (h *conformanceHarness) fail(t *testing.T, format string, args ...any) {
	if h.report {
		t.Logf(format, args...)
		return
	}
	t.Errorf(format, args...)
}

// execute runs each statement of input (one a line, or a multi-line statement
// ending with ';'), returning the first error's text.
func (h *conformanceHarness) execute(input string) string {
	for _, st := range splitConformanceInput(input) {
		if _, err := h.runStatement(st, nil); err != nil {
			return "error: " + errorText(err)
		}
	}
	return ""
}

// executeDirective runs an execute or succeeds block: its statements one by
// one, or as one protocol BATCH with batch=T; it returns the error's text.
func (h *conformanceHarness) executeDirective(t *testing.T, d *datadriven.TestData) string {
	if !d.HasArg("batch") {
		return h.execute(d.Input)
	}
	if err := h.batch(t, d); err != nil {
		return "error: " + errorText(err)
	}
	return ""
}

// recreateDescribed runs the DESCRIBE statement input and executes the
// create_statement of its first row with from replaced by to, returning the
// error's text (empty when it executes).
func (h *conformanceHarness) recreateDescribed(input, from, to string) string {
	res, err := h.query(input)
	if err != nil {
		return "error: " + errorText(err)
	}
	col := -1
	for i, c := range res.Columns {
		if c.Name == "create_statement" {
			col = i
		}
	}
	if col < 0 || len(res.Rows) == 0 {
		return "DESCRIBE gave no create_statement"
	}
	stmt := strings.ReplaceAll(string(res.Rows[0][col]), from, to)
	if _, err := h.s.Query(context.Background(), stmt, nil); err != nil {
		return "error: " + errorText(err) + "\n" + stmt
	}
	return ""
}

// batch sends the block's statements as one protocol BATCH of the type its
// batch argument names.
func (h *conformanceHarness) batch(t *testing.T, d *datadriven.TestData) error {
	var name string
	d.ScanArgs(t, "batch", &name)
	typ, ok := map[string]parser.BatchType{"LOGGED": parser.BatchLogged, "UNLOGGED": parser.BatchUnlogged, "COUNTER": parser.BatchCounter}[name]
	require.True(t, ok, "batch=%s: want LOGGED, UNLOGGED or COUNTER", name)
	ctx := context.Background()
	var entries []BatchEntry
	for _, st := range splitConformanceInput(d.Input) {
		text := h.substitute(strings.TrimSuffix(strings.TrimSpace(st.text), ";"))
		if !st.hasQ {
			entries = append(entries, BatchEntry{Query: text})
			continue
		}
		prep, err := h.s.Prepare(ctx, text)
		if err != nil {
			return err
		}
		entries = append(entries, BatchEntry{Prepared: prep, Values: h.bindValues(prep, st.binds, text)})
	}
	_, err := h.s.Batch(ctx, typ, entries, h.params(nil))
	return err
}

// query runs the one statement of an assertion.
func (h *conformanceHarness) query(input string) (*query.Result, error) {
	return h.queryPaged(input, 0)
}

// queryPaged runs the one statement of an assertion; with a page size above
// 0 it fetches every page, pageSize rows at a time, as the driver does for
// CQLTester's executeNetWithPaging, and returns their rows as one result.
func (h *conformanceHarness) queryPaged(input string, pageSize int) (*query.Result, error) {
	var sts []conformanceStatement
	if h.exec != nil {
		sts = []conformanceStatement{h.preparedStatement(input)}
	} else {
		sts = splitConformanceInput(input)
	}
	require.Len(h.t, sts, 1, "an assertion has one statement: %s", input)
	if pageSize <= 0 {
		return h.runStatement(sts[0], nil)
	}
	p := h.params(&query.Params{PageSize: pageSize})
	var all *query.Result
	for page := 0; ; page++ {
		require.Less(h.t, page, 10000, "paging does not end: %s", input)
		res, err := h.runStatement(sts[0], p)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = res
		} else {
			all.Rows = append(all.Rows, res.Rows...)
		}
		if res.PagingState == nil {
			all.PagingState = nil
			return all, nil
		}
		p = h.params(&query.Params{PageSize: pageSize, PagingState: res.PagingState})
	}
}

// trace prepares the one statement of input, executes it with its bind
// values and tracing on, records the trace as the native protocol's EXECUTE
// does (ExecuteTraceParameters), and returns the recorded session's query
// and bound_var_* parameters, read back from system_traces.sessions.
func (h *conformanceHarness) trace(input string) (string, error) {
	ctx := context.Background()
	sts := splitConformanceInput(input)
	require.Len(h.t, sts, 1, "a trace has one statement: %s", input)
	prep, err := h.s.Prepare(ctx, h.substitute(strings.TrimSuffix(strings.TrimSpace(sts[0].text), ";")))
	if err != nil {
		return "", err
	}
	require.Len(h.t, sts[0].binds, len(prep.Bind), "bind values for %s", prep.Query)
	p := &query.Params{Trace: true}
	for i, lit := range sts[0].binds {
		p.Values = append(p.Values, h.bindLiteral(prep.Bind[i].Type, lit))
	}
	res, err := h.s.ExecutePrepared(ctx, prep, p)
	if err != nil {
		return "", err
	}
	require.NotNil(h.t, res.Trace, "a traced execution returns its trace")
	req := TraceRequest{Command: "QUERY", Request: "Execute CQL3 prepared query", Parameters: ExecuteTraceParameters(prep, p), Thread: "Native-Transport-Requests-1"}
	id, err := h.s.x.RecordTrace(ctx, req, res.Trace)
	if err != nil {
		return "", err
	}
	rs, err := h.s.Query(ctx, fmt.Sprintf("SELECT parameters FROM system_traces.sessions WHERE session_id = %s", id), nil)
	if err != nil {
		return "", err
	}
	require.Len(h.t, rs.Rows, 1, "the trace session %s", id)
	v, err := types.Decode(rs.Columns[0].Type, rs.Rows[0][0])
	require.NoError(h.t, err)
	params := map[string]string{}
	entries, _ := v.([]types.MapEntry)
	for _, e := range entries {
		params[e.Key.(string)] = e.Value.(string)
	}
	lines := []string{"query: " + params["query"]}
	var bound []string
	for k, v := range params {
		if strings.HasPrefix(k, "bound_var_") {
			bound = append(bound, k+": "+v)
		}
	}
	sort.Strings(bound)
	return strings.Join(append(lines, bound...), "\n"), nil
}

// bindLiteral is the bound value of a "? " line's literal for a marker of
// type t: unset, null, or the literal's serialization.
func (h *conformanceHarness) bindLiteral(t types.Type, lit string) query.Value {
	lit = h.substitute(lit)
	switch strings.ToLower(lit) {
	case "unset":
		return query.Value{Unset: true}
	case "null":
		return query.Value{}
	}
	return query.Value{Bytes: h.bindValue(t, lit)}
}

type conformanceStatement struct {
	text  string
	binds []string
	hasQ  bool
	// prep is set for an execution of a prepared statement (prepared=P).
	prep *preparedRun
}

// preparedStatement is the execution of the current directive's prepared
// statement with the values of input, a "? " line or nothing.
func (h *conformanceHarness) preparedStatement(input string) conformanceStatement {
	st := conformanceStatement{text: h.exec.prep.Query, hasQ: true, prep: h.exec}
	if in := strings.TrimSpace(input); in != "" {
		require.True(h.t, strings.HasPrefix(in, "?"), "a prepared execution's input is its values: %s", input)
		st.binds = splitBindValues(strings.TrimSpace(strings.TrimPrefix(in, "?")))
	}
	return st
}

// splitConformanceInput splits input into statements: a line ending a
// statement unless it ends with a BEGIN BATCH group still open; a "? " line
// gives the preceding statement's bind values.
func splitConformanceInput(input string) []conformanceStatement {
	var out []conformanceStatement
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, conformanceStatement{text: strings.Join(cur, "\n")})
			cur = nil
		}
	}
	for _, line := range strings.Split(input, "\n") {
		trimmed := strings.TrimSpace(line)
		if len(cur) > 0 && inStringLiteral(strings.Join(cur, "\n")) {
			// A string ('...' or $$...$$) still open continues on this
			// line, blank or not: a function body may span lines.
			cur = append(cur, line)
			if !inStringLiteral(strings.Join(cur, "\n")) {
				flush()
			}
			continue
		}
		if trimmed == "" {
			continue
		}
		if strings.HasPrefix(trimmed, "? ") || trimmed == "?" {
			flush()
			last := &out[len(out)-1]
			last.hasQ = true
			last.binds = splitBindValues(strings.TrimSpace(strings.TrimPrefix(trimmed, "?")))
			continue
		}
		cur = append(cur, line)
		if inStringLiteral(strings.Join(cur, "\n")) {
			continue
		}
		joined := strings.ToUpper(strings.Join(cur, " "))
		if strings.HasPrefix(strings.TrimSpace(joined), "BEGIN") && !strings.Contains(joined, "APPLY BATCH") {
			continue
		}
		flush()
	}
	flush()
	return out
}

// inStringLiteral reports whether s ends inside a CQL string: a '...'
// literal (a doubled quote inside it) or a $$...$$ one.
func inStringLiteral(s string) bool {
	const (
		none = iota
		single
		dollar
	)
	state := none
	for i := 0; i < len(s); i++ {
		switch state {
		case none:
			if s[i] == '\'' {
				state = single
			} else if strings.HasPrefix(s[i:], "$$") {
				state = dollar
				i++
			}
		case single:
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					i++
				} else {
					state = none
				}
			}
		case dollar:
			if strings.HasPrefix(s[i:], "$$") {
				state = none
				i++
			}
		}
	}
	return state != none
}

// splitBindValues splits a list of CQL literals at the commas outside quotes,
// brackets and parentheses.
func splitBindValues(s string) []string {
	var out []string
	depth, start := 0, 0
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '[' || c == '{' || c == '(':
			depth++
		case c == ']' || c == '}' || c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// runStatement runs one statement with its bind values; paging, when not
// nil, gives the page size and state (its Values are replaced).
func (h *conformanceHarness) runStatement(st conformanceStatement, paging *query.Params) (*query.Result, error) {
	ctx := context.Background()
	text := h.substitute(strings.TrimSuffix(strings.TrimSpace(st.text), ";"))
	if !st.hasQ {
		return h.s.Query(ctx, text, h.params(paging))
	}
	var prep *Prepared
	var err error
	if st.prep != nil {
		if prep, err = h.lookupPrepared(st.prep); err != nil {
			return nil, err
		}
	} else if prep, err = h.s.Prepare(ctx, text); err != nil {
		return nil, err
	}
	p := h.params(&query.Params{Values: h.bindValues(prep, st.binds, text)})
	if paging != nil {
		p.PageSize, p.PagingState = paging.PageSize, paging.PagingState
	}
	return h.s.ExecutePrepared(ctx, prep, p)
}

// bindValues serializes a prepared statement's bind values, given as CQL
// literals (and the words unset and null).
func (h *conformanceHarness) bindValues(prep *Prepared, binds []string, text string) []query.Value {
	require.Len(h.t, binds, len(prep.Bind), "bind values for %s", text)
	values := make([]query.Value, len(binds))
	for i, lit := range binds {
		values[i] = h.bindLiteral(prep.Bind[i].Type, lit)
	}
	return values
}

// params adds the directive's nowInSeconds option to p (nil for none),
// returning p, or a new Params when p is nil and the option is set.
func (h *conformanceHarness) params(p *query.Params) *query.Params {
	if h.nowInSec == nil {
		return p
	}
	if p == nil {
		p = &query.Params{}
	}
	p.NowInSeconds, p.HasNowInSeconds = *h.nowInSec, true
	return p
}

// lookupPrepared finds the statement of r by its id in the node's cache, as
// an EXECUTE message names it. When the cache no longer holds it (a schema
// change evicted it), SimpleClient gets the node's Unprepared error, and
// the driver prepares the text again in the keyspace it was prepared in.
func (h *conformanceHarness) lookupPrepared(r *preparedRun) (*Prepared, error) {
	if prep := h.s.x.Lookup(r.prep.ID); prep != nil {
		return prep, nil
	}
	if r.simple {
		return nil, unprepared(r.prep.ID)
	}
	prep, err := h.s.x.prepare(r.prep.Keyspace, r.prep.Query)
	if err != nil {
		return nil, err
	}
	r.prep = prep
	h.prepared[r.name] = prep
	return prep, nil
}

var zerosInLiteral = regexp.MustCompile(`zeros\(\d+\)`)

// bindValue serializes a bind value. A list literal may hold null elements,
// which no CQL literal can but a driver sends (CQLTester's list(1, null, 3)).
func (h *conformanceHarness) bindValue(t types.Type, lit string) []byte {
	// zeros(N) is N zero bytes (CQLTester's TOO_BIG buffer), and a 0x literal
	// for a type other than blob is the value's raw bytes (a ByteBuffer the
	// Java test binds as it is).
	if n, ok := strings.CutPrefix(lit, "zeros("); ok {
		size, err := strconv.Atoi(strings.TrimSuffix(n, ")"))
		require.NoError(h.t, err, "bind value %s", lit)
		return make([]byte, size)
	}
	// Inside a collection literal, zeros(N) is a blob literal of N zero
	// bytes ({0: zeros(66560)}, a map the Java test fills with a buffer).
	lit = zerosInLiteral.ReplaceAllStringFunc(lit, func(z string) string {
		n, err := strconv.Atoi(z[len("zeros(") : len(z)-1])
		require.NoError(h.t, err, "bind value %s", z)
		return "0x" + strings.Repeat("00", n)
	})
	if t.Kind != types.Blob && strings.HasPrefix(lit, "0x") {
		b, err := hex.DecodeString(lit[2:])
		require.NoError(h.t, err, "bind value %s", lit)
		return b
	}
	if t.Kind == types.List && strings.HasPrefix(lit, "[") && strings.HasSuffix(lit, "]") {
		var elems [][]byte
		for _, e := range splitBindValues(lit[1 : len(lit)-1]) {
			var b []byte
			if !strings.EqualFold(e, "null") {
				b = h.bindValue(t.Params[0], e)
			}
			elems = append(elems, b)
		}
		return types.EncodeList(elems)
	}
	b, err := types.ParseLiteral(t, lit)
	require.NoError(h.t, err, "bind value %s of type %s", lit, t)
	return b
}

var repeatMacro = regexp.MustCompile(`repeat\((\d+),([0-9a-fA-F]{2})\)`)

// expandRepeats replaces each repeat(N,XX) of s by N bytes 0xXX.
func expandRepeats(s string) string { return replaceRepeats(s, func(r string) string { return r }) }

// expandExpectedRepeats replaces each repeat(N,XX) of an expected output by
// the N bytes as types.Format prints them in a text value (cqlsh's \xNN for a
// control character).
func expandExpectedRepeats(s string) string {
	return replaceRepeats(s, func(r string) string { return types.Format(types.TextType, []byte(r)) })
}

func replaceRepeats(s string, out func(string) string) string {
	if !strings.Contains(s, "repeat(") {
		return s
	}
	return repeatMacro.ReplaceAllStringFunc(s, func(m string) string {
		sub := repeatMacro.FindStringSubmatch(m)
		n, _ := strconv.Atoi(sub[1])
		b, _ := hex.DecodeString(sub[2])
		return out(strings.Repeat(string(b), n))
	})
}

// substitute names the current table: %s and %1$s as keyspace.table, %n as
// the bare table name (currentTable()); it expands repeat(N,XX).
func (h *conformanceHarness) substitute(s string) string {
	s = expandRepeats(s)
	s = strings.ReplaceAll(s, "%1$s", h.table)
	s = strings.ReplaceAll(s, "%s", h.table)
	return strings.ReplaceAll(s, "%n", strings.TrimPrefix(h.table, conformanceKeyspace+"."))
}

func rowLines(res *query.Result) []string {
	if res.Kind != wire.ResultRows {
		return nil
	}
	lines := make([]string, len(res.Rows))
	for r, row := range res.Rows {
		vals := make([]string, len(row))
		for i, v := range row {
			vals[i] = types.Format(res.Columns[i].Type, v)
			if res.Columns[i].Type.Equal(schema.EmptyType) && v != nil {
				// CQLTester compares a value its expected row does not
				// match through the column type's deserializer, and
				// EmptyType's (EmptySerializer) reads the empty value
				// as null.
				vals[i] = "null"
			}
		}
		lines[r] = strings.Join(vals, " | ")
		if lines[r] == "" && len(row) == 1 && row[0] != nil {
			// A row of one empty value (not null) prints as '', so that
			// it is not a blank line, which would read as no row.
			lines[r] = "''"
		}
	}
	return lines
}

func errorText(err error) string {
	e := query.AsError(err)
	return errorKind(e.Code) + ": " + e.Message
}

// errorKind names an error code by the Java exception CQLTester's assertions
// name.
func errorKind(c wire.ErrorCode) string {
	switch c {
	case wire.CodeInvalid:
		return "InvalidRequest"
	case wire.CodeSyntax:
		return "Syntax"
	case wire.CodeConfig:
		return "Configuration"
	case wire.CodeAlreadyExists:
		return "AlreadyExists"
	case wire.CodeFunctionFailure:
		return "FunctionFailure"
	case wire.CodeUnauthorized:
		return "Unauthorized"
	case wire.CodeUnavailable:
		return "Unavailable"
	}
	return c.ExceptionName()
}

// checkConformanceTable compares each script's tally with its row of
// docs/conformance.md.
func checkConformanceTable(t *testing.T, tallies map[string]conformanceTally) {
	if os.Getenv("MINICASS_CONFORMANCE_REPORT") != "" {
		return
	}
	doc, err := os.ReadFile("../docs/conformance.md")
	require.NoError(t, err)
	rows := map[string][]string{}
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) < 7 {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows[cells[1]+"/"+strings.Trim(cells[0], "`")] = cells
	}
	for name, tl := range tallies {
		cells, ok := rows[name]
		if !assertRow(t, ok, "docs/conformance.md has no row for %s", name) {
			continue
		}
		// | class | directory | methods | ported | assertions | passing | differences | failing | ...
		if !assertRow(t, len(cells) >= 9, "docs/conformance.md row %s has too few cells", name) {
			continue
		}
		want := []string{fmt.Sprint(tl.methods), fmt.Sprint(tl.assertions), fmt.Sprint(tl.passed), fmt.Sprint(tl.differences), fmt.Sprint(tl.failing)}
		got := []string{cells[3], cells[4], cells[5], cells[6], cells[7]}
		require.Equal(t, want, got, "docs/conformance.md row %s: ported methods, assertions, passing, differences, failing", name)
	}
}

func assertRow(t *testing.T, ok bool, format string, args ...any) bool {
	if !ok {
		t.Errorf(format, args...)
	}
	return ok
}

// sstableStats runs an sstable-stats directive: it prints the current
// table's live SSTables' StatsMetadata figures and counts each expected
// line as one assertion, compared with the line printed in its place.
func (h *conformanceHarness) sstableStats(t *testing.T, d *datadriven.TestData) string {
	var figures []string
	d.ScanArgs(t, "figures", &figures)
	ks, name, _ := strings.Cut(h.table, ".")
	infos := h.s.x.env.Engine.SSTables(ks, name)
	var got []string
	if d.HasArg("count") {
		got = append(got, fmt.Sprintf("sstables: %d", len(infos)))
	}
	now := h.s.x.env.Engine.Clock().Now().Unix()
	ldt := func(v int64) string {
		switch {
		case v == data.NoDeletionTime:
			return strconv.Itoa(math.MaxInt32)
		case v == now:
			return "now"
		}
		return strconv.FormatInt(v, 10)
	}
	// engine.SSTables lists the newest first; the Java's single SSTable
	// makes the order moot, and oldest first reads as the flushes ran.
	for i := len(infos) - 1; i >= 0; i-- {
		st := infos[i].Stats
		for _, f := range figures {
			var v string
			switch f {
			case "minTimestamp":
				v = strconv.FormatInt(st.MinTimestamp, 10)
			case "maxTimestamp":
				v = strconv.FormatInt(st.MaxTimestamp, 10)
			case "minLocalDeletionTime":
				v = ldt(st.MinLocalDeletionTime)
			case "maxLocalDeletionTime":
				v = ldt(st.MaxLocalDeletionTime)
			default:
				t.Fatalf("%s: sstable-stats: unknown figure %q", d.Pos, f)
			}
			got = append(got, f+": "+v)
		}
	}
	return h.lineVerdicts(t, d, got)
}

// lineVerdicts counts each expected line of d as one assertion, passed when
// got holds the same lines.
func (h *conformanceHarness) lineVerdicts(t *testing.T, d *datadriven.TestData, got []string) string {
	want := strings.Split(strings.TrimRight(d.Expected, "\n"), "\n")
	all := strings.Join(got, "\n")
	for i, w := range want {
		h.tally.assertions++
		h.verdict(t, d, i < len(got) && got[i] == w && len(got) == len(want), all)
	}
	return d.Expected
}

// snapshots runs a snapshots directive: Util.listSnapshots(cfs) of the
// current table (or of table=NAME of the keyspace) and the checks
// AutoSnapshotTest makes of each TableSnapshot, one assertion a line.
func (h *conformanceHarness) snapshots(t *testing.T, d *datadriven.TestData) string {
	ks, name, _ := strings.Cut(h.table, ".")
	if d.HasArg("table") {
		d.ScanArgs(t, "table", &name)
	}
	snaps, err := h.s.x.env.Engine.Snapshots(ks, name)
	require.NoError(t, err)
	var got []string
	if d.HasArg("expired") {
		now := h.s.x.env.Engine.Clock().Now()
		for _, sn := range snaps {
			got = append(got, fmt.Sprintf("expired: %t", sn.IsExpired(now)))
		}
		return h.lineVerdicts(t, d, got)
	}
	got = append(got, fmt.Sprintf("snapshots: %d", len(snaps)))
	for _, sn := range snaps {
		got = append(got, "name: "+sn.Name, "table: "+sn.Table, fmt.Sprintf("expiring: %t", sn.IsExpiring()))
	}
	return h.lineVerdicts(t, d, got)
}
