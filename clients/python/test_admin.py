"""Client suite: the admin endpoint of `minicass serve --admin ADDR
--manual-clock`, driven from Python as a test written in any language would:
a fault reaching the DataStax driver as its typed exception, the manual
clock moving TTLs, a snapshot restored, and the query log read back.

Run: MINICASS_ADMIN_PORT=19044 MINICASS_ADMIN_URL=http://127.0.0.1:19050 \
     /usr/bin/python3 -m unittest -v test_admin.py
.ci/run starts the server first.
"""
import json
import os
import unittest
import urllib.error
import urllib.request

from cassandra import ConsistencyLevel, WriteTimeout, ReadTimeout, Unavailable
from cassandra.cluster import Cluster
from cassandra.policies import RetryPolicy
from cassandra.query import SimpleStatement

HOST = os.environ.get("MINICASS_HOST", "127.0.0.1")
PORT = int(os.environ.get("MINICASS_ADMIN_PORT", "19044"))
ADMIN = os.environ.get("MINICASS_ADMIN_URL", "http://127.0.0.1:19050")


def admin(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(ADMIN + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read() or b"{}")


class NoRetry(RetryPolicy):
    def on_write_timeout(self, *args, **kwargs):
        return self.RETHROW, None

    def on_read_timeout(self, *args, **kwargs):
        return self.RETHROW, None

    def on_unavailable(self, *args, **kwargs):
        return self.RETHROW, None


class AdminSuite(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = Cluster([HOST], port=PORT, connect_timeout=10, default_retry_policy=NoRetry())
        cls.session = cls.cluster.connect()
        s = cls.session
        s.execute("CREATE KEYSPACE IF NOT EXISTS adm WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
        s.execute("CREATE TABLE IF NOT EXISTS adm.kv (k int PRIMARY KEY, v text)")

    @classmethod
    def tearDownClass(cls):
        admin("DELETE", "/faults")
        cls.cluster.shutdown()

    def test_faults(self):
        s = self.session
        ins = s.prepare("INSERT INTO adm.kv (k, v) VALUES (?, ?)")
        fid = admin("POST", "/faults", {
            "prefix": "INSERT INTO adm.kv", "times": 1,
            "error": {"code": "write_timeout", "consistency": "LOCAL_QUORUM", "received": 1, "block_for": 2,
                      "write_type": "SIMPLE"}})["id"]
        self.assertEqual([f["id"] for f in admin("GET", "/faults")], [fid])
        with self.assertRaises(WriteTimeout) as cm:
            s.execute(ins, (1, "a"))
        e = cm.exception
        self.assertEqual(e.consistency, ConsistencyLevel.LOCAL_QUORUM)
        self.assertEqual(e.received_responses, 1)
        self.assertEqual(e.required_responses, 2)
        self.assertEqual(e.write_type, 0)  # WriteType.SIMPLE
        # One shot: the next write lands, and the rule is gone.
        s.execute(ins, (1, "a"))
        self.assertEqual(admin("GET", "/faults"), [])

        admin("POST", "/faults", {"pattern": r"FROM adm\.kv WHERE", "requests": ["query"],
                                  "error": {"code": "read_timeout", "consistency": "ONE", "block_for": 1,
                                            "data_present": True}})
        with self.assertRaises(ReadTimeout) as cm:
            s.execute("SELECT v FROM adm.kv WHERE k = 1")
        self.assertTrue(cm.exception.data_retrieved)
        admin("DELETE", "/faults")
        admin("POST", "/faults", {"query": "SELECT v FROM adm.kv WHERE k = 1", "times": 1,
                                  "error": {"code": "unavailable", "consistency": "ALL", "required": 3, "alive": 1}})
        with self.assertRaises(Unavailable) as cm:
            s.execute("SELECT v FROM adm.kv WHERE k = 1")
        self.assertEqual((cm.exception.required_replicas, cm.exception.alive_replicas), (3, 1))
        self.assertEqual(s.execute("SELECT v FROM adm.kv WHERE k = 1").one().v, "a")

        with self.assertRaises(urllib.error.HTTPError) as cm:
            admin("POST", "/faults", {"pattern": "("})
        self.assertEqual(cm.exception.code, 400)

    def test_clock_moves_ttl(self):
        s = self.session
        before = admin("GET", "/clock")["now"]
        s.execute(SimpleStatement("INSERT INTO adm.kv (k, v) VALUES (10, 'short') USING TTL 60"))
        self.assertIsNotNone(s.execute("SELECT v FROM adm.kv WHERE k = 10").one())
        after = admin("POST", "/clock/advance", {"seconds": 61})["now"]
        self.assertGreater(after, before)
        self.assertIsNone(s.execute("SELECT v FROM adm.kv WHERE k = 10").one())
        self.assertEqual(admin("POST", "/clock/set", {"now": "2030-01-01T00:00:00Z"})["now"], "2030-01-01T00:00:00Z")

    def test_snapshot_and_query_log(self):
        s = self.session
        s.execute("INSERT INTO adm.kv (k, v) VALUES (20, 'kept')")
        snap = admin("POST", "/snapshots")["id"]
        s.execute("INSERT INTO adm.kv (k, v) VALUES (21, 'lost')")
        admin("POST", "/snapshots/%d/restore" % snap)
        self.assertEqual(s.execute("SELECT v FROM adm.kv WHERE k = 20").one().v, "kept")
        self.assertIsNone(s.execute("SELECT v FROM adm.kv WHERE k = 21").one())
        admin("DELETE", "/snapshots/%d" % snap)

        admin("POST", "/querylog/start")
        q = s.prepare("SELECT v FROM adm.kv WHERE k = ?")
        q.consistency_level = ConsistencyLevel.LOCAL_QUORUM
        s.execute(q, (20,))
        entries = [e for e in admin("GET", "/querylog") if e["query"] == "SELECT v FROM adm.kv WHERE k = ?"]
        admin("POST", "/querylog/stop")
        self.assertEqual(len(entries), 1, entries)
        e = entries[0]
        self.assertTrue(e["prepared"])
        self.assertEqual(e["kind"], "SELECT")
        self.assertEqual(e["values"], [20])
        self.assertEqual(e["consistency"], "LOCAL_QUORUM")


if __name__ == "__main__":
    unittest.main()
