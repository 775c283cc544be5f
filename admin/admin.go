// Package admin is the HTTP/JSON admin endpoint of `minicass serve --admin
// ADDR`: the test double's powers (fault rules, the manual clock, snapshots
// and reset, the query log) for tests written in any language. It listens
// on loopback addresses only and has no authentication: it is a test tool.
//
// Every request and response body is JSON; errors are {"error": "..."} with
// status 400 (a bad request), 404 (an unknown id) or 409 (a power the
// server was not started with, such as the clock without --manual-clock).
//
//	GET    /faults               the installed rules: [{"id": 1, "hits": 0, "rule": {...}}]
//	POST   /faults               install a rule (see Rule): {"id": 1}
//	DELETE /faults               remove every rule
//	DELETE /faults/{id}          remove one rule
//	GET    /clock                {"now": "2024-01-01T00:00:00Z"} (RFC 3339, nanoseconds)
//	POST   /clock/advance        {"seconds": 3600} or {"duration": "1h"}: {"now": ...}
//	POST   /clock/set            {"now": "2024-01-01T00:00:00Z"}: {"now": ...}
//	POST   /snapshots            take a snapshot of the whole node: {"id": 1}
//	POST   /snapshots/{id}/restore   restore it (it can be restored again)
//	DELETE /snapshots/{id}       release it
//	POST   /reset                restore the empty node
//	POST   /querylog/start       start (or clear) the query log
//	POST   /querylog/stop        stop it
//	GET    /querylog             its entries, oldest first (see Entry)
package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/server"
)

// Options are what the endpoint administers. DB and Server are required;
// Clock is the DB's manual clock, nil when the clock is the real time
// (the clock endpoints then answer 409).
type Options struct {
	DB     *minicass.DB
	Server *server.Server
	Clock  *minicass.ManualClock
	// QueryLogLimit bounds the query log's entries; 0 takes
	// cql.NewQueryLog's default.
	QueryLogLimit int
}

// Handler serves the admin API.
type Handler struct {
	opts Options
	mux  *http.ServeMux

	mu        sync.Mutex
	nextID    int64
	faults    map[int64]*server.Fault
	snapshots map[int64]*minicass.Snapshot
}

// New returns the handler of the admin API over opts.
func New(opts Options) *Handler {
	h := &Handler{opts: opts, mux: http.NewServeMux(), faults: map[int64]*server.Fault{}, snapshots: map[int64]*minicass.Snapshot{}}
	h.mux.HandleFunc("GET /faults", h.listFaults)
	h.mux.HandleFunc("POST /faults", h.addFault)
	h.mux.HandleFunc("DELETE /faults", h.clearFaults)
	h.mux.HandleFunc("DELETE /faults/{id}", h.removeFault)
	h.mux.HandleFunc("GET /clock", h.clock(nil))
	h.mux.HandleFunc("POST /clock/advance", h.clock(h.advance))
	h.mux.HandleFunc("POST /clock/set", h.clock(h.set))
	h.mux.HandleFunc("POST /snapshots", h.snapshot)
	h.mux.HandleFunc("POST /snapshots/{id}/restore", h.restore)
	h.mux.HandleFunc("DELETE /snapshots/{id}", h.release)
	h.mux.HandleFunc("POST /reset", h.reset)
	h.mux.HandleFunc("POST /querylog/start", h.startLog)
	h.mux.HandleFunc("POST /querylog/stop", h.stopLog)
	h.mux.HandleFunc("GET /querylog", h.queryLog)
	return h
}

// ServeHTTP serves one admin request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Close releases the snapshots taken through the endpoint.
func (h *Handler) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, s := range h.snapshots {
		s.Release()
		delete(h.snapshots, id)
	}
}

// ErrNotLoopback is returned by Listen for an address that is not a
// loopback address.
var ErrNotLoopback = errors.New("admin: the admin endpoint listens on loopback addresses only")

// Endpoint is a running admin endpoint.
type Endpoint struct {
	h   *Handler
	srv *http.Server
	l   net.Listener
}

