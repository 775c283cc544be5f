package server

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/minicass/minicass/wire"
)

// Defaults applied by Options.EnsureDefaults.
const (
	// DefaultMaxFrameSize is Cassandra 4.1's native_transport_max_frame_size.
	DefaultMaxFrameSize = 16 << 20
	// DefaultMaxRequestsPerConn bounds the requests one connection runs at once.
	DefaultMaxRequestsPerConn = 1024
	// DefaultCQLVersion is the CQL version advertised in SUPPORTED (Cassandra 4.1).
	DefaultCQLVersion = "3.4.6"
	// PasswordAuthenticator is the authenticator class named in AUTHENTICATE.
	PasswordAuthenticator = "org.apache.cassandra.auth.PasswordAuthenticator"
	// DefaultMaxHandshakeFrameSize is the largest frame accepted before the
	// connection is READY (before STARTUP, and while authenticating). The
	// handshake messages (OPTIONS, STARTUP, AUTH_RESPONSE) are a few hundred
	// bytes; 64 KiB leaves room for long SASL tokens.
	DefaultMaxHandshakeFrameSize = 64 << 10
	// DefaultHandshakeTimeout bounds the time from accepting a connection to
	// its READY (or AUTH_SUCCESS).
	DefaultHandshakeTimeout = 10 * time.Second
	// DefaultShutdownTimeout bounds how long Close waits for running
	// requests after cancelling them.
	DefaultShutdownTimeout = 10 * time.Second
)

// Options configure a Server. The zero value works: every zero field takes
// the default given in its comment. The names of cassandra.yaml's settings
// are given where a field is one.
type Options struct {
	// MaxFrameSize is the largest frame accepted, header included, in bytes
	// (native_transport_max_frame_size). A larger frame gets an Invalid
	// error (0x2200) "Request is too big" and the connection is closed.
	// Default DefaultMaxFrameSize (16 MiB).
	MaxFrameSize int
	// MaxHandshakeFrameSize is the largest frame accepted before the
	// connection is READY, so that a client that has not logged in cannot
	// make the server hold large buffers. Default
	// DefaultMaxHandshakeFrameSize (64 KiB).
	MaxHandshakeFrameSize int
	// MaxConnections caps the open client connections
	// (native_transport_max_concurrent_connections); a connection beyond it
	// is closed at once, as Cassandra does. Default 0: no limit.
	MaxConnections int
	// MaxConnectionsPerIP caps the open connections from one client address
	// (native_transport_max_concurrent_connections_per_ip). Default 0: no
	// limit.
	MaxConnectionsPerIP int
	// MaxRequestDataInFlight bounds the bytes of the request frames read
	// and not yet answered, over all connections
	// (native_transport_max_request_data_in_flight). A connection whose next
	// frame does not fit stops reading until earlier requests finish, as
	// Cassandra does by default (native_transport_throw_on_overload false).
	// Default: a tenth of the Go memory limit (debug.SetMemoryLimit,
	// GOMEMLIMIT) when one is set, else 100 MiB (a tenth of 1 GiB).
	MaxRequestDataInFlight int64
	// MaxRequestDataInFlightPerIP is the same bound for the connections of
	// one client address (native_transport_max_request_data_in_flight_per_ip).
	// Default: a fortieth of the Go memory limit when one is set, else
	// 25 MiB.
	MaxRequestDataInFlightPerIP int64
	// MaxRequestsPerConn caps the requests of one connection executing
	// concurrently; further frames wait to be read. Default
	// DefaultMaxRequestsPerConn.
	MaxRequestsPerConn int
	// Authenticator checks logins. Nil disables authentication (Cassandra's
	// AllowAllAuthenticator); non-nil makes STARTUP answer AUTHENTICATE with
	// PasswordAuthenticator, and the Session of a connection is made once
	// its SASL PLAIN credentials pass.
	Authenticator Authenticator
	// Logger receives connection errors, accept errors and recovered
	// panics. Default: a logger that discards everything.
	Logger *slog.Logger
	// IdleTimeout closes a connection that has neither received nor sent
	// anything for that long and runs no request
	// (native_transport_idle_timeout). Default 0: never.
	IdleTimeout time.Duration
	// HandshakeTimeout closes a connection that is not READY that long
	// after it was accepted. Default DefaultHandshakeTimeout (10 s);
	// negative: never.
	HandshakeTimeout time.Duration
	// WriteTimeout bounds the writing of one response. Default 0: no timeout.
	WriteTimeout time.Duration
	// Timeouts bound the execution of each request by statement kind, as
	// cassandra.yaml's *_request_timeout. Zero fields take Cassandra 4.1's
	// defaults (see RequestTimeouts).
	Timeouts RequestTimeouts
	// ShutdownTimeout bounds how long Close waits for running requests
	// after cancelling their contexts; requests still running then are
	// abandoned (their goroutines end when their Session call returns).
	// Default DefaultShutdownTimeout (10 s).
	ShutdownTimeout time.Duration
	// CQLVersion is advertised in SUPPORTED. Default DefaultCQLVersion.
	CQLVersion string
	// FailedLoginDelay is how long a failed login waits for its answer; it
	// doubles with each further failure from the same address within a
	// minute, up to 16 times, and a successful login from the address
	// resets it (login.go). Default DefaultFailedLoginDelay (200 ms); a
	// negative value answers at once, as Cassandra does.
	FailedLoginDelay time.Duration
}

