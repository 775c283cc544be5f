package bench

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// ErrBadProfile is returned by ParseProfile and LoadProfile for a profile
// that cannot be run; the message names the file and line.
var ErrBadProfile = errors.New("bench: bad profile")

// A Profile describes a data-model experiment, in the spirit of
// cassandra-stress's user profiles: one logical data set (Entities things,
// each with Rows rows, their fields generated from seeded distributions),
// stored by each of several Models (a table, its INSERT and one statement per
// query), and the Queries every model must answer with the same rows. The
// runner loads every model with the same rows and times the same questions,
// so the figures compare data models. The format is documented in
// bench/README.md; bench/profiles holds ready ones.
type Profile struct {
	// Name names the profile; Description says what it compares.
	Name, Description string
	// Keyspace is the keyspace the tables are created in (default bench).
	Keyspace string
	// Seed seeds every distribution (default 1).
	Seed uint64
	// Data is the shape of the logical data set.
	Data DataSpec
	// Fields are the logical row's fields, in the order written.
	Fields []FieldSpec
	// Queries are the questions every model answers.
	Queries []QuerySpec
	// Models are the data models compared; the first is the baseline of
	// the ratios unless Run.Baseline names another.
	Models []ModelSpec
	// Run sizes the timed phases.
	Run RunSpec
	// Sweeps vary one parameter over values, running every model at each.
	Sweeps []SweepSpec
	// Peers are run beside minicass's Go API: "pebble", "gocql".
	Peers []string
	// File is the file the profile came from, for messages.
	File string
}

// DataSpec is the shape of the logical data set.
type DataSpec struct {
	// Entities is the number of things (devices, users) and Rows the rows
	// each has (readings, events). Counts accept k and M suffixes.
	Entities, Rows int
	// Order is the order rows are written: "interleaved" (default: row 0
	// of every entity, then row 1, as a stream of readings arrives) or
	// "sequential" (every row of entity 0, then entity 1).
	Order string
}

// FieldSpec generates one field of the logical row, from the entity index,
// the row index or a distribution. A derived value x (the entity or the
// row, divided by Div, modulo Mod) becomes Start + x*Step for numbers and
// timestamps, or Format applied to x for text.
type FieldSpec struct {
	// Name names the field; statements bind fields by name.
	Name string
	// Type is the CQL type of the values: text, ascii, varchar, bigint,
	// int, double, float, boolean, timestamp, blob.
	Type string
	// From is "entity", "row" or "random" (the default).
	From string
	// Format is the fmt format of a text value made from x (default %d).
	Format string
	// Div and Mod derive x: x/Div (a bucket), then x%Mod (a salt or shard).
	Div, Mod int64
	// Start and Step map x to a number; for a timestamp Start is an
	// RFC 3339 time and Step a duration (default 1s).
	Start, Step string
	// Dist is the distribution of a random number; Size that of the
	// length of random text or blob; Choices the values a random text
	// picks from (by Dist when given, else uniformly).
	Dist, Size string
	Choices    []string

	line              int
	dist, size        Dist
	start, step       float64
	startTime         time.Time
	stepTime          time.Duration
	hasDist, hasSize  bool
	kind              fieldKind
	formatIsPlainText bool
}

// QuerySpec is a question every model answers.
type QuerySpec struct {
	// Name names the query; Summary says it in words ("the 10 latest
	// readings of one device"), for the ratios.
	Name, Summary string
	// Entity is the distribution of the entity asked about (default
	// uniform over all of them).
	Entity string
	// Row is the row the arguments are taken at: "last" (default),
	// "first" or a distribution over the rows.
	Row string
	// Rows is the number of rows the answer must have; a model that
	// returns fewer fails the run (it does not answer the question).
	Rows int

	line   int
	entity Dist
	row    Dist
	rowAt  string // last, first or "" for row
}

// ModelSpec is one data model: a table, how it is written, and how it
// answers each query.
type ModelSpec struct {
	// Name names the model; Summary describes it in words.
	Name, Summary string
	// Table is the CREATE TABLE statement (keyspace-qualified or not).
	Table string
	// Insert writes one logical row.
	Insert StatementSpec
	// Queries maps each query's name to the statement answering it.
	Queries map[string]StatementSpec

	line int
}

