// Client suite: the DataStax Node.js driver logging in to a `minicass serve
// --auth cassandra:cassandra` (PasswordAuthenticator).
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
