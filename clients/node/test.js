// Client suite: the DataStax Node.js driver against a running `minicass serve`.
// Run: MINICASS_PORT=9042 node --test test.js (MINICASS_HOST defaults to
// 127.0.0.1). .ci/run starts the server first.
'use strict';

const { test, before, after } = require('node:test');
const assert = require('node:assert');
const cassandra = require('cassandra-driver');

const host = process.env.MINICASS_HOST || '127.0.0.1';
const port = Number(process.env.MINICASS_PORT || 9042);
const ks = 'node_suite';

let client;

before(async () => {
  client = new cassandra.Client({
    contactPoints: [`${host}:${port}`],
    localDataCenter: 'datacenter1',
  });
  await client.connect();
  await client.execute(`DROP KEYSPACE IF EXISTS ${ks}`);
  await client.execute(`CREATE KEYSPACE ${ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
  await client.execute(`CREATE TABLE ${ks}.events (k text, c int, v text, PRIMARY KEY (k, c))`);
});

after(async () => {
  if (client) await client.shutdown();
});

test('system.local describes a Cassandra 4 node', async () => {
  const rs = await client.execute("SELECT release_version, data_center FROM system.local WHERE key = 'local'");
  assert.match(rs.first().release_version, /^4\./);
  assert.strictEqual(rs.first().data_center, 'datacenter1');
});

test('write, then read with paging', async () => {
  const insert = `INSERT INTO ${ks}.events (k, c, v) VALUES (?, ?, ?)`;
  for (let i = 0; i < 25; i++) {
    await client.execute(insert, ['p', i, `v${i}`], { prepare: true });
  }
  const seen = [];
  let pageState;
  let pages = 0;
  do {
    const rs = await client.execute(`SELECT c FROM ${ks}.events WHERE k = ?`, ['p'],
      { prepare: true, fetchSize: 10, pageState });
    rs.rows.forEach((r) => seen.push(r.c));
    pageState = rs.pageState;
    pages++;
  } while (pageState);
  assert.strictEqual(pages, 3);
  assert.deepStrictEqual(seen, Array.from({ length: 25 }, (_, i) => i));
});

test('batch', async () => {
  await client.batch([
    { query: `INSERT INTO ${ks}.events (k, c, v) VALUES (?, ?, ?)`, params: ['b', 1, 'x'] },
    { query: `INSERT INTO ${ks}.events (k, c, v) VALUES (?, ?, ?)`, params: ['b', 2, 'y'] },
  ], { prepare: true });
  const rs = await client.execute(`SELECT v FROM ${ks}.events WHERE k = 'b'`);
  assert.deepStrictEqual(rs.rows.map((r) => r.v), ['x', 'y']);
});

test('INSERT JSON and SELECT JSON', async () => {
  const insert = `INSERT INTO ${ks}.events JSON ?`;
  await client.execute(insert, ['{"k": "j", "c": 1, "v": "one"}'], { prepare: true });
  await client.execute(insert, ['{"k": "j", "c": 2}'], { prepare: true });
  const rs = await client.execute(`SELECT JSON c, v FROM ${ks}.events WHERE k = 'j'`);
  assert.deepStrictEqual(rs.rows.map((r) => r['[json]']), ['{"c": 1, "v": "one"}', '{"c": 2, "v": null}']);
  await assert.rejects(client.execute(insert, ['{"k": "j", "c": "x"}'], { prepare: true }), (err) => {
    assert.strictEqual(err.code, cassandra.types.responseErrorCodes.invalid);
    assert.match(err.message, /Error decoding JSON value for c/);
    return true;
  });
});

test('secondary index', async () => {
  await client.execute(`CREATE TABLE ${ks}.people (id int PRIMARY KEY, city text)`);
  await client.execute(`CREATE INDEX people_city ON ${ks}.people (city)`);
  for (const [id, city] of [[0, 'paris'], [1, 'oslo'], [2, 'paris']]) {
    await client.execute(`INSERT INTO ${ks}.people (id, city) VALUES (?, ?)`, [id, city], { prepare: true });
  }
  const rs = await client.execute(`SELECT id FROM ${ks}.people WHERE city = ?`, ['paris'], { prepare: true });
  assert.deepStrictEqual(rs.rows.map((r) => r.id).sort(), [0, 2]);
  const table = await client.metadata.getTable(ks, 'people');
  assert.deepStrictEqual(table.indexes.map((i) => [i.name, i.target]), [['people_city', 'city']]);
});

test('user-defined type', async () => {
  await client.execute(`CREATE TYPE ${ks}.address (street text, zip int)`);
  await client.execute(`CREATE TABLE ${ks}.places (id int PRIMARY KEY, addr frozen<address>)`);
  await client.execute(`INSERT INTO ${ks}.places (id, addr) VALUES (?, ?)`, [1, { street: 'main', zip: 7 }], { prepare: true });
  const rs = await client.execute(`SELECT addr FROM ${ks}.places WHERE id = 1`);
  assert.deepStrictEqual({ ...rs.first().addr }, { street: 'main', zip: 7 });
});

test('tracing: the trace id in the response leads to system_traces', async () => {
  await client.execute(`INSERT INTO ${ks}.events (k, c, v) VALUES ('t', 1, 'x')`);
  const rs = await client.execute(`SELECT v FROM ${ks}.events WHERE k = 't'`, [], { traceQuery: true });
  assert.strictEqual(rs.first().v, 'x');
  assert.ok(rs.info.traceId, 'the response carries a tracing session id');
  const trace = await client.metadata.getTrace(rs.info.traceId);
  assert.strictEqual(trace.requestType, 'Execute CQL3 query');
  assert.strictEqual(trace.parameters.query, `SELECT v FROM ${ks}.events WHERE k = 't'`);
  assert.strictEqual(typeof trace.duration, 'number');
  const activities = trace.events.map((e) => e.activity);
  assert.ok(activities.some((a) => a.startsWith('Read partition')), activities.join('; '));
  assert.ok(activities.includes('Returned 1 rows'), activities.join('; '));
});

test('materialized view (the server runs with --materialized_views_enabled true)', async () => {
  await client.execute(`CREATE TABLE ${ks}.users (id int PRIMARY KEY, email text, name text)`);
  await client.execute(`CREATE MATERIALIZED VIEW ${ks}.users_by_email AS SELECT email, id, name FROM ${ks}.users
    WHERE email IS NOT NULL AND id IS NOT NULL PRIMARY KEY (email, id)`);
  await client.execute(`INSERT INTO ${ks}.users (id, email, name) VALUES (1, 'ada@example.com', 'Ada')`);
  await client.execute(`UPDATE ${ks}.users SET email = 'ada@example.org' WHERE id = 1`);
  let rs = await client.execute(`SELECT id, name FROM ${ks}.users_by_email WHERE email = 'ada@example.org'`);
  assert.deepStrictEqual(rs.rows.map((r) => [r.id, r.name]), [[1, 'Ada']]);
  rs = await client.execute(`SELECT id FROM ${ks}.users_by_email WHERE email = 'ada@example.com'`);
  assert.strictEqual(rs.rows.length, 0);
  const view = await client.metadata.getMaterializedView(ks, 'users_by_email');
  assert.ok(view, 'view metadata');
  assert.strictEqual(view.tableName, 'users');
  assert.strictEqual(view.whereClause, 'email IS NOT NULL AND id IS NOT NULL');
  assert.strictEqual(view.includeAllColumns, false);
  assert.deepStrictEqual(view.partitionKeys.map((c) => c.name), ['email']);
});

test('system_views.clients lists the driver\'s connections', async () => {
  const rs = await client.execute('SELECT username, driver_name, connection_stage FROM system_views.clients');
  assert.ok(rs.rows.length > 0);
  rs.rows.forEach((r) => {
    assert.strictEqual(r.username, 'anonymous');
    assert.strictEqual(r.connection_stage, 'ready');
  });
  assert.ok(rs.rows.some((r) => /Node\.js/.test(r.driver_name || '')), rs.rows.map((r) => r.driver_name).join(','));
});

test('errors carry Cassandra codes', async () => {
  await assert.rejects(client.execute(`SELECT * FROM ${ks}.nope`), (err) => {
    assert.strictEqual(err.code, cassandra.types.responseErrorCodes.invalid);
    return true;
  });
  await assert.rejects(client.execute(`CREATE TABLE ${ks}.events (k int PRIMARY KEY)`), (err) => {
    assert.strictEqual(err.code, cassandra.types.responseErrorCodes.alreadyExists);
    return true;
  });
});
