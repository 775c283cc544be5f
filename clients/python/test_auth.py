"""Client suite: the DataStax Python driver logging in to a `minicass serve
--auth cassandra:cassandra` (PasswordAuthenticator), as cqlsh -u/-p does.

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
            self.assertIn("Only superusers can drop a role with superuser status", str(cm.exception))
        finally:
            cluster.shutdown()

        with self.assertRaises(NoHostAvailable) as cm:
            connect("py_app", "wrong")
        errors = list(cm.exception.errors.values())
        self.assertTrue(any(isinstance(e, AuthenticationFailed) for e in errors), errors)
        self.assertIn("Provided username py_app and/or password are incorrect", str(errors[0]))

    def test_grant_is_refused_by_allow_all_authorizer(self):
        s = self.session
        s.execute("CREATE ROLE IF NOT EXISTS py_reader")
        with self.assertRaises(Exception) as cm:
            s.execute("GRANT SELECT ON ALL KEYSPACES TO py_reader")
        self.assertIn("GRANT operation is not supported by AllowAllAuthorizer", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
