// Client suite: the DataStax Node.js driver logging in to a `minicass serve
// --auth cassandra:cassandra` (PasswordAuthenticator and CassandraAuthorizer).
// Run: MINICASS_AUTH_PORT=9043 node --test test_auth.js (MINICASS_HOST
// defaults to 127.0.0.1). .ci/run starts the server first.
'use strict';

const { test } = require('node:test');
const assert = require('node:assert');
const cassandra = require('cassandra-driver');

const host = process.env.MINICASS_HOST || '127.0.0.1';
const port = Number(process.env.MINICASS_AUTH_PORT || 9043);

function client(user, password) {
  return new cassandra.Client({
    contactPoints: [`${host}:${port}`],
    localDataCenter: 'datacenter1',
    authProvider: new cassandra.auth.PlainTextAuthProvider(user, password),
  });
}

test('a role created over CQL logs in; a wrong password is refused', async () => {
  const admin = client('cassandra', 'cassandra');
  await admin.connect();
  try {
    await admin.execute('DROP ROLE IF EXISTS node_app');
    await admin.execute("CREATE ROLE node_app WITH PASSWORD = 'pw' AND LOGIN = true");
    const rs = await admin.execute('LIST USERS');
    const names = rs.rows.map((r) => r.name);
    assert.ok(names.includes('node_app'), names.join(','));
    assert.ok(names.includes('cassandra'), names.join(','));
  } finally {
    await admin.shutdown();
  }

  const app = client('node_app', 'pw');
  await app.connect();
  const local = await app.execute("SELECT release_version FROM system.local WHERE key = 'local'");
  assert.match(local.first().release_version, /^4\./);
  await app.shutdown();

  const bad = client('node_app', 'wrong');
  await assert.rejects(bad.connect(), (err) => {
    const inner = Object.values(err.innerErrors || {});
    assert.ok(inner.some((e) => /Provided username node_app and\/or password are incorrect/.test(e.message)),
      inner.map((e) => e.message).join('; '));
    return true;
  });
  await bad.shutdown();
});

test('CassandraAuthorizer refuses a role that is not a superuser what Cassandra refuses', async () => {
  const admin = client('cassandra', 'cassandra');
  await admin.connect();
  const app = client('node_user', 'pw');
  try {
    await admin.execute('DROP ROLE IF EXISTS node_user');
    await admin.execute("CREATE ROLE node_user WITH PASSWORD = 'pw' AND LOGIN = true");
    await admin.execute("CREATE KEYSPACE IF NOT EXISTS node_authz WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    await admin.execute('CREATE TABLE IF NOT EXISTS node_authz.t (k int PRIMARY KEY, v int)');
    await app.connect();
    const refused = [
      ["ALTER ROLE cassandra WITH PASSWORD = 'owned'", 'User node_user does not have sufficient privileges to perform the requested operation'],
      ['GRANT cassandra TO node_user', 'User node_user does not have sufficient privileges to perform the requested operation'],
      ['DROP ROLE cassandra', 'User node_user does not have sufficient privileges to perform the requested operation'],
      ['ALTER ROLE node_user WITH SUPERUSER = true', "You aren't allowed to alter your own superuser status or that of a role granted to you"],
      ['SELECT role, salted_hash FROM system_auth.roles', 'User node_user has no SELECT permission on <table system_auth.roles> or any of its parents'],
      ['INSERT INTO node_authz.t (k, v) VALUES (1, 1)', 'User node_user has no MODIFY permission on <table node_authz.t> or any of its parents'],
    ];
    for (const [stmt, msg] of refused) {
      await assert.rejects(app.execute(stmt), (err) => {
        assert.strictEqual(err.code, cassandra.types.responseErrorCodes.unauthorized, stmt);
        assert.strictEqual(err.message, msg, stmt);
        return true;
      });
    }
    await admin.execute('GRANT MODIFY ON node_authz.t TO node_user');
    await app.execute('INSERT INTO node_authz.t (k, v) VALUES (1, 1)', [], { prepare: true });
  } finally {
    await app.shutdown();
    await admin.shutdown();
  }
});