// Listen serves the admin API on addr (host:port, a loopback host; port 0
// picks a free port) until Close.
func Listen(addr string, opts Options) (*Endpoint, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("admin: %w", err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("%w: %q", ErrNotLoopback, addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("admin: %w", err)
	}
	h := New(opts)
	e := &Endpoint{h: h, l: l, srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	go e.srv.Serve(l)
	return e, nil
}

// Addr returns the address the endpoint listens on.
func (e *Endpoint) Addr() net.Addr { return e.l.Addr() }

// URL returns the endpoint's base URL.
func (e *Endpoint) URL() string { return "http://" + e.l.Addr().String() }

// Close stops the endpoint and releases its snapshots; the faults it
// installed stay on the server.
func (e *Endpoint) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := e.srv.Shutdown(ctx)
	e.h.Close()
	return err
}

// httpError is an error with its HTTP status.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

func reply(w http.ResponseWriter, v any, err error) {
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		status := http.StatusInternalServerError
		var he *httpError
		if errors.As(err, &he) {
			status = he.status
		}
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
		return
	}
	if v == nil {
		v = map[string]any{}
	}
	json.NewEncoder(w).Encode(v)
}

// decode reads r's JSON body into v, refusing unknown fields; an empty
// body leaves v as it is.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return badRequest("request body: %v", err)
	}
	return nil
}

func pathID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return 0, badRequest("id %q is not a number", r.PathValue("id"))
	}
	return id, nil
}

func notFound(what string, id int64) error {
	return &httpError{http.StatusNotFound, fmt.Sprintf("no %s with id %d", what, id)}
}

// faultInfo is one installed rule in GET /faults.
type faultInfo struct {
	ID   int64 `json:"id"`
	Hits int64 `json:"hits"`
	Rule Rule  `json:"rule"`
}

func (h *Handler) listFaults(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	installed := h.opts.Server.Faults()
	out := []faultInfo{}
	for id, f := range h.faults {
		if !contains(installed, f) {
			delete(h.faults, id) // used up or removed
			continue
		}
		out = append(out, faultInfo{ID: id, Hits: f.Hits(), Rule: ruleJSON(f.Rule())})
	}
	sortByID(out)
	reply(w, out, nil)
}

func contains(fs []*server.Fault, f *server.Fault) bool {
	for _, g := range fs {
		if g == f {
			return true
		}
	}
	return false
}

func sortByID(fs []faultInfo) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j].ID < fs[j-1].ID; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

func (h *Handler) addFault(w http.ResponseWriter, r *http.Request) {
	var rule Rule
	if err := decode(r, &rule); err != nil {
		reply(w, nil, err)
		return
	}
	sr, err := rule.serverRule()
	if err != nil {
		reply(w, nil, badRequest("%v", err))
		return
	}
	f, err := h.opts.Server.AddFault(sr)
	if err != nil {
		reply(w, nil, badRequest("%v", err))
		return
	}
	reply(w, map[string]int64{"id": keep(h, h.faults, f)}, nil)
}

func (h *Handler) clearFaults(w http.ResponseWriter, r *http.Request) {
	h.opts.Server.ClearFaults()
	h.mu.Lock()
	clear(h.faults)
	h.mu.Unlock()
	reply(w, nil, nil)
}

func (h *Handler) removeFault(w http.ResponseWriter, r *http.Request) {
	f, err := held(h, h.faults, r, "fault", true)
	if err != nil {
		reply(w, nil, err)
		return
	}
	f.Remove()
	reply(w, nil, nil)
}

// clockBody is the body of the clock requests and their answer.
type clockBody struct {
	Now      string   `json:"now,omitempty"`
	Seconds  *float64 `json:"seconds,omitempty"`
	Duration string   `json:"duration,omitempty"`
}

func (h *Handler) clock(op func(c *minicass.ManualClock, b *clockBody) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := h.opts.Clock
		if c == nil {
			reply(w, nil, &httpError{http.StatusConflict, "the clock is the real time: start minicass serve with --manual-clock"})
			return
		}
		if op != nil {
			var b clockBody
			if err := decode(r, &b); err != nil {
				reply(w, nil, err)
				return
			}
			if err := op(c, &b); err != nil {
				reply(w, nil, err)
				return
			}
		}
		reply(w, clockBody{Now: c.Now().UTC().Format(time.RFC3339Nano)}, nil)
	}
}

