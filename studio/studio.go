// Package studio is minicass's local web view of a DB, for learners: pages
// with pictures (SVG) of what the engine holds, drawn from the live engine
// and redrawn when the table changes, so a page follows what the shell or a
// driver does.
//
//	/                         the tables, with links to their views
//	/ring?table=ks.t&key=K    a simulated cluster's token ring (partitioner.Ring):
//	                          vnodes, the table's partitions at their tokens (the
//	                          larger the partition, the larger its dot), the chosen
//	                          key's token, range and replicas, load per node
//	/partition?table=ks.t&key=K  a partition's rows in clustering order, stored
//	                          order and reverse side by side, every cell version
//	                          with the memtable or SSTable that holds it, tombstones
//	                          and what they shadow, TTLs left
//	/histograms?table=ks.t    partition sizes and rows per partition, with the
//	                          seed articles' limits (100 MB, 100,000 rows) drawn
//	/sstable?table=ks.t&name=F&key=K  an SSTable's anatomy: component files and
//	                          their sizes, Data.db chunks, partitions in the stream,
//	                          the row index of the widest partition (or K's), the
//	                          bloom filter (and its answer for K), Statistics.db
//	/compactions?table=ks.t   the compaction history: which SSTables became which,
//	                          those dropped whole, what went in and came out
//	/order?table=ks.a&other=ks.b&key=K&limit=N  one partition key in two tables
//	                          side by side (say one CLUSTERING ORDER BY ... ASC,
//	                          the other DESC): rows in stored order, and the N a
//	                          LIMIT N read takes first
//	/read?table=ks.t&q=SELECT...  a read: the SELECT typed in the page, run with
//	                          tracing (on a session of its own, recording no
//	                          trace): how it found its partitions (by key, a
//	                          range scan, filtered, an index read), each source
//	                          read or skipped and why, row versions, cells and
//	                          tombstones touched against rows and cells returned
//
// Every page is self-contained: its styles and its one small script are
// inline, its pictures inline SVG; nothing is loaded from elsewhere (the
// Content-Security-Policy says so to the browser). Adding export=1 to a
// page's address returns it as a static file to save (no script), and
// /ring.svg, /histograms.svg, /read.svg ... give the pictures alone, for slides. K is a
// partition key written as sstabledump reads one: the value's text, a
// composite key's components joined by ':' ('\:' for a colon).
//
// The studio listens on loopback addresses only: it shows the data and
// changes nothing, to no one but the machine's users.
package studio

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
)

// Options configure the studio. The zero value works.
type Options struct {
	// MaxPartitions bounds the partitions a view reads from a table (the
	// ring's dots, the histograms): 20,000 when 0.
	MaxPartitions int
}

// Studio serves the views of one DB.
type Studio struct {
	db   *minicass.DB
	opts Options
}

// New returns the studio of db.
func New(db *minicass.DB, opts Options) *Studio {
	if opts.MaxPartitions <= 0 {
		opts.MaxPartitions = 20_000
	}
	return &Studio{db: db, opts: opts}
}

// Handler returns the studio's HTTP handler.
func (s *Studio) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /ring", s.page(s.ringView))
	mux.HandleFunc("GET /ring.svg", s.picture(s.ringView))
	mux.HandleFunc("GET /partition", s.page(s.partitionView))
	mux.HandleFunc("GET /histograms", s.page(s.histogramView))
	mux.HandleFunc("GET /histograms.svg", s.picture(s.histogramView))
	mux.HandleFunc("GET /sstable", s.page(s.sstableView))
	mux.HandleFunc("GET /sstable.svg", s.picture(s.sstableView))
	mux.HandleFunc("GET /compactions", s.page(s.compactionView))
	mux.HandleFunc("GET /compactions.svg", s.picture(s.compactionView))
	mux.HandleFunc("GET /order", s.page(s.orderView))
	mux.HandleFunc("GET /order.svg", s.picture(s.orderView))
	mux.HandleFunc("GET /read", s.page(s.readView))
	mux.HandleFunc("GET /read.svg", s.picture(s.readView))
	mux.HandleFunc("GET /version", s.version)
	return mux
}

