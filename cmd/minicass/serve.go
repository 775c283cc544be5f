package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/admin"
	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/nodetool"
	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/server/cqlbackend"
	"github.com/minicass/minicass/studio"
)

// serve runs the CQL native protocol server:
//
//	minicass serve [--listen 127.0.0.1:9042] [--data DIR | --memory] [--auth user:password]
//	               [--config cassandra.yaml] [--log-level info] [--SETTING VALUE ...]
//	               [--admin 127.0.0.1:PORT] [--manual-clock] [--pprof 127.0.0.1:PORT]
//	               [--compaction-cpu-share 0.3]
//
// It binds loopback by default, prints the address it listens on, logs to
// stderr, and shuts down (closing connections, cancelling requests, then
// closing the engine) on SIGINT or SIGTERM; a second signal exits at once.
// The cassandra.yaml settings it takes are listed in config.go, each also
// a flag of the same name and syntax (--commitlog_sync batch,
// --read_request_timeout 5000ms, ...).
// serveCPUShare is serve's default --compaction-cpu-share: a server under
// sustained load keeps each compaction to 0.3 of a core, so that on a small
// machine the foreground keeps the rest. Under bench/steady's 64 clients on
// two cores, paced runs served 1.48x the median throughput of unpaced ones
// at 0.6x the server CPU per operation late in the run (bench/RESULTS.md
// Runs 39, 41 and 51). The library's default (minicass.Options) stays
// unpaced: an embedded test wants its compactions done at full speed.
const serveCPUShare = 0.3

func init() {
	commands["serve"] = command{
		summary: "the CQL native protocol server (--listen, --data DIR | --memory, --auth user:password, --config cassandra.yaml, cassandra.yaml settings as flags)",
		run: func(args []string, io stdio) int {
			stop := make(chan os.Signal, 2)
			signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
			defer signal.Stop(stop)
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				select {
				case <-stop:
					cancel()
				case <-ctx.Done():
					return
				}
				if _, ok := <-stop; ok {
					fmt.Fprintln(io.err, "minicass serve: second signal; exiting without a clean shutdown")
					os.Exit(1)
				}
			}()
			defer cancel()
			return serveMain(ctx, args, io, nil)
		},
	}
}

// logLevels are the values of --log-level.
var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