func (h *Handler) advance(c *minicass.ManualClock, b *clockBody) error {
	var d time.Duration
	switch {
	case b.Seconds != nil && b.Duration != "":
		return badRequest("give seconds or duration, not both")
	case b.Seconds != nil:
		d = time.Duration(*b.Seconds * float64(time.Second))
	case b.Duration != "":
		var err error
		if d, err = time.ParseDuration(b.Duration); err != nil {
			return badRequest("duration: %v", err)
		}
	default:
		return badRequest("give seconds or duration")
	}
	if d < 0 {
		return badRequest("the clock does not go back by advance: use /clock/set")
	}
	c.Advance(d)
	return nil
}

func (h *Handler) set(c *minicass.ManualClock, b *clockBody) error {
	t, err := time.Parse(time.RFC3339Nano, b.Now)
	if err != nil {
		return badRequest("now: %v", err)
	}
	c.Set(t)
	return nil
}

func (h *Handler) snapshot(w http.ResponseWriter, r *http.Request) {
	s, err := h.opts.DB.Snapshot()
	if err != nil {
		reply(w, nil, &httpError{http.StatusConflict, err.Error()})
		return
	}
	reply(w, map[string]int64{"id": keep(h, h.snapshots, s)}, nil)
}

func (h *Handler) restore(w http.ResponseWriter, r *http.Request) {
	s, err := held(h, h.snapshots, r, "snapshot", false)
	if err != nil {
		reply(w, nil, err)
		return
	}
	if err := h.opts.DB.Restore(s); err != nil {
		reply(w, nil, &httpError{http.StatusConflict, err.Error()})
		return
	}
	reply(w, nil, nil)
}

func (h *Handler) release(w http.ResponseWriter, r *http.Request) {
	s, err := held(h, h.snapshots, r, "snapshot", true)
	if err != nil {
		reply(w, nil, err)
		return
	}
	s.Release()
	reply(w, nil, nil)
}

func (h *Handler) reset(w http.ResponseWriter, r *http.Request) {
	if err := h.opts.DB.Reset(); err != nil {
		reply(w, nil, &httpError{http.StatusConflict, err.Error()})
		return
	}
	reply(w, nil, nil)
}

func (h *Handler) startLog(w http.ResponseWriter, r *http.Request) {
	x := h.opts.DB.Executor()
	if l := x.QueryLog(); l != nil {
		l.Clear()
	} else {
		x.EnableQueryLog(cql.NewQueryLog(h.opts.QueryLogLimit))
	}
	reply(w, nil, nil)
}

func (h *Handler) stopLog(w http.ResponseWriter, r *http.Request) {
	h.opts.DB.Executor().DisableQueryLog()
	reply(w, nil, nil)
}

func (h *Handler) queryLog(w http.ResponseWriter, r *http.Request) {
	l := h.opts.DB.Executor().QueryLog()
	if l == nil {
		reply(w, nil, &httpError{http.StatusConflict, "the query log is off: POST /querylog/start"})
		return
	}
	all := r.URL.Query().Get("all") != ""
	out := []Entry{}
	for _, e := range l.Entries() {
		if !all && e.Source != cql.SourceClient {
			continue
		}
		out = append(out, entryJSON(&e))
	}
	reply(w, out, nil)
}

// keep stores v in m (one of the handler's maps) under a new id and
// returns the id.
func keep[T any](h *Handler, m map[int64]T, v T) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.nextID++
	m[h.nextID] = v
	return h.nextID
}

// held returns the value of m (one of the handler's maps) under the id in
// r's path, removing it if remove is set; an unknown id is a 404 naming
// what.
func held[T any](h *Handler, m map[int64]T, r *http.Request, what string, remove bool) (T, error) {
	var zero T
	id, err := pathID(r)
	if err != nil {
		return zero, err
	}
	h.mu.Lock()
	v, ok := m[id]
	if remove {
		delete(m, id)
	}
	h.mu.Unlock()
	if !ok {
		return zero, notFound(what, id)
	}
	return v, nil
}