// Server is a running studio.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
}

// Serve starts the studio of db on addr, which must be a loopback address
// (127.0.0.1:PORT, [::1]:PORT, localhost:PORT; port 0 picks a free one).
func Serve(db *minicass.DB, addr string, opts Options) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("studio: address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("studio: %q is not a loopback address: the studio serves this machine only (use 127.0.0.1:PORT)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("studio: %w", err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		ln.Close()
		return nil, fmt.Errorf("studio: %s is not a loopback address", ln.Addr())
	}
	srv := &Server{ln: ln, done: make(chan struct{}),
		srv: &http.Server{Handler: New(db, opts).Handler(), ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		defer close(srv.done)
		_ = srv.srv.Serve(ln) // http.ErrServerClosed at Close
	}()
	return srv, nil
}

// Addr returns the address the studio listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL returns the studio's address as a URL.
func (s *Server) URL() string { return "http://" + s.Addr() + "/" }

// Close stops the studio.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return err
}

// view computes one view: its title, its picture (SVG, may be empty) and
// the HTML around it.
type view func(r *http.Request) (*rendered, error)

type rendered struct {
	title string
	table *schema.Table // the table followed for changes, if any
	also  *schema.Table // a second table followed, if any
	svg   string
	body  string
}

// errBadRequest marks a view's error as the request's fault (400).
type errBadRequest struct{ msg string }

func (e errBadRequest) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return errBadRequest{fmt.Sprintf(format, args...)}
}

// page serves a view as a page: with export=1 as a static file.
func (s *Studio) page(v view) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		out, err := v(r)
		if err != nil {
			s.fail(w, err)
			return
		}
		export := r.URL.Query().Get("export") == "1"
		if export {
			name := strings.TrimPrefix(r.URL.Path, "/")
			if out.table != nil {
				name += "-" + out.table.QualifiedName()
			}
			w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name+".html"))
		}
		secure(w, "text/html; charset=utf-8")
		_, _ = w.Write([]byte(s.frame(r, out, export)))
	}
}

// picture serves a view's picture alone.
func (s *Studio) picture(v view) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		out, err := v(r)
		if err != nil {
			s.fail(w, err)
			return
		}
		secure(w, "image/svg+xml")
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + out.svg))
	}
}

func (s *Studio) fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	var bad errBadRequest
	if errors.As(err, &bad) {
		code = http.StatusBadRequest
	}
	secure(w, "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(err.Error() + "\n"))
}

// secure sets the content type and a policy that lets a page use nothing
// but itself: inline styles and script, requests to the studio.
func secure(w http.ResponseWriter, contentType string) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
}

const style = `body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#1b4f72;color:#fff;padding:8px 16px}header a{color:#fff;margin-right:14px}
main{padding:12px 16px}h1{font-size:20px;margin:8px 0}table{border-collapse:collapse;margin:8px 0}
td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;vertical-align:top}th{background:#eee}
.num{text-align:right;font-variant-numeric:tabular-nums}.note{color:#555;max-width:60em}
.cols{display:flex;gap:24px;flex-wrap:wrap}.shadowed{color:#999;text-decoration:line-through}
.tombstone{color:#a00}.expiring{color:#a60}.expired{color:#999}.live{color:#060}
.bar{background:#2e86c1;height:12px;display:inline-block}.max-load td{font-weight:bold}
form{margin:8px 0}input{font:inherit}svg{background:#fff;border:1px solid #ddd}
.src{font-family:monospace;font-size:12px}li.first{background:#d5f5e3}`