// StatementSpec is a CQL statement and the fields bound to its markers.
type StatementSpec struct {
	// CQL is the statement, with ? markers.
	CQL string
	// Args are the fields bound to the markers, in order.
	Args []string
	// Repeat runs the statement up to Repeat times (default 1), moving
	// the row the arguments are taken at by Step rows each time (e.g. the
	// previous bucket, or the previous reading), until the query has its
	// Rows rows: a model whose answer spans partitions pays each read.
	Repeat int
	Step   int64

	line int
}

// RunSpec sizes the timed phases.
type RunSpec struct {
	// Ops is the number of operations of each query phase (default 2000);
	// Duration, when set, ends a phase early.
	Ops      int
	Duration time.Duration
	// Concurrency is the number of goroutines running each phase
	// (default 1).
	Concurrency int
	// States are the storage states queries run in: memtable, flushed
	// (Flushes SSTables written during the load) and compacted (one
	// SSTable after a major compaction). Default: all three.
	States []string
	// Flushes is the number of SSTables of the flushed state (default 4).
	Flushes int
	// Interval is the width of the throughput-over-time buckets
	// (default 100ms).
	Interval time.Duration
	// Baseline names the model the others are compared with (default the
	// first).
	Baseline string
}

// SweepSpec varies one parameter: "width" (Data.Rows), "partitions"
// (Data.Entities) or "concurrency" (Run.Concurrency).
type SweepSpec struct {
	Param  string
	Values []int
	line   int
}

// The storage states.
const (
	StateMemtable  = "memtable"
	StateFlushed   = "flushed"
	StateCompacted = "compacted"
)

// The peers a profile can run beside minicass's Go API.
const (
	PeerPebble = "pebble"
	PeerGocql  = "gocql"
)

type fieldKind int

const (
	kindText fieldKind = iota
	kindBigint
	kindInt
	kindDouble
	kindFloat
	kindBool
	kindTimestamp
	kindBlob
)

var fieldTypes = map[string]fieldKind{
	"text": kindText, "ascii": kindText, "varchar": kindText, "bigint": kindBigint, "int": kindInt,
	"double": kindDouble, "float": kindFloat, "boolean": kindBool, "timestamp": kindTimestamp, "blob": kindBlob,
}

// LoadProfile reads and parses the profile in file.
func LoadProfile(file string) (*Profile, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadProfile, err)
	}
	return ParseProfile(file, b)
}

// ParseProfile parses a profile; file names it in error messages, which
// read "bench: bad profile: FILE:LINE: what is wrong".
func ParseProfile(file string, src []byte) (*Profile, error) {
	p := &profileParser{file: file}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err != nil {
		// yaml.v3's messages already say "yaml: line N: ...".
		return nil, fmt.Errorf("%w: %s: %v", ErrBadProfile, file, err)
	}
	if len(doc.Content) == 0 {
		return nil, p.errorf(&doc, "the profile is empty")
	}
	prof, err := p.profile(doc.Content[0])
	if err != nil {
		return nil, err
	}
	prof.File = file
	return prof, nil
}

type profileParser struct{ file string }

func (p *profileParser) errorf(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("%w: %s:%d: %s", ErrBadProfile, p.file, n.Line, fmt.Sprintf(format, args...))
}

// mapping returns the keys of a mapping node, refusing keys not in allowed.
func (p *profileParser) mapping(n *yaml.Node, what string, allowed ...string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.errorf(n, "%s must be a mapping", what)
	}
	m := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(allowed, k.Value) {
			return nil, p.errorf(k, "%s: unknown key %q (want one of %s)", what, k.Value, strings.Join(allowed, ", "))
		}
		if _, dup := m[k.Value]; dup {
			return nil, p.errorf(k, "%s: key %q given twice", what, k.Value)
		}
		m[k.Value] = v
	}
	return m, nil
}

