package server

import (
	"context"
	"fmt"
	"log/slog"
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
)

// Options configure a Server. The zero value works: every zero field takes
// the default given in its comment.
type Options struct {
	// MaxFrameSize is the largest frame accepted, header included, in bytes.
	// A larger frame gets an Invalid error (0x2200) "Request is too big" and
	// the connection is closed. Default DefaultMaxFrameSize (16 MiB).
	MaxFrameSize int
	// MaxConnections caps the open client connections; a connection beyond
	// it is closed at once, as Cassandra does. Default 0: no limit.
	MaxConnections int
	// MaxRequestsPerConn caps the requests of one connection executing
	// concurrently; further frames wait to be read. Default
	// DefaultMaxRequestsPerConn.
	MaxRequestsPerConn int
	// Authenticator checks logins. Nil disables authentication (Cassandra's
	// AllowAllAuthenticator); non-nil makes STARTUP answer AUTHENTICATE with
	// PasswordAuthenticator, and the Session of a connection is made once
	// its SASL PLAIN credentials pass.
	Authenticator Authenticator
	// Logger receives connection errors and recovered panics. Default: a
	// logger that discards everything.
	Logger *slog.Logger
	// ReadTimeout closes a connection that sends nothing for that long.
	// Default 0: no timeout.
	ReadTimeout time.Duration
	// WriteTimeout bounds the writing of one response. Default 0: no timeout.
	WriteTimeout time.Duration
	// CQLVersion is advertised in SUPPORTED. Default DefaultCQLVersion.
	CQLVersion string
}

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

// EnsureDefaults fills zero fields with their defaults and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.MaxFrameSize <= 0 {
		o.MaxFrameSize = DefaultMaxFrameSize
	}
	if o.MaxRequestsPerConn <= 0 {
		o.MaxRequestsPerConn = DefaultMaxRequestsPerConn
	}
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
	if o.MaxConnections < 0 || o.ReadTimeout < 0 || o.WriteTimeout < 0 {
		return fmt.Errorf("%w: negative MaxConnections, ReadTimeout or WriteTimeout", ErrInvalidOptions)
	}
	return nil
}