// The script of a live page: it asks /version for the followed table's
// version every second and reloads the page when it changes.
const liveScript = `(function(){var el=document.documentElement;var t=el.getAttribute("data-table");
el.setAttribute("data-ready","true");if(!t)return;var v=el.getAttribute("data-version");
function poll(){fetch("/version?table="+encodeURIComponent(t)).then(function(r){return r.text()}).then(function(n){
if(n.trim()!==v){location.reload();return}setTimeout(poll,1000)}).catch(function(){setTimeout(poll,5000)})}
setTimeout(poll,1000)})();`

// frame wraps a view in the page: header links, title, the view, and the
// live script unless exported.
func (s *Studio) frame(r *http.Request, out *rendered, export bool) string {
	var b strings.Builder
	tableName, follow, version := "", "", ""
	if out.table != nil {
		tableName = out.table.QualifiedName()
		follow, version = tableName, s.tableVersion(out.table)
		if out.also != nil {
			follow += "," + out.also.QualifiedName()
			version += "," + s.tableVersion(out.also)
		}
	}
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\" data-table=\"%s\" data-version=\"%s\"><head><meta charset=\"utf-8\"><link rel=\"icon\" href=\"data:,\"><title>%s · minicass studio</title><style>%s</style></head><body>\n",
		esc(follow), esc(version), esc(out.title), style)
	q := ""
	if tableName != "" {
		q = "?table=" + esc(tableName)
	}
	fmt.Fprintf(&b, "<header><a href=\"/\">minicass studio</a><a href=\"/ring%s\">ring</a><a href=\"/partition%s\">partition</a><a href=\"/histograms%s\">histograms</a><a href=\"/sstable%s\">sstable</a><a href=\"/compactions%s\">compactions</a><a href=\"/order%s\">ASC/DESC</a><a href=\"/read%s\">read</a>", q, q, q, q, q, q, q)
	if !export {
		exp := r.URL.Query()
		exp.Set("export", "1")
		fmt.Fprintf(&b, "<a id=\"export\" href=\"%s?%s\">export this view</a>", esc(r.URL.Path), esc(exp.Encode()))
	}
	fmt.Fprintf(&b, "</header><main><h1>%s</h1>\n%s\n%s\n</main>", esc(out.title), out.svg, out.body)
	if export {
		fmt.Fprintf(&b, "<p class=\"note\">Exported from minicass studio at %s.</p>", esc(time.Now().UTC().Format(time.RFC3339)))
		b.WriteString(`<script>document.documentElement.setAttribute("data-ready","true")</script>`)
	} else {
		b.WriteString("<script>" + liveScript + "</script>")
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// version answers the version of a table (or of tables, table=ks.a,ks.b,
// versions joined by commas): it changes whenever the table is written,
// flushed or compacted.
func (s *Studio) version(w http.ResponseWriter, r *http.Request) {
	names := strings.Split(r.URL.Query().Get("table"), ",")
	if len(names) > 2 {
		s.fail(w, badRequest("follow at most two tables"))
		return
	}
	var versions []string
	for _, name := range names {
		t, err := s.tableNamed(name)
		if err != nil {
			s.fail(w, err)
			return
		}
		versions = append(versions, s.tableVersion(t))
	}
	secure(w, "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(strings.Join(versions, ",") + "\n"))
}

func (s *Studio) tableVersion(t *schema.Table) string {
	st, err := s.db.Engine().TableStats(t.Keyspace, t.Name)
	if err != nil {
		return "gone"
	}
	return fmt.Sprintf("%d.%d.%d.%d.%d", st.WriteCount, st.MemtableOperations, st.SSTableCount, st.Compactions, st.MemtablesFlushing)
}

// table returns the table the request names (table=ks.t).
func (s *Studio) table(r *http.Request) (*schema.Table, error) {
	return s.tableNamed(r.URL.Query().Get("table"))
}

// tableNamed returns the table named ks.t.
func (s *Studio) tableNamed(name string) (*schema.Table, error) {
	ks, tn, ok := strings.Cut(name, ".")
	if !ok {
		return nil, badRequest("name a table: table=keyspace.table")
	}
	t, found := s.db.Engine().Table(ks, tn)
	if !found {
		return nil, badRequest("table %s does not exist", name)
	}
	return t, nil
}

// userTables returns the tables of the user keyspaces, by name.
func (s *Studio) userTables() []*schema.Table {
	e := s.db.Engine()
	var out []*schema.Table
	for _, ks := range e.Keyspaces() {
		if strings.HasPrefix(ks.Name, "system") {
			continue
		}
		out = append(out, e.Tables(ks.Name)...)
	}
	slices.SortFunc(out, func(a, b *schema.Table) int { return strings.Compare(a.QualifiedName(), b.QualifiedName()) })
	return out
}

func (s *Studio) index(w http.ResponseWriter, r *http.Request) {
	var b strings.Builder
	b.WriteString(`<p class="note">Pictures of what the engine holds, redrawn as you write from the shell or a driver. Pick a table.</p>`)
	b.WriteString(`<table id="tables"><tr><th>table</th><th>views</th></tr>`)
	for _, t := range s.userTables() {
		n := esc(t.QualifiedName())
		fmt.Fprintf(&b, `<tr><td>%s</td><td><a href="/ring?table=%s">ring</a> · <a href="/partition?table=%s">partition</a> · <a href="/histograms?table=%s">histograms</a> · <a href="/sstable?table=%s">sstable</a> · <a href="/compactions?table=%s">compactions</a> · <a href="/read?table=%s">read</a></td></tr>`, n, n, n, n, n, n, n)
	}
	b.WriteString("</table>")
	out := &rendered{title: "Tables", body: b.String()}
	secure(w, "text/html; charset=utf-8")
	_, _ = w.Write([]byte(s.frame(r, out, r.URL.Query().Get("export") == "1")))
}

// partitionStat is what the views read of one partition.
type partitionStat struct {
	key   []byte
	token int64
	rows  int
	bytes int64
}

// partitions reads up to MaxPartitions partitions of t in token order,
// with their live rows and an estimate of their size (the rows' sizes).
// truncated is set when the table has more.
func (s *Studio) partitions(ctx context.Context, t *schema.Table) (out []partitionStat, truncated bool, err error) {
	sc, err := s.db.Engine().Scan(ctx, t, fullRing, engine.ReadOptions{})
	if err != nil {
		return nil, false, err
	}
	defer sc.Close()
	for {
		p, ok := sc.Next()
		if !ok {
			break
		}
		if len(out) == s.opts.MaxPartitions {
			truncated = true
			break
		}
		ps := partitionStat{key: append([]byte(nil), p.Key()...), token: p.Token(), bytes: int64(len(p.Key()))}
		if st := p.Static(); st != nil {
			ps.bytes += int64(st.Size())
		}
		for {
			row, ok := p.Next()
			if !ok {
				break
			}
			ps.rows++
			ps.bytes += int64(row.Size())
		}
		if err := p.Err(); err != nil {
			return nil, false, err
		}
		out = append(out, ps)
	}
	return out, truncated, sc.Err()
}

// intParam reads an integer parameter within [lo, hi], def when absent.
func intParam(r *http.Request, name string, def, lo, hi int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, badRequest("%s must be a number from %d to %d", name, lo, hi)
	}
	return n, nil
}

func esc(s string) string { return html.EscapeString(s) }

// maxKeyLen is the longest partition key Cassandra accepts (its length is
// written in an unsigned short).
const maxKeyLen = 65535

// parseKey reads the key parameter of a view for table t (nil when absent).
func parseKey(r *http.Request, t *schema.Table) ([]byte, string, error) {
	text := r.URL.Query().Get("key")
	if text == "" {
		return nil, "", nil
	}
	key, err := t.ParsePartitionKey(text)
	if err != nil {
		return nil, text, badRequest("key: %v", err)
	}
	if len(key) > maxKeyLen {
		return nil, text, badRequest("key: a partition key is at most %d bytes, this one %d", maxKeyLen, len(key))
	}
	return key, text, nil
}
