package cql

import (
	"github.com/minicass/minicass/cql/auth"
	"github.com/minicass/minicass/cql/virtual"
	"github.com/minicass/minicass/engine"
)

// env is the node a statement compiles against and runs on: the engine
// that holds its schema and data, the node's identity and derived system
// tables, and its roles. A compiled plan keeps none of it; each execution
// brings it.
type env struct {
	Engine *engine.Engine
	System *virtual.Node
	Roles  *auth.Roles
}

// executingSession is the session that runs a statement: its role and its
// current keyspace, which USE changes.
type executingSession interface {
	// User returns the session's role, "" for the anonymous user.
	User() string
	Keyspace() string
	SetKeyspace(ks string)
}
