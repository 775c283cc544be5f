package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/server/cqlbackend"
)

// serve runs the CQL native protocol server:
//
//	minicass serve [--listen 127.0.0.1:9042] [--data DIR | --memory] [--auth user:password]
//
// It binds loopback by default, prints the address it listens on, and shuts
// down cleanly (closing connections, then the engine) on SIGINT or SIGTERM.
func init() {
	commands["serve"] = command{
		summary: "the CQL native protocol v4 server (--listen 127.0.0.1:9042, --data DIR | --memory, --auth user:password)",
		run: func(args []string, io stdio) int {
			stop := make(chan os.Signal, 1)
			signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
			defer signal.Stop(stop)
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				select {
				case <-stop:
					cancel()
				case <-ctx.Done():
				}
			}()
			defer cancel()
			return serveMain(ctx, args, io, nil)
		},
	}
}

// serveMain runs the server until ctx is cancelled. ready, when not nil,
// receives the listen address once the server accepts connections.
func serveMain(ctx context.Context, args []string, io stdio, ready chan<- net.Addr) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.err)
	listen := fs.String("listen", "127.0.0.1:9042", "address to listen on (host:port; port 0 picks a free port)")
	dir := fs.String("data", "", "data directory (default: in memory)")
	memory := fs.Bool("memory", false, "keep everything in memory (the default while --data is not given)")
	auth := fs.String("auth", "", "enable password authentication for user:password")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(io.err, "minicass serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *memory && *dir != "" {
		fmt.Fprintln(io.err, "minicass serve: --data and --memory are exclusive")
		return 2
	}
	var superusers map[string]string
	if *auth != "" {
		user, pass, ok := strings.Cut(*auth, ":")
		if !ok || user == "" {
			fmt.Fprintln(io.err, "minicass serve: --auth wants user:password")
			return 2
		}
		superusers = map[string]string{user: pass}
	}
	db, err := minicass.Open(minicass.Options{Dir: *dir})
	if err != nil {
		fmt.Fprintf(io.err, "minicass serve: %v\n", err)
		return 1
	}
	defer db.Close()
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(io.err, "minicass serve: %v\n", err)
		return 1
	}
	if err := cqlbackend.Announce(db.Executor(), l.Addr()); err != nil {
		l.Close()
		fmt.Fprintf(io.err, "minicass serve: %v\n", err)
		return 1
	}
	backend := cqlbackend.New(db.Executor())
	opts := server.Options{}
	if superusers != nil {
		// PasswordAuthenticator: the --auth user is a superuser role.
		if err := db.Executor().EnableAuthentication(ctx, cql.AuthOptions{Superusers: superusers}); err != nil {
			l.Close()
			fmt.Fprintf(io.err, "minicass serve: %v\n", err)
			return 1
		}
		opts.Authenticator = backend
	}
	srv := server.New(backend, opts)
	cqlbackend.ReportClients(db.Executor(), srv)
	where := "in memory"
	if *dir != "" {
		where = "data in " + *dir
	}
	fmt.Fprintf(io.out, "minicass %s listening on %s (CQL native protocol v4, %s)\n", version, l.Addr(), where)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	if ready != nil {
		ready <- l.Addr()
	}
	select {
	case <-ctx.Done():
		srv.Close()
		<-done
		fmt.Fprintln(io.out, "minicass serve: stopped")
		return 0
	case err := <-done:
		if errors.Is(err, server.ErrServerClosed) {
			return 0
		}
		fmt.Fprintf(io.err, "minicass serve: %v\n", err)
		return 1
	}
}
