// Package plan is what every compiled statement shares: the Plan interface,
// the Env a plan compiles against and runs on (engine, system node, roles),
// the Execution that carries one run's state and executing session, and the
// Compiler that resolves names in the current keyspace and records the
// tables a statement depends on.
//
// A Plan holds no session, role or clock: who runs it, with what values and
// at what time comes with each Execution, so one prepared plan serves every
// session.
package plan
