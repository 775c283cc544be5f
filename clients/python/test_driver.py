"""Client suite: the DataStax Python driver (Debian package python3-cassandra)
against a running `minicass serve`.

Run: MINICASS_PORT=9042 /usr/bin/python3 -m unittest -v test_driver.py
(MINICASS_HOST defaults to 127.0.0.1.) .ci/run starts the server first, and
runs the suite a second time with MINICASS_COMPRESSION=lz4 (the driver then
compresses v5 segments with the python3-lz4 package).
"""
import os
import unittest

from cassandra import InvalidRequest, AlreadyExists
from cassandra.cluster import Cluster, NoHostAvailable  # noqa: F401
from cassandra.query import SimpleStatement, BatchStatement

HOST = os.environ.get("MINICASS_HOST", "127.0.0.1")
PORT = int(os.environ.get("MINICASS_PORT", "9042"))
KS = "py_suite"
COMPRESSION = os.environ.get("MINICASS_COMPRESSION", "")


class DriverSuite(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # The driver negotiates the protocol version by itself (it steps down
        # from the DSE versions to v5) and loads the schema from
        # system_schema.* (every table must answer).
        cls.cluster = Cluster([HOST], port=PORT, connect_timeout=10, compression=COMPRESSION or False)
        cls.session = cls.cluster.connect()
        cls.session.execute("DROP KEYSPACE IF EXISTS " + KS)
        cls.session.execute(
            "CREATE KEYSPACE " + KS + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
        cls.session.set_keyspace(KS)
        cls.session.execute("CREATE TABLE events (k text, c int, v text, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)")

    @classmethod
    def tearDownClass(cls):
        cls.cluster.shutdown()

    def test_local_and_metadata(self):
        row = self.session.execute("SELECT release_version, cluster_name, partitioner FROM system.local WHERE key='local'").one()
        self.assertTrue(row.release_version.startswith("4."))
        self.assertEqual(row.partitioner, "org.apache.cassandra.dht.Murmur3Partitioner")
        self.cluster.refresh_schema_metadata()
        table = self.cluster.metadata.keyspaces[KS].tables["events"]
        self.assertEqual([c.name for c in table.partition_key], ["k"])
        self.assertEqual([c.name for c in table.clustering_key], ["c"])
        self.assertIn("v", table.columns)

    def test_write_read_paging(self):
        insert = self.session.prepare("INSERT INTO events (k, c, v) VALUES (?, ?, ?)")
        for i in range(30):
            self.session.execute(insert, ("p", i, "v%d" % i))
        stmt = SimpleStatement("SELECT c, v FROM events WHERE k = %s", fetch_size=7)
        result = self.session.execute(stmt, ("p",))
        self.assertTrue(result.has_more_pages)
        cs = [r.c for r in result]  # iterating fetches every page
        self.assertEqual(cs, list(range(29, -1, -1)))

    def test_batch(self):
        batch = BatchStatement()
        batch.add("INSERT INTO events (k, c, v) VALUES (%s, %s, %s)", ("b", 1, "x"))
        batch.add("INSERT INTO events (k, c, v) VALUES (%s, %s, %s)", ("b", 2, "y"))
        self.session.execute(batch)
        rows = list(self.session.execute("SELECT v FROM events WHERE k = 'b'"))
        self.assertEqual([r.v for r in rows], ["y", "x"])

    def test_json(self):
        # INSERT JSON through a prepared statement (the [json] marker), then
        # SELECT JSON back.
        insert = self.session.prepare("INSERT INTO events JSON ?")
        self.session.execute(insert, ('{"k": "j", "c": 1, "v": "one"}',))
        self.session.execute(insert, ('{"k": "j", "c": 2}',))
        rows = [r[0] for r in self.session.execute("SELECT JSON c, v FROM events WHERE k = 'j'")]
        self.assertEqual(rows, ['{"c": 2, "v": null}', '{"c": 1, "v": "one"}'])
        with self.assertRaises(InvalidRequest) as cm:
            self.session.execute(insert, ('{"k": "j", "c": "x"}',))
        self.assertIn("Error decoding JSON value for c", str(cm.exception))

    def test_secondary_index(self):
        self.session.execute("CREATE TABLE people (id int PRIMARY KEY, city text)")
        self.session.execute("CREATE INDEX people_city ON people (city)")
        for i, city in enumerate(["paris", "oslo", "paris"]):
            self.session.execute("INSERT INTO people (id, city) VALUES (%s, %s)", (i, city))
        ids = sorted(r.id for r in self.session.execute("SELECT id FROM people WHERE city = %s", ("paris",)))
        self.assertEqual(ids, [0, 2])
        self.cluster.refresh_schema_metadata()
        index = self.cluster.metadata.keyspaces[KS].tables["people"].indexes["people_city"]
        self.assertEqual(index.index_options.get("target"), "city")
        self.assertIn("CREATE INDEX people_city ON " + KS + ".people (city)", index.as_cql_query())

    def test_user_type(self):
        self.session.execute("CREATE TYPE address (street text, zip int)")
        self.session.execute("CREATE TABLE places (id int PRIMARY KEY, addr frozen<address>)")
        self.session.execute("INSERT INTO places (id, addr) VALUES (1, {street: 'main', zip: 7})")
        # The driver builds a class for the type from system_schema.types.
        row = self.session.execute("SELECT addr FROM places WHERE id = 1").one()
        self.assertEqual((row.addr.street, row.addr.zip), ("main", 7))
        self.cluster.refresh_schema_metadata()
        ut = self.cluster.metadata.keyspaces[KS].user_types["address"]
        self.assertEqual(ut.field_names, ["street", "zip"])
        self.assertEqual(ut.field_types, ["text", "int"])

    def test_tracing(self):
        # cqlsh's TRACING ON: the driver sets the protocol's tracing flag and
        # reads the session back from system_traces by the id the response
        # carries.
        self.session.execute("INSERT INTO events (k, c, v) VALUES ('t', 1, 'x')")
        rs = self.session.execute("SELECT v FROM events WHERE k = 't'", trace=True)
        self.assertEqual(rs.one().v, "x")
        trace = rs.get_query_trace(max_wait_sec=5)
        self.assertEqual(trace.request_type, "Execute CQL3 query")
        self.assertEqual(trace.parameters["query"], "SELECT v FROM events WHERE k = 't'")
        self.assertIsNotNone(trace.duration)
        self.assertEqual(str(trace.coordinator), HOST)
        activities = [e.description for e in trace.events]
        self.assertTrue(any(a.startswith("Read partition") for a in activities), activities)
        self.assertIn("Returned 1 rows", activities)

    def test_protocol_v5(self):
        # The driver settled on v5 without being told, and every one of its
        # connections speaks it, compressed as asked.
        self.assertEqual(self.cluster.protocol_version, 5)
        rows = list(self.session.execute("SELECT protocol_version, client_options FROM system_views.clients"))
        self.assertTrue(rows)
        for r in rows:
            self.assertEqual(r.protocol_version, 5)
            self.assertEqual((r.client_options or {}).get("COMPRESSION", ""), COMPRESSION)

    def test_materialized_view(self):
        # .ci/run starts this server with --materialized_views_enabled true.
        self.session.execute("CREATE TABLE users (id int PRIMARY KEY, email text, name text)")
        self.session.execute(
            "CREATE MATERIALIZED VIEW users_by_email AS SELECT email, id, name FROM users "
            "WHERE email IS NOT NULL AND id IS NOT NULL PRIMARY KEY (email, id)")
        self.session.execute("INSERT INTO users (id, email, name) VALUES (1, 'ada@example.com', 'Ada')")
        self.session.execute("UPDATE users SET email = 'ada@example.org' WHERE id = 1")
        rows = list(self.session.execute("SELECT id, name FROM users_by_email WHERE email = 'ada@example.org'"))
        self.assertEqual([(r.id, r.name) for r in rows], [(1, "Ada")])
        self.assertEqual(list(self.session.execute("SELECT id FROM users_by_email WHERE email = 'ada@example.com'")), [])
        self.cluster.refresh_schema_metadata()
        ks = self.cluster.metadata.keyspaces[KS]
        view = ks.views["users_by_email"]
        self.assertEqual(view.base_table_name, "users")
        self.assertEqual(view.where_clause, "email IS NOT NULL AND id IS NOT NULL")
        self.assertFalse(view.include_all_columns)
        self.assertEqual([c.name for c in view.partition_key], ["email"])
        self.assertIn("users_by_email", ks.tables["users"].views)
        self.assertIn("CREATE MATERIALIZED VIEW", view.export_as_string())
        with self.assertRaises(InvalidRequest):
            self.session.execute("INSERT INTO users_by_email (email, id) VALUES ('x', 2)")

    def test_clients_view(self):
        # The driver's own connections, anonymous (no authentication), with
        # the name it sends in STARTUP.
        rows = list(self.session.execute("SELECT username, driver_name, connection_stage FROM system_views.clients"))
        self.assertTrue(rows)
        for r in rows:
            self.assertEqual(r.username, "anonymous")
            self.assertEqual(r.connection_stage, "ready")
        self.assertIn("DataStax Python Driver", {r.driver_name for r in rows})

    def test_errors(self):
        with self.assertRaises(InvalidRequest) as cm:
            self.session.execute("SELECT * FROM nope")
        self.assertIn("nope", str(cm.exception))
        with self.assertRaises(AlreadyExists):
            self.session.execute("CREATE TABLE events (k int PRIMARY KEY)")
        with self.assertRaises(InvalidRequest):
            self.session.execute("SELECT * FROM events WHERE v = 'x'")


if __name__ == "__main__":
    unittest.main()
