package cql

import (
	"context"
	"net"

	"github.com/minicass/minicass/cql/auth"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/virtual"
	"github.com/minicass/minicass/types"
)

// ConnectedClient is one client connection, as system_views.clients shows
// it (see virtual.ConnectedClient).
type ConnectedClient = virtual.ConnectedClient

// HostID returns the node's host id (system.local.host_id).
func (x *Executor) HostID() types.UUIDValue { return x.env.System.HostID() }

// Bootstrap creates the system keyspaces and tables that do not exist yet.
// It writes no rows: system.local, system_schema.*, system_virtual_schema.*
// and system_views.* are computed when read. NewExecutor calls it; calling
// it again is harmless.
func (x *Executor) Bootstrap(ctx context.Context) error { return x.env.System.Bootstrap(ctx) }

// SetNodeAddress sets the address and native protocol port the node is
// reached at (system.local's rpc_address, broadcast_address, listen_address
// and rpc_port), which the next read of system.local shows. The default is
// 127.0.0.1:9042. Drivers connect to rpc_address, so it must be a real
// address: an unspecified one (0.0.0.0, ::) is refused.
func (x *Executor) SetNodeAddress(ctx context.Context, ip net.IP, port int) error {
	if err := x.env.System.SetAddress(ip, port); err != nil {
		return query.Invalidf("%v", err)
	}
	return nil
}

// NodeAddress returns the address and port set by SetNodeAddress.
func (x *Executor) NodeAddress() (net.IP, int) { return x.env.System.Address() }

// SetClients sets the function that lists a server's connections for
// system_views.clients (nil: none).
func (x *Executor) SetClients(clients func() []ConnectedClient) { x.env.System.SetClients(clients) }

// AuthOptions configure EnableAuthentication (see auth.Options).
type AuthOptions = auth.Options

// The authorizers AuthOptions.Authorizer chooses from: AllowAllAuthorizer,
// the default, checks no permission; CassandraAuthorizer keeps them in
// system_auth and checks every statement of a logged-in session.
const (
	AllowAllAuthorizer  = auth.AllowAllAuthorizer
	CassandraAuthorizer = auth.CassandraAuthorizer
)

// EnableAuthentication switches the node to PasswordAuthenticator: role
// passwords become supported options, sessions made with NewUserSession
// carry their role, and Authenticate checks logins against
// system_auth.roles. It creates or updates o.Superusers. With
// o.Authorizer CassandraAuthorizer, every statement of a session made with
// NewUserSession is checked against the permissions of its role; sessions
// without a role (NewSession) are the node's internal ones and are not.
func (x *Executor) EnableAuthentication(ctx context.Context, o AuthOptions) error {
	return x.env.Roles.Enable(ctx, o)
}

// Authenticate checks a login as PasswordAuthenticator does (see
// auth.Roles.Authenticate).
func (x *Executor) Authenticate(ctx context.Context, user, password string) error {
	return x.env.Roles.Authenticate(ctx, user, password)
}
