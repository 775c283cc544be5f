package nodetool

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/minicass/minicass"
)

// nodetool against a live process. Cassandra's nodetool talks to a running
// node over JMX; minicass's process that holds a data directory (its LOCK)
// serves the same commands on a loopback HTTP endpoint, and writes where to
// find it in the data directory, so that `minicass nodetool --data DIR`
// reaches it when it cannot open DIR itself:
//
//	DIR/nodetool.addr    "127.0.0.1:PORT TOKEN\n", written when the
//	                     endpoint starts (mode 0600), removed when it stops
//
// A request is POST /nodetool with the header "Authorization: Bearer TOKEN"
// and the JSON body {"command": "tablestats", "args": ["ks.t"]}; the answer
// is the command's output as text (200), or its error as text (400 for a
// command's error, 401 for a wrong token). The token, 16 random bytes in
// hex, makes the endpoint answer only who can read the data directory, and
// the listener accepts loopback connections only.

// AddrFile is the name, in a data directory, of the file that says where
// the process holding the directory serves nodetool.
const AddrFile = "nodetool.addr"

// Endpoint serves nodetool commands on a DB over loopback HTTP.
type Endpoint struct {
	srv   *http.Server
	ln    net.Listener
	file  string
	token string
	mu    sync.Mutex // one command at a time, as a shell runs them
	done  chan struct{}
}

// request is the body of a nodetool request.
type request struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// Serve starts serving nodetool commands on db at a free loopback port and
// writes the endpoint's address and token to dir/AddrFile. Close stops it
// and removes the file.
func Serve(db *minicass.DB, dir string) (*Endpoint, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("nodetool: listening: %w", err)
	}
	var tok [16]byte
	if _, err := rand.Read(tok[:]); err != nil {
		ln.Close()
		return nil, err
	}
	ep := &Endpoint{ln: ln, file: filepath.Join(dir, AddrFile), token: hex.EncodeToString(tok[:]), done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /nodetool", func(w http.ResponseWriter, r *http.Request) { ep.handle(w, r, db) })
	ep.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	line := ln.Addr().String() + " " + ep.token + "\n"
	if err := os.WriteFile(ep.file, []byte(line), 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("nodetool: writing %s: %w", ep.file, err)
	}
	go func() {
		defer close(ep.done)
		_ = ep.srv.Serve(ln) // returns http.ErrServerClosed on Close
	}()
	return ep, nil
}

// Addr returns the endpoint's address.
func (ep *Endpoint) Addr() string { return ep.ln.Addr().String() }

// Close stops the endpoint and removes its address file.
func (ep *Endpoint) Close() error {
	err := ep.srv.Close()
	<-ep.done
	if rerr := os.Remove(ep.file); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
		err = rerr
	}
	return err
}

// maxRequest bounds a request body.
const maxRequest = 64 << 10

func (ep *Endpoint) handle(w http.ResponseWriter, r *http.Request, db *minicass.DB) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	auth, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if subtle.ConstantTimeCompare([]byte(auth), []byte(ep.token)) != 1 {
		http.Error(w, "nodetool: wrong or missing token", http.StatusUnauthorized)
		return
	}
	var req request
	if err := json.NewDecoder(io.LimitReader(r.Body, maxRequest)).Decode(&req); err != nil {
		http.Error(w, "nodetool: bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	var out bytes.Buffer
	if err := Run(r.Context(), db, req.Command, req.Args, &out); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	_, _ = w.Write(out.Bytes())
}

// ErrNoEndpoint is returned by Remote when the data directory has no
// endpoint address file: the process holding it serves no nodetool (a
// program embedding minicass, or one that stopped without removing it).
var ErrNoEndpoint = errors.New("nodetool: the process holding the data directory serves no nodetool endpoint")

// Remote runs command cmd with args on the process serving nodetool for
// data directory dir (see Serve) and writes its output to w.
func Remote(ctx context.Context, dir, cmd string, args []string, w io.Writer) error {
	b, err := os.ReadFile(filepath.Join(dir, AddrFile))
	if errors.Is(err, os.ErrNotExist) {
		return ErrNoEndpoint
	}
	if err != nil {
		return err
	}
	addr, token, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	if !ok {
		return fmt.Errorf("nodetool: %s is malformed", filepath.Join(dir, AddrFile))
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		return fmt.Errorf("nodetool: %s names %q, not a loopback address", filepath.Join(dir, AddrFile), addr)
	}
	body, _ := json.Marshal(request{Command: cmd, Args: args})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/nodetool", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		return fmt.Errorf("nodetool: reaching the process holding %s at %s: %w", dir, addr, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxRequest))
		return errors.New(strings.TrimSpace(string(msg)))
	}
	_, err = io.Copy(w, resp.Body)
	return err
}
