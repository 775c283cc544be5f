package cql

import "github.com/minicass/minicass/cql/virtual"

// Versions minicass reports to clients (system.local, the shell's banner).
const (
	// ReleaseVersion is the Cassandra release minicass behaves like.
	ReleaseVersion = virtual.ReleaseVersion
	// CQLVersion is the CQL version of Cassandra 4.1.
	CQLVersion = virtual.CQLVersion
)