// DefaultFailedLoginDelay is the default of Options.FailedLoginDelay.
const DefaultFailedLoginDelay = 200 * time.Millisecond

// Authenticator checks the credentials of a login, as Cassandra's
// PasswordAuthenticator does. A failure becomes an ERROR as a Session's
// errors do (see the package documentation), except that an error carrying
// no code is a Bad credentials error (0x0100).
type Authenticator interface {
	Authenticate(ctx context.Context, user, password string) error
}

// Passwords is an Authenticator over a fixed set of users and passwords.
type Passwords map[string]string

// Authenticate accepts user if its password is password.
func (p Passwords) Authenticate(_ context.Context, user, password string) error {
	if want, ok := p[user]; !ok || want != password {
		return &Error{Code: wire.CodeBadCredentials, Message: fmt.Sprintf("Provided username %s and/or password are incorrect", user)}
	}
	return nil
}

// defaultInFlight returns the defaults of MaxRequestDataInFlight and its
// per-IP variant: Cassandra's heap/10 and heap/40, with the Go memory limit
// as the heap, or a 1 GiB heap when no limit is set.
func defaultInFlight() (global, perIP int64) {
	heap := int64(1 << 30)
	if l := debug.SetMemoryLimit(-1); l > 0 && l < 1<<50 {
		heap = l
	}
	return heap / 10, heap / 40
}

// EnsureDefaults fills zero fields with their defaults and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.MaxFrameSize <= 0 {
		o.MaxFrameSize = DefaultMaxFrameSize
	}
	if o.MaxHandshakeFrameSize <= 0 {
		o.MaxHandshakeFrameSize = DefaultMaxHandshakeFrameSize
	}
	if o.MaxRequestDataInFlight <= 0 || o.MaxRequestDataInFlightPerIP <= 0 {
		g, ip := defaultInFlight()
		if o.MaxRequestDataInFlight <= 0 {
			o.MaxRequestDataInFlight = g
		}
		if o.MaxRequestDataInFlightPerIP <= 0 {
			o.MaxRequestDataInFlightPerIP = ip
		}
	}
	if o.MaxRequestsPerConn <= 0 {
		o.MaxRequestsPerConn = DefaultMaxRequestsPerConn
	}
	if o.HandshakeTimeout == 0 {
		o.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	o.Timeouts.ensureDefaults()
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.CQLVersion == "" {
		o.CQLVersion = DefaultCQLVersion
	}
	return o
}

// Validate reports options that cannot work.
func (o *Options) Validate() error {
	if o.MaxFrameSize > 256<<20 {
		return fmt.Errorf("%w: MaxFrameSize %d exceeds the protocol limit of 256 MiB", ErrInvalidOptions, o.MaxFrameSize)
	}
	if o.MaxConnections < 0 || o.MaxConnectionsPerIP < 0 || o.IdleTimeout < 0 || o.WriteTimeout < 0 {
		return fmt.Errorf("%w: negative MaxConnections, MaxConnectionsPerIP, IdleTimeout or WriteTimeout", ErrInvalidOptions)
	}
	return o.Timeouts.validate()
}