// serveMain runs the server until ctx is cancelled. ready, when not nil,
// receives the listen address once the server accepts connections.
func serveMain(ctx context.Context, args []string, io stdio, ready chan<- net.Addr) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.err)
	listen := fs.String("listen", "", "address to listen on, host:port (port 0 picks a free port); default rpc_address:native_transport_port, 127.0.0.1:9042")
	dir := fs.String("data", "", "data directory (default: in memory)")
	memory := fs.Bool("memory", false, "keep everything in memory (the default while --data is not given)")
	auth := fs.String("auth", "", "enable password authentication (PasswordAuthenticator) with the superuser user:password")
	config := fs.String("config", "", "a cassandra.yaml file; the flags override its settings")
	logLevel := fs.String("log-level", "info", "the least level logged to stderr: debug, info, warn or error")
	ignoreReplay := fs.Bool("ignore-commitlog-replay-errors", false, "skip damaged commit-log data at startup, logging each range skipped, instead of refusing to start")
	ignoreReplayD := fs.Bool("Dcassandra.commitlog.ignorereplayerrors", false, "the same, as Cassandra's JVM property (-Dcassandra.commitlog.ignorereplayerrors=true)")
	overflowPolicy := fs.String("Dcassandra.expiration_date_overflow_policy", "REJECT", "what a write does whose TTL ends after 2038-01-19T03:14:06Z: REJECT it, CAP its expiration to that date with a client warning, or CAP_NOWARN, as Cassandra's JVM property")
	ui := fs.String("ui", "", "serve the studio, the web view of the database, on the loopback `address` (e.g. 127.0.0.1:7070)")
	adminAddr := fs.String("admin", "", "serve the HTTP/JSON admin endpoint (faults, clock, snapshots, reset, query log) on the loopback `address` (e.g. 127.0.0.1:9050); off by default")
	manualClock := fs.Bool("manual-clock", false, "run the database on a manual clock, stopped at the start time, that the admin endpoint advances and sets")
	allowMissingSchema := fs.Bool("allow-missing-schema", false, "start with an empty schema when the data directory holds data but no schema file (the data is kept)")
	cpuShare := fs.Float64("compaction-cpu-share", serveCPUShare, "pace each compaction to this share of one core's time, besides compaction_throughput (a minicass addition: the throughput counts compressed bytes); 0 does not pace")
	pprofAddr := fs.String("pprof", "", "serve Go's net/http/pprof profiles on the loopback `address` (e.g. 127.0.0.1:6060); off by default")
	var sf settingFlags
	sf.register(fs)
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
	level, ok := logLevels[strings.ToLower(*logLevel)]
	if !ok {
		fmt.Fprintf(io.err, "minicass serve: --log-level %q is not one of debug, info, warn, error\n", *logLevel)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(io.err, &slog.HandlerOptions{Level: level}))

	cfg := defaultServeConfig()
	if *config != "" {
		ignored, err := cfg.loadYAML(*config)
		if err != nil {
			fmt.Fprintf(io.err, "minicass serve: %v\n", err)
			return 2
		}
		if len(ignored) > 0 {
			logger.Warn("ignoring cassandra.yaml settings minicass does not have", "file", *config, "settings", strings.Join(ignored, ", "))
		}
	}
	if err := sf.applyTo(cfg); err != nil {
		fmt.Fprintf(io.err, "minicass serve: %v\n", err)
		return 2
	}
	cfg.listen = *listen
	var superusers map[string]string
	if *auth != "" {
		user, pass, ok := strings.Cut(*auth, ":")
		if !ok || user == "" {
			fmt.Fprintln(io.err, "minicass serve: --auth wants user:password")
			return 2
		}
		superusers = map[string]string{user: pass}
		cfg.authenticator = "PasswordAuthenticator"
		if cfg.authorizer == "" {
			// --auth configures a node as a 4.1 node with both
			// PasswordAuthenticator and CassandraAuthorizer.
			cfg.authorizer = cql.CassandraAuthorizer
		}
	} else if cfg.authenticator == "PasswordAuthenticator" {
		// Cassandra's default superuser role, created at first start.
		superusers = map[string]string{"cassandra": "cassandra"}
	}
	if cfg.authorizer == "" {
		cfg.authorizer = cql.AllowAllAuthorizer
	}
	if cfg.authorizer != cql.AllowAllAuthorizer && superusers == nil {
		// DatabaseDescriptor.applyAuth's check.
		fmt.Fprintf(io.err, "minicass serve: AllowAllAuthenticator can't be used with %s\n", cfg.authorizer)
		return 2
	}
	cfg.db.Dir, cfg.db.Logger = *dir, logger
	cfg.db.IgnoreCommitLogReplayErrors = *ignoreReplay || *ignoreReplayD
	cfg.db.AllowMissingSchema = *allowMissingSchema
	if p, ok := cql.ParseExpirationOverflowPolicy(*overflowPolicy); ok {
		cfg.db.ExpirationDateOverflowPolicy = p
	} else {
		// ExpirationDateOverflowHandling's static initializer.
		logger.Warn(fmt.Sprintf("Invalid expiration date overflow policy: %s. Using default: REJECT", *overflowPolicy))
	}
	if *cpuShare < 0 {
		fmt.Fprintf(io.err, "minicass serve: --compaction-cpu-share %v is negative\n", *cpuShare)
		return 2
	}
	cfg.db.CompactionCPUShare = *cpuShare
	cfg.srv.Logger = logger
	var clock *minicass.ManualClock
	if *manualClock {
		clock = minicass.NewManualClock(time.Now())
		cfg.db.Clock = clock
	}

	db, err := minicass.Open(cfg.db)
	if err != nil {
		fmt.Fprintf(io.err, "minicass serve: %v\n", err)
		return 1
	}
	defer db.Close()
	if *ui != "" {
		st, err := studio.Serve(db, *ui, studio.Options{})
		if err != nil {
			fmt.Fprintf(io.err, "minicass serve: --ui: %v\n", err)
			return 1
		}
		defer st.Close()
		fmt.Fprintf(io.out, "Studio: %s\n", st.URL())
	}
	if *dir != "" {
		// minicass nodetool --data DIR reaches this server's database while
		// it holds DIR.
		if ep, err := nodetool.Serve(db, *dir); err != nil {
			logger.Warn("nodetool endpoint", "err", err)
		} else {
			defer ep.Close()
		}
	}
	l, err := net.Listen("tcp", cfg.listenAddr())
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
	if superusers != nil {
		// PasswordAuthenticator: the --auth user is a superuser role.
		if err := db.Executor().EnableAuthentication(ctx, cql.AuthOptions{Superusers: superusers, Authorizer: cfg.authorizer}); err != nil {
			l.Close()
			fmt.Fprintf(io.err, "minicass serve: %v\n", err)
			return 1
		}
		cfg.srv.Authenticator = backend
	}
	srv := server.New(backend, cfg.srv)
	cqlbackend.ReportClients(db.Executor(), srv)
	if *pprofAddr != "" {
		bound, stopProf, err := servePprof(*pprofAddr)
		if err != nil {
			l.Close()
			fmt.Fprintf(io.err, "minicass serve: --pprof: %v\n", err)
			return 1
		}
		defer stopProf()
		logger.Info("pprof", "addr", bound)
	}
	if *adminAddr != "" {
		ep, err := admin.Listen(*adminAddr, admin.Options{DB: db, Server: srv, Clock: clock})
		if err != nil {
			l.Close()
			fmt.Fprintf(io.err, "minicass serve: --admin: %v\n", err)
			return 1
		}
		defer ep.Close()
		fmt.Fprintf(io.out, "Admin endpoint: %s\n", ep.URL())
	}
	where := "in memory"
	if *dir != "" {
		where = "data in " + *dir
	}
	fmt.Fprintf(io.out, "minicass %s listening on %s (CQL native protocol v3-v5, %s)\n", version, l.Addr(), where)
	logger.Info("listening", "addr", l.Addr().String(), "data", *dir, "commitlog_sync", syncName(cfg.db.CommitLogSync),
		"authenticator", cfg.authenticator, "authorizer", cfg.authorizer)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	if ready != nil {
		ready <- l.Addr()
	}
	select {
	case <-ctx.Done():
		logger.Info("shutting down")
		if err := srv.Close(); err != nil {
			logger.Error("server close", "err", err)
		}
		<-done
		if err := db.Close(); err != nil {
			fmt.Fprintf(io.err, "minicass serve: %v\n", err)
			return 1
		}
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

// syncName is cassandra.yaml's name of a commit-log sync mode.
func syncName(s minicass.CommitLogSync) string {
	if s == minicass.SyncBatch {
		return "batch"
	}
	return "periodic"
}