func (p *profileParser) str(n *yaml.Node, what string) (string, error) {
	if n == nil {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode {
		return "", p.errorf(n, "%s must be a string", what)
	}
	return n.Value, nil
}

func (p *profileParser) strs(n *yaml.Node, what string) ([]string, error) {
	if n == nil {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, p.errorf(n, "%s must be a list", what)
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		s, err := p.str(c, what)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// ParseCount parses a positive count: 1000, 10k, 1M, 1_000.
func ParseCount(s string) (int, error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	mul := 1
	switch {
	case strings.HasSuffix(t, "k"), strings.HasSuffix(t, "K"):
		mul, t = 1000, t[:len(t)-1]
	case strings.HasSuffix(t, "M"):
		mul, t = 1_000_000, t[:len(t)-1]
	}
	v, err := strconv.Atoi(t)
	if err != nil || v <= 0 || v > math.MaxInt32/mul {
		return 0, fmt.Errorf("%q is not a positive count (e.g. 100, 10k, 1M)", s)
	}
	return v * mul, nil
}

func (p *profileParser) count(n *yaml.Node, what string, def int) (int, error) {
	if n == nil {
		return def, nil
	}
	if n.Kind != yaml.ScalarNode {
		return 0, p.errorf(n, "%s must be a count", what)
	}
	v, err := ParseCount(n.Value)
	if err != nil {
		return 0, p.errorf(n, "%s: %v", what, err)
	}
	return v, nil
}

func (p *profileParser) int64v(n *yaml.Node, what string) (int64, error) {
	if n == nil {
		return 0, nil
	}
	v, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil || n.Kind != yaml.ScalarNode {
		return 0, p.errorf(n, "%s must be an integer, got %q", what, n.Value)
	}
	return v, nil
}

func (p *profileParser) duration(n *yaml.Node, what string) (time.Duration, error) {
	if n == nil {
		return 0, nil
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil || d < 0 {
		return 0, p.errorf(n, "%s must be a duration such as 10s or 500ms, got %q", what, n.Value)
	}
	return d, nil
}

func (p *profileParser) profile(n *yaml.Node) (*Profile, error) {
	m, err := p.mapping(n, "the profile", "name", "description", "keyspace", "seed", "data", "fields",
		"queries", "models", "run", "sweeps", "peers")
	if err != nil {
		return nil, err
	}
	prof := &Profile{Keyspace: "bench", Seed: 1}
	if prof.Name, err = p.str(m["name"], "name"); err != nil {
		return nil, err
	}
	if prof.Name == "" {
		return nil, p.errorf(n, "the profile needs a name")
	}
	if prof.Description, err = p.str(m["description"], "description"); err != nil {
		return nil, err
	}
	if ks := m["keyspace"]; ks != nil {
		if prof.Keyspace, err = p.str(ks, "keyspace"); err != nil {
			return nil, err
		}
		if !identifier(prof.Keyspace) {
			return nil, p.errorf(ks, "keyspace %q is not a plain identifier", prof.Keyspace)
		}
	}
	if s := m["seed"]; s != nil {
		v, err := strconv.ParseUint(s.Value, 10, 64)
		if err != nil {
			return nil, p.errorf(s, "seed must be a non-negative integer, got %q", s.Value)
		}
		prof.Seed = v
	}
	if m["data"] == nil {
		return nil, p.errorf(n, "the profile needs data (entities and rows)")
	}
	if err := p.data(m["data"], &prof.Data); err != nil {
		return nil, err
	}
	if err := p.fields(m["fields"], n, prof); err != nil {
		return nil, err
	}
	if err := p.queries(m["queries"], n, prof); err != nil {
		return nil, err
	}
	if err := p.models(m["models"], n, prof); err != nil {
		return nil, err
	}
	if err := p.run(m["run"], prof); err != nil {
		return nil, err
	}
	if err := p.sweeps(m["sweeps"], prof); err != nil {
		return nil, err
	}
	if prof.Peers, err = p.strs(m["peers"], "peers"); err != nil {
		return nil, err
	}
	for i, peer := range prof.Peers {
		if peer != PeerPebble && peer != PeerGocql {
			return nil, p.errorf(m["peers"].Content[i], "unknown peer %q (want pebble or gocql)", peer)
		}
	}
	return prof, nil
}

func identifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func (p *profileParser) data(n *yaml.Node, d *DataSpec) error {
	m, err := p.mapping(n, "data", "entities", "rows", "order")
	if err != nil {
		return err
	}
	if d.Entities, err = p.count(m["entities"], "data.entities", 0); err != nil {
		return err
	}
	if d.Rows, err = p.count(m["rows"], "data.rows", 0); err != nil {
		return err
	}
	if d.Entities == 0 || d.Rows == 0 {
		return p.errorf(n, "data needs entities and rows")
	}
	if d.Order, err = p.str(m["order"], "data.order"); err != nil {
		return err
	}
	switch d.Order {
	case "":
		d.Order = "interleaved"
	case "interleaved", "sequential":
	default:
		return p.errorf(m["order"], "data.order must be interleaved or sequential, got %q", d.Order)
	}
	return nil
}

func (p *profileParser) fields(n, parent *yaml.Node, prof *Profile) error {
	if n == nil || n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		at := parent
		if n != nil {
			at = n
		}
		return p.errorf(at, "fields must be a mapping of field names to their generators")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !identifier(k.Value) {
			return p.errorf(k, "field name %q is not an identifier", k.Value)
		}
		if slices.ContainsFunc(prof.Fields, func(f FieldSpec) bool { return f.Name == k.Value }) {
			return p.errorf(k, "field %q given twice", k.Value)
		}
		f, err := p.field(k.Value, v)
		if err != nil {
			return err
		}
		prof.Fields = append(prof.Fields, f)
	}
	return nil
}

func (p *profileParser) field(name string, n *yaml.Node) (FieldSpec, error) {
	f := FieldSpec{Name: name, line: n.Line}
	what := "field " + strconv.Quote(name)
	m, err := p.mapping(n, what, "type", "from", "format", "div", "mod", "start", "step", "dist", "size", "choices")
	if err != nil {
		return f, err
	}
	for _, s := range []struct {
		dst *string
		key string
	}{{&f.Type, "type"}, {&f.From, "from"}, {&f.Format, "format"}, {&f.Start, "start"}, {&f.Step, "step"},
		{&f.Dist, "dist"}, {&f.Size, "size"}} {
		if *s.dst, err = p.str(m[s.key], what+"."+s.key); err != nil {
			return f, err
		}
	}
	if f.Div, err = p.int64v(m["div"], what+".div"); err != nil {
		return f, err
	}
	if f.Mod, err = p.int64v(m["mod"], what+".mod"); err != nil {
		return f, err
	}
	if f.Div < 0 || f.Mod < 0 {
		return f, p.errorf(n, "%s: div and mod must not be negative", what)
	}
	if f.Choices, err = p.strs(m["choices"], what+".choices"); err != nil {
		return f, err
	}
	kind, ok := fieldTypes[strings.ToLower(f.Type)]
	if !ok {
		at := n
		if m["type"] != nil {
			at = m["type"]
		}
		return f, p.errorf(at, "%s: type %q is not supported (want text, bigint, int, double, float, boolean, timestamp or blob)", what, f.Type)
	}
	f.kind = kind
	switch f.From {
	case "":
		f.From = "random"
	case "entity", "row", "random":
	default:
		return f, p.errorf(m["from"], "%s: from must be entity, row or random, got %q", what, f.From)
	}
	if f.Dist != "" {
		if f.dist, err = ParseDist(f.Dist, false, 0, 0); err != nil {
			return f, p.errorf(m["dist"], "%s: %v", what, err)
		}
		f.hasDist = true
	}
	if f.Size != "" {
		if f.size, err = ParseDist(f.Size, false, 0, 0); err != nil {
			return f, p.errorf(m["size"], "%s: %v", what, err)
		}
		if f.size.Lo < 0 || f.size.Hi > 1<<20 {
			return f, p.errorf(m["size"], "%s: sizes must be within 0..1048576 bytes", what)
		}
		f.hasSize = true
	}
	if f.From == "random" {
		switch {
		case len(f.Choices) > 0:
			if f.kind != kindText {
				return f, p.errorf(m["choices"], "%s: choices need a text field", what)
			}
		case f.kind == kindText || f.kind == kindBlob:
			if !f.hasSize {
				return f, p.errorf(n, "%s: random %s needs a size distribution, e.g. size: uniform(8..32)", what, f.Type)
			}
		case f.kind == kindBool:
		default:
			if !f.hasDist {
				return f, p.errorf(n, "%s: random %s needs a dist, e.g. dist: uniform(0..100)", what, f.Type)
			}
		}
		return f, nil
	}
	if f.kind == kindBlob || f.kind == kindBool {
		return f, p.errorf(n, "%s: a %s field cannot come from the %s index", what, f.Type, f.From)
	}
	if f.kind == kindTimestamp {
		f.startTime = time.Unix(0, 0).UTC()
		if f.Start != "" {
			if f.startTime, err = time.Parse(time.RFC3339, f.Start); err != nil {
				return f, p.errorf(m["start"], "%s: start must be an RFC 3339 time such as 2024-01-15T00:00:00Z", what)
			}
		}
		f.stepTime = time.Second
		if f.Step != "" {
			if f.stepTime, err = time.ParseDuration(f.Step); err != nil {
				return f, p.errorf(m["step"], "%s: step must be a duration such as 1s", what)
			}
		}
		return f, nil
	}
	f.step = 1
	for _, s := range []struct {
		dst *float64
		key string
		v   string
	}{{&f.start, "start", f.Start}, {&f.step, "step", f.Step}} {
		if s.v == "" {
			continue
		}
		if *s.dst, err = strconv.ParseFloat(s.v, 64); err != nil {
			return f, p.errorf(m[s.key], "%s: %s must be a number, got %q", what, s.key, s.v)
		}
	}
	if f.kind == kindText {
		if f.Format == "" {
			f.Format = "%d"
		}
		if strings.Count(f.Format, "%")-2*strings.Count(f.Format, "%%") != 1 {
			return f, p.errorf(m["format"], "%s: format must hold one verb for the number, e.g. dev-%%05d", what)
		}
	}
	return f, nil
}

func (p *profileParser) queries(n, parent *yaml.Node, prof *Profile) error {
	if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		at := parent
		if n != nil {
			at = n
		}
		return p.errorf(at, "queries must be a list of at least one query")
	}
	for _, c := range n.Content {
		m, err := p.mapping(c, "a query", "name", "summary", "entity", "row", "rows")
		if err != nil {
			return err
		}
		q := QuerySpec{line: c.Line}
		if q.Name, err = p.str(m["name"], "query name"); err != nil {
			return err
		}
		if q.Name == "" {
			return p.errorf(c, "a query needs a name")
		}
		if slices.ContainsFunc(prof.Queries, func(o QuerySpec) bool { return o.Name == q.Name }) {
			return p.errorf(c, "query %q given twice", q.Name)
		}
		what := "query " + strconv.Quote(q.Name)
		if q.Summary, err = p.str(m["summary"], what+".summary"); err != nil {
			return err
		}
		if q.Summary == "" {
			q.Summary = q.Name
		}
		if q.Entity, err = p.str(m["entity"], what+".entity"); err != nil {
			return err
		}
		if q.Entity == "" {
			q.Entity = "uniform"
		}
		if q.entity, err = ParseDist(q.Entity, true, 0, 0); err != nil {
			return p.errorf(m["entity"], "%s: entity: %v", what, err)
		}
		if q.Row, err = p.str(m["row"], what+".row"); err != nil {
			return err
		}
		switch q.Row {
		case "", "last":
			q.Row, q.rowAt = "last", "last"
		case "first":
			q.rowAt = "first"
		default:
			if q.row, err = ParseDist(q.Row, true, 0, 0); err != nil {
				return p.errorf(m["row"], "%s: row must be last, first or a distribution: %v", what, err)
			}
		}
		if q.Rows, err = p.count(m["rows"], what+".rows", 0); err != nil {
			return err
		}
		if q.Rows == 0 {
			return p.errorf(c, "%s needs rows: the number of rows its answer must have", what)
		}
		prof.Queries = append(prof.Queries, q)
	}
	return nil
}

func (p *profileParser) statement(n *yaml.Node, what string, prof *Profile) (StatementSpec, error) {
	st := StatementSpec{line: n.Line, Repeat: 1}
	m, err := p.mapping(n, what, "cql", "args", "repeat", "step")
	if err != nil {
		return st, err
	}
	if st.CQL, err = p.str(m["cql"], what+".cql"); err != nil {
		return st, err
	}
	st.CQL = strings.TrimSpace(st.CQL)
	if st.CQL == "" {
		return st, p.errorf(n, "%s needs cql", what)
	}
	if st.Args, err = p.strs(m["args"], what+".args"); err != nil {
		return st, err
	}
	for i, a := range st.Args {
		if !slices.ContainsFunc(prof.Fields, func(f FieldSpec) bool { return f.Name == a }) {
			return st, p.errorf(m["args"].Content[i], "%s: no field %q", what, a)
		}
	}
	if markers := strings.Count(st.CQL, "?"); markers != len(st.Args) {
		return st, p.errorf(n, "%s: the cql has %d ? markers but %d args", what, markers, len(st.Args))
	}
	if st.Repeat, err = p.count(m["repeat"], what+".repeat", 1); err != nil {
		return st, err
	}
	if st.Step, err = p.int64v(m["step"], what+".step"); err != nil {
		return st, err
	}
	return st, nil
}

func (p *profileParser) models(n, parent *yaml.Node, prof *Profile) error {
	if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		at := parent
		if n != nil {
			at = n
		}
		return p.errorf(at, "models must be a list of at least one model")
	}
	for _, c := range n.Content {
		m, err := p.mapping(c, "a model", "name", "summary", "table", "insert", "queries")
		if err != nil {
			return err
		}
		md := ModelSpec{line: c.Line, Queries: map[string]StatementSpec{}}
		if md.Name, err = p.str(m["name"], "model name"); err != nil {
			return err
		}
		if md.Name == "" {
			return p.errorf(c, "a model needs a name")
		}
		if slices.ContainsFunc(prof.Models, func(o ModelSpec) bool { return o.Name == md.Name }) {
			return p.errorf(c, "model %q given twice", md.Name)
		}
		what := "model " + strconv.Quote(md.Name)
		if md.Summary, err = p.str(m["summary"], what+".summary"); err != nil {
			return err
		}
		if md.Table, err = p.str(m["table"], what+".table"); err != nil {
			return err
		}
		md.Table = strings.TrimSpace(md.Table)
		if !strings.HasPrefix(strings.ToUpper(md.Table), "CREATE TABLE") {
			at := c
			if m["table"] != nil {
				at = m["table"]
			}
			return p.errorf(at, "%s: table must be a CREATE TABLE statement", what)
		}
		if m["insert"] == nil {
			return p.errorf(c, "%s needs an insert", what)
		}
		if md.Insert, err = p.statement(m["insert"], what+".insert", prof); err != nil {
			return err
		}
		qn := m["queries"]
		if qn == nil || qn.Kind != yaml.MappingNode {
			return p.errorf(c, "%s needs queries: a statement for each of %s", what, queryNames(prof))
		}
		for i := 0; i+1 < len(qn.Content); i += 2 {
			k, v := qn.Content[i], qn.Content[i+1]
			if !slices.ContainsFunc(prof.Queries, func(q QuerySpec) bool { return q.Name == k.Value }) {
				return p.errorf(k, "%s: no query %q in the profile's queries (%s)", what, k.Value, queryNames(prof))
			}
			st, err := p.statement(v, what+" query "+strconv.Quote(k.Value), prof)
			if err != nil {
				return err
			}
			md.Queries[k.Value] = st
		}
		for _, q := range prof.Queries {
			if _, ok := md.Queries[q.Name]; !ok {
				return p.errorf(qn, "%s has no statement for query %q: every model answers every query", what, q.Name)
			}
		}
		prof.Models = append(prof.Models, md)
	}
	return nil
}

func queryNames(prof *Profile) string {
	names := make([]string, len(prof.Queries))
	for i, q := range prof.Queries {
		names[i] = q.Name
	}
	return strings.Join(names, ", ")
}

func (p *profileParser) run(n *yaml.Node, prof *Profile) error {
	r := &prof.Run
	*r = RunSpec{Ops: 2000, Concurrency: 1, Flushes: 4, Interval: 100 * time.Millisecond,
		States: []string{StateMemtable, StateFlushed, StateCompacted}, Baseline: prof.Models[0].Name}
	if n == nil {
		return nil
	}
	m, err := p.mapping(n, "run", "ops", "duration", "concurrency", "states", "flushes", "interval", "baseline")
	if err != nil {
		return err
	}
	if r.Ops, err = p.count(m["ops"], "run.ops", r.Ops); err != nil {
		return err
	}
	if r.Duration, err = p.duration(m["duration"], "run.duration"); err != nil {
		return err
	}
	if r.Concurrency, err = p.count(m["concurrency"], "run.concurrency", 1); err != nil {
		return err
	}
	if r.Flushes, err = p.count(m["flushes"], "run.flushes", r.Flushes); err != nil {
		return err
	}
	if m["interval"] != nil {
		if r.Interval, err = p.duration(m["interval"], "run.interval"); err != nil {
			return err
		}
		if r.Interval < time.Millisecond {
			return p.errorf(m["interval"], "run.interval must be at least 1ms")
		}
	}
	if m["states"] != nil {
		if r.States, err = p.strs(m["states"], "run.states"); err != nil {
			return err
		}
		if err := CheckStates(r.States); err != nil {
			return p.errorf(m["states"], "run.states: %v", err)
		}
	}
	if b := m["baseline"]; b != nil {
		r.Baseline = b.Value
		if !slices.ContainsFunc(prof.Models, func(md ModelSpec) bool { return md.Name == r.Baseline }) {
			return p.errorf(b, "run.baseline: no model %q", r.Baseline)
		}
	}
	return nil
}

// CheckStates checks a list of storage states.
func CheckStates(states []string) error {
	if len(states) == 0 {
		return errors.New("name at least one state")
	}
	for _, s := range states {
		if s != StateMemtable && s != StateFlushed && s != StateCompacted {
			return fmt.Errorf("unknown state %q (want memtable, flushed or compacted)", s)
		}
	}
	return nil
}

// The parameters a sweep can vary.
const (
	SweepWidth       = "width"
	SweepPartitions  = "partitions"
	SweepConcurrency = "concurrency"
)

func (p *profileParser) sweeps(n *yaml.Node, prof *Profile) error {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return p.errorf(n, "sweeps must be a list")
	}
	for _, c := range n.Content {
		m, err := p.mapping(c, "a sweep", "param", "values")
		if err != nil {
			return err
		}
		s := SweepSpec{line: c.Line}
		if s.Param, err = p.str(m["param"], "sweep param"); err != nil {
			return err
		}
		if err := checkSweepParam(s.Param); err != nil {
			return p.errorf(c, "%v", err)
		}
		vals, err := p.strs(m["values"], "sweep values")
		if err != nil {
			return err
		}
		if len(vals) == 0 {
			return p.errorf(c, "sweep of %s needs values", s.Param)
		}
		for i, v := range vals {
			x, err := ParseCount(v)
			if err != nil {
				return p.errorf(m["values"].Content[i], "sweep of %s: %v", s.Param, err)
			}
			s.Values = append(s.Values, x)
		}
		prof.Sweeps = append(prof.Sweeps, s)
	}
	return nil
}

func checkSweepParam(param string) error {
	switch param {
	case SweepWidth, SweepPartitions, SweepConcurrency:
		return nil
	}
	return fmt.Errorf("sweep param %q is not one of width, partitions, concurrency", param)
}

// ParseSweep parses a sweep from the command line: "width=1k,10k,100k".
func ParseSweep(s string) (SweepSpec, error) {
	param, vals, ok := strings.Cut(s, "=")
	if !ok {
		return SweepSpec{}, fmt.Errorf("%w: sweep %q: want PARAM=V1,V2,... (e.g. width=1k,10k,100k)", ErrInvalidConfig, s)
	}
	sw := SweepSpec{Param: strings.TrimSpace(param)}
	if err := checkSweepParam(sw.Param); err != nil {
		return sw, fmt.Errorf("%w: %v", ErrInvalidConfig, err)
	}
	for _, v := range strings.Split(vals, ",") {
		x, err := ParseCount(v)
		if err != nil {
			return sw, fmt.Errorf("%w: sweep of %s: %v", ErrInvalidConfig, sw.Param, err)
		}
		sw.Values = append(sw.Values, x)
	}
	return sw, nil
}
