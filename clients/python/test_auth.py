"""Client suite: the DataStax Python driver logging in to a `minicass serve
--auth cassandra:cassandra` (PasswordAuthenticator and CassandraAuthorizer),
as cqlsh -u/-p does, and refused what Cassandra refuses a role that is not a
superuser.

Run: MINICASS_AUTH_PORT=9043 /usr/bin/python3 -m unittest -v test_auth.py
(MINICASS_HOST defaults to 127.0.0.1.) .ci/run starts the server first.
"""
import os
import unittest

from cassandra import AuthenticationFailed, Unauthorized, InvalidRequest
from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import Cluster, NoHostAvailable

HOST = os.environ.get("MINICASS_HOST", "127.0.0.1")
PORT = int(os.environ.get("MINICASS_AUTH_PORT", "9043"))


def connect(user, password):
    cluster = Cluster([HOST], port=PORT, connect_timeout=10,
                      auth_provider=PlainTextAuthProvider(username=user, password=password))
    return cluster, cluster.connect()


class AuthSuite(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster, cls.session = connect("cassandra", "cassandra")

    @classmethod
    def tearDownClass(cls):
        cls.cluster.shutdown()

    def test_roles_and_login(self):
        s = self.session
        s.execute("DROP ROLE IF EXISTS py_app")
        s.execute("CREATE ROLE py_app WITH PASSWORD = 'pw' AND LOGIN = true")
        with self.assertRaises(InvalidRequest) as cm:
            s.execute("CREATE ROLE py_app")
        self.assertIn("py_app already exists", str(cm.exception))
        roles = {r.role: (r.super, r.login) for r in s.execute("LIST ROLES")}
        self.assertEqual(roles["cassandra"], (True, True))
        self.assertEqual(roles["py_app"], (False, True))

        cluster, app = connect("py_app", "pw")
        try:
            self.assertTrue(app.execute("SELECT release_version FROM system.local").one().release_version.startswith("4."))
            with self.assertRaises(Unauthorized) as cm:
                app.execute("DROP ROLE cassandra")
            self.assertIn("User py_app does not have sufficient privileges to perform the requested operation", str(cm.exception))
        finally:
            cluster.shutdown()

        with self.assertRaises(NoHostAvailable) as cm:
            connect("py_app", "wrong")
        errors = list(cm.exception.errors.values())
        self.assertTrue(any(isinstance(e, AuthenticationFailed) for e in errors), errors)
        self.assertIn("Provided username py_app and/or password are incorrect", str(errors[0]))

    def test_permissions_are_enforced(self):
        """CassandraAuthorizer: issue 18's defects are refused with
        Cassandra's texts, and GRANT opens a table to the role."""
        s = self.session
        s.execute("DROP ROLE IF EXISTS py_user")
        s.execute("CREATE ROLE py_user WITH PASSWORD = 'pw' AND LOGIN = true")
        s.execute("CREATE KEYSPACE IF NOT EXISTS py_authz WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
        s.execute("CREATE TABLE IF NOT EXISTS py_authz.t (k int PRIMARY KEY, v int)")
        cluster, app = connect("py_user", "pw")
        try:
            refused = {
                "ALTER ROLE cassandra WITH PASSWORD = 'owned'": "User py_user does not have sufficient privileges to perform the requested operation",
                "GRANT cassandra TO py_user": "User py_user does not have sufficient privileges to perform the requested operation",
                "ALTER ROLE py_user WITH SUPERUSER = true": "You aren't allowed to alter your own superuser status or that of a role granted to you",
                "SELECT role, salted_hash FROM system_auth.roles": "User py_user has no SELECT permission on <table system_auth.roles> or any of its parents",
                "INSERT INTO py_authz.t (k, v) VALUES (1, 1)": "User py_user has no MODIFY permission on <table py_authz.t> or any of its parents",
                "LIST ALL PERMISSIONS": "You are not authorized to view everyone's permissions",
            }
            for stmt, msg in refused.items():
                with self.assertRaises(Unauthorized, msg=stmt) as cm:
                    app.execute(stmt)
                self.assertIn(msg, str(cm.exception), stmt)

            s.execute("GRANT MODIFY ON KEYSPACE py_authz TO py_user")
            s.execute("GRANT SELECT ON py_authz.t TO py_user")
            app.execute("INSERT INTO py_authz.t (k, v) VALUES (1, 1)")
            self.assertEqual(app.execute("SELECT v FROM py_authz.t WHERE k = 1").one().v, 1)
            listed = {(r.role, r.resource, r.permission) for r in app.execute("LIST ALL PERMISSIONS OF py_user")}
            self.assertEqual(listed, {("py_user", "<keyspace py_authz>", "MODIFY"), ("py_user", "<table py_authz.t>", "SELECT")})
        finally:
            cluster.shutdown()
        # The superuser's password did not change.
        connect("cassandra", "cassandra")[0].shutdown()


if __name__ == "__main__":
    unittest.main()
