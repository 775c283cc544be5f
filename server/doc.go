// Package server serves the CQL native protocol versions 3, 4 and 5 over
// TCP (v5 with its checksummed, optionally lz4-compressed segments), so that
// unmodified drivers (gocql, the DataStax Python and Node.js drivers, cqlsh)
// talk to a minicass engine. The frame codec lives in package frame.
//
// # The backend interface
//
// The server does not execute CQL. It decodes frames, runs the handshake
// (OPTIONS, STARTUP, optional password authentication, REGISTER) itself, and
// hands QUERY, PREPARE, EXECUTE and BATCH to a Session obtained from the
// Backend, one Session per connection:
//
//	srv := server.New(backend, server.Options{})
//	go srv.ListenAndServe("127.0.0.1:9042")
//	defer srv.Close()
//
// Requests of one connection run concurrently on the connection's worker
// goroutines (at most Options.MaxRequestsPerConn at once; idle workers are
// kept for the next requests, so their grown stacks are reused), and
// responses carry the stream id of their request. Responses that finish
// while another is being written are written together in one syscall; a
// lone response is written at once, with no timer. A Result of kind
// ResultSchemaChange is answered and then pushed as an EVENT (stream -1) to
// every connection that registered for SCHEMA_CHANGE; PublishSchemaChange does
// the same for changes made outside the protocol.
//
// # Errors
//
// An error returned by a Session becomes an ERROR frame:
//
//   - a *Error (frame.Error), found with errors.As, is sent as is;
//   - an error implementing Coded (CQLCode() wire.ErrorCode), such as a
//     *cql.Error, is sent with that code and its Error() text, and the extras
//     of its code come from the optional interfaces AlreadyExistsError,
//     UnpreparedIDError (default: the EXECUTE's id), FunctionFailureError and
//     UnavailableError;
//   - any other error is a Server error (0x0000).
//
// A panic in a Session is recovered and answered with a Server error; it never
// takes the connection or the process down.
//
// # Protocol errors and limits
//
// A frame whose version is not 3, 4 or 5 is answered with a Protocol error
// "Invalid or unsupported protocol version (N); supported versions are
// (3/v3, 4/v4, 5/v5)" on the stream of the request, in version N for v1
// and v2 and in v5 otherwise (as Cassandra's ProtocolVersion.decode does),
// and the connection is closed; drivers then retry lower. A v5 connection
// switches to segments after the reply to STARTUP; a segment whose CRC does
// not match gets Cassandra's fatal protocol error and closes the
// connection. A frame larger than Options.MaxFrameSize (or, before the
// connection is READY, Options.MaxHandshakeFrameSize) gets an Invalid error
// "Request is too big: length N exceeds maximum allowed length M." and a
// malformed frame a Protocol error; both close that connection only. A
// panic while handling any message is recovered and answered with a Server
// error.
//
// # Resource limits
//
// A client cannot make the server hold memory it has not sent: bodies are
// read as their bytes arrive. Before a READY connection's frame is read,
// its length is reserved from the in-flight budget of the client's address
// (MaxRequestDataInFlightPerIP) and the global one (MaxRequestDataInFlight);
// while either is spent the connection is not read, and the bytes return
// when the request is answered. Before READY, frames are limited to
// MaxHandshakeFrameSize and the handshake to HandshakeTimeout. IdleTimeout
// closes connections idle both ways; MaxConnections and MaxConnectionsPerIP
// refuse connections beyond them. Accept errors are logged and retried
// after a pause doubling from 5 ms to 1 s, as net/http does.
//
// # Timeouts and shutdown
//
// Every request runs under a context derived from its connection's, which
// is cancelled when the connection closes or the server shuts down, and
// bounded by the timeout of its statement's kind (RequestTimeouts, told by
// ClassifyStatement from a QUERY's text, by the Session's StatementKinder
// for an EXECUTE). At the deadline the request is answered with Cassandra's
// timeout error for its kind and its context is cancelled; a result
// returned later is dropped. Close waits for running requests at most
// ShutdownTimeout.
package server
