// Package wire holds the vocabulary of the CQL native protocol v4 that the
// executor (package cql), the frame codec (server/frame) and the server share:
// error codes, result kinds, consistency levels, schema change kinds and
// targets, and the texts Cassandra sends with some of them. Every value here
// is part of the wire format (native_protocol_v4.spec), so the constants must
// never change.
//
// The package imports nothing of the module, so that every layer may use it.
package wire
