package server

import (
	"maps"
	"net"
	"sort"
	"strings"
)

// Client describes one connected client, as Cassandra's ConnectedClient
// does for system_views.clients and nodetool clientstats.
type Client struct {
	// Addr is the client's address and port.
	Addr net.Addr
	// Stage is the handshake stage: "established" (before STARTUP),
	// "authenticating" or "ready".
	Stage string
	// User is the logged-in user: "anonymous" without authentication, ""
	// while authenticating.
	User string
	// ProtocolVersion is the native protocol version spoken (3, 4 or 5).
	ProtocolVersion int
	// Options are the STARTUP options (DRIVER_NAME, DRIVER_VERSION, ...),
	// keys upper-cased; nil before STARTUP.
	Options map[string]string
	// Requests counts the requests received.
	Requests int64
}

// Clients returns the connected clients, ordered by address.
func (s *Server) Clients() []Client {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	out := make([]Client, 0, len(conns))
	for _, c := range conns {
		c.infoMu.Lock()
		cl := Client{Addr: c.nc.RemoteAddr(), ProtocolVersion: int(c.version.Load()), Options: maps.Clone(c.startup), Requests: c.requests.Load()}
		switch c.stage {
		case stateUninitialized:
			cl.Stage = "established"
		case stateAuthentication:
			cl.Stage = "authenticating"
		default:
			cl.Stage, cl.User = "ready", c.user
		}
		if c.srv.opts.Authenticator == nil {
			cl.User = "anonymous" // AuthenticatedUser.ANONYMOUS_USER, from the start
		}
		c.infoMu.Unlock()
		out = append(out, cl)
	}
	sort.Slice(out, func(i, j int) bool { return strings.Compare(out[i].Addr.String(), out[j].Addr.String()) < 0 })
	return out
}
