package engine

import (
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/minicass/minicass/commitlog"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/vfs"
)

// The schema file keeps the keyspaces, tables and truncation records across
// restarts. Every schema change (and Truncate) writes a new file,
// DIR/schema/schema-<n>.db with n one more than the last, atomically:
// written as schema-<n>.db.tmp, fsynced, renamed, and the directory fsynced;
// then the older files are removed. Open reads the highest n.
//
// Format (version 2, or 3 for a schema with triggers), integers
// little-endian:
//
//	[4]  magic "MCSF"
//	[4]  uint32 format version (2 or 3; 1 is read too)
//	[4]  uint32 payload length n
//	[4]  uint32 CRC32C (Castagnoli) of the payload
//	[n]  payload: JSON, {"keyspaces": [...]} as schemaFileJSON below
//
// Worked example: the payload {"keyspaces":[]} (16 bytes) is stored as
//
//	4d 43 53 46  02 00 00 00  10 00 00 00  <crc32c LE>  7b 22 6b 65 ...
//
// Versions: 1 had keyspaces, types and tables; 2 adds a keyspace's
// user-defined functions ("functions": name, argument names and types,
// return type, called_on_null_input, language, body) and aggregates
// ("aggregates": name, argument types, state function and type, final
// function, initcond as base64 bytes, return type), types as CQL type
// strings that may name the keyspace's user types. A version 1 file reads
// as a schema without functions; a version 1 binary refuses a version 2
// file rather than lose its functions. Version 3 is version 2 with a
// table's triggers ("triggers": [{"name": ..., "class": ...}], in creation
// order); a file is written as version 3 only when some table has a
// trigger, so that a version 2 binary refuses it rather than lose the
// triggers, and reads every other file as before.
//
// A table carries its ID (32 hex digits), its dropped columns, its
// secondary index definitions, for a materialized view its definition
// ("view": schema.View, whose base_table_id is the base table's ID as 16
// bytes, filter values as base64 bytes) and its log marks (see logMarks):
// truncated_at once truncated, compacted_to once a compaction removed
// SSTables without writing any. A COMPACT STORAGE table carries "compact"
// (schema.CompactStorage: {"dense": true} for a dense table, {"dense":
// false} for a static compact one), its hidden columns listed among its
// columns; a file without it (every file written before compact tables)
// describes CQL tables.

const (
	schemaMagic   = "MCSF"
	schemaVersion = 2
	// schemaVersionTriggers is version 2 with triggers: the version of a
	// file in which some table has a trigger.
	schemaVersionTriggers = 3
	// schemaVersionV1 is the previous format, without functions and
	// aggregates, which decodeSchema still reads.
	schemaVersionV1  = 1
	schemaHeaderSize = 16
	schemaDirName    = "schema"
	schemaFilePrefix = "schema-"
	schemaFileSuffix = ".db"
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

type schemaFileJSON struct {
	Keyspaces []keyspaceJSON `json:"keyspaces"`
}

type keyspaceJSON struct {
	Name          string            `json:"name"`
	Replication   map[string]string `json:"replication"`
	DurableWrites bool              `json:"durable_writes"`
	Types         []typeJSON        `json:"types,omitempty"`
	Tables        []tableJSON       `json:"tables"`
	Functions     []functionJSON    `json:"functions,omitempty"`
	Aggregates    []aggregateJSON   `json:"aggregates,omitempty"`
}

// functionJSON is a user-defined function (schema.Function).
type functionJSON struct {
	Name              string   `json:"name"`
	ArgNames          []string `json:"argument_names"`
	ArgTypes          []string `json:"argument_types"`
	Return            string   `json:"return_type"`
	CalledOnNullInput bool     `json:"called_on_null_input"`
	Language          string   `json:"language"`
	Body              string   `json:"body"`
}

// aggregateJSON is a user-defined aggregate (schema.Aggregate).
type aggregateJSON struct {
	Name      string   `json:"name"`
	ArgTypes  []string `json:"argument_types"`
	StateFunc string   `json:"state_func"`
	StateType string   `json:"state_type"`
	FinalFunc string   `json:"final_func,omitempty"`
	InitCond  *[]byte  `json:"initcond,omitempty"` // absent without one; an empty text is ""

	Return string `json:"return_type"`
}

// typeJSON is a user-defined type: its fields with their type strings, which
// may name the types before it. A field's type is written as CREATE TYPE
// declared it (types.Type.DeclaredField): "set<int>" for a field declared a
// non-frozen collection, which minicass stores frozen but remembers
// (types.UserType.MultiCell); files written before had "frozen<set<int>>".
type typeJSON struct {
	Name   string      `json:"name"`
	Fields []fieldJSON `json:"fields"`
}

type fieldJSON struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type tableJSON struct {
	Name        string         `json:"name"`
	ID          string         `json:"id"`
	Columns     []columnJSON   `json:"columns"`
	Options     schema.Options `json:"options"`
	TruncatedAt *positionJSON  `json:"truncated_at,omitempty"`
	CompactedTo *positionJSON  `json:"compacted_to,omitempty"`
	Dropped     []droppedJSON  `json:"dropped_columns,omitempty"`
	Indexes     []indexJSON    `json:"indexes,omitempty"`
	Triggers    []triggerJSON  `json:"triggers,omitempty"`
	View        *schema.View   `json:"view,omitempty"`
	// Compact is set for a COMPACT STORAGE table ({"dense": true} or
	// {"dense": false}); files written before compact tables existed have
	// none, which is a CQL table.
	Compact *schema.CompactStorage `json:"compact,omitempty"`
}

// triggerJSON is one trigger of a table (schema.Trigger), in version 3.
type triggerJSON struct {
	Name  string `json:"name"`
	Class string `json:"class"`
}

// indexJSON is one secondary index of a table.
type indexJSON struct {
	Name    string            `json:"name"`
	Column  string            `json:"column"`
	Target  string            `json:"target"` // simple, values, keys, entries or full
	Class   string            `json:"class,omitempty"`
	Options map[string]string `json:"options,omitempty"`
}

// indexTargets names the index targets in the schema file.
var indexTargets = map[string]schema.IndexTarget{"simple": schema.IndexSimple, "values": schema.IndexValues,
	"keys": schema.IndexKeys, "entries": schema.IndexEntries, "full": schema.IndexFull}

func indexTargetName(k schema.IndexTarget) string {
	for name, v := range indexTargets {
		if v == k {
			return name
		}
	}
	return ""
}

// droppedJSON is one entry of a table's dropped columns.
type droppedJSON struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	DroppedAt int64  `json:"dropped_at"`
	Static    bool   `json:"static,omitempty"`
}

type columnJSON struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Kind     string `json:"kind"`
	Position int    `json:"position"`
	Desc     bool   `json:"desc,omitempty"`
}

type positionJSON struct {
	Segment uint64 `json:"segment"`
	Offset  int64  `json:"offset"`
}

var columnKinds = map[string]schema.ColumnKind{
	schema.PartitionKey.String(): schema.PartitionKey,
	schema.Clustering.String():   schema.Clustering,
	schema.Static.String():       schema.Static,
	schema.Regular.String():      schema.Regular,
}

// logMarks are the commit-log positions the schema file keeps for each
// table, outside its SSTables. Replay skips a table's records before the
// largest of them and of its SSTables' upper bounds.
type logMarks struct {
	// truncated is the log tail at the table's last truncation. Open also
	// deletes SSTables that end before it (a truncation that saved its
	// record but crashed before deleting the files).
	truncated map[data.TableID]commitlog.Position
	// compactedTo is the largest upper bound among SSTables that a
	// compaction removed without writing an output (every cell purged or
	// expired). Without it the largest upper bound of the remaining
	// SSTables could go back, and replay would apply again records whose
	// data, or the tombstones shadowing it, that compaction dropped.
	compactedTo map[data.TableID]commitlog.Position
}

func newLogMarks() logMarks {
	return logMarks{truncated: map[data.TableID]commitlog.Position{}, compactedTo: map[data.TableID]commitlog.Position{}}
}

// forget removes the marks of table id (a dropped table).
func (m logMarks) forget(id data.TableID) {
	delete(m.truncated, id)
	delete(m.compactedTo, id)
}

// floor returns the position before which replay skips the records of
// table id whatever its SSTables cover: the larger of its marks.
func (m logMarks) floor(id data.TableID) commitlog.Position {
	p := m.truncated[id]
	if ct := m.compactedTo[id]; ct.Compare(p) > 0 {
		p = ct
	}
	return p
}

// clone returns a copy of m, to restore if a schema file write fails.
func (m logMarks) clone() logMarks {
	return logMarks{truncated: maps.Clone(m.truncated), compactedTo: maps.Clone(m.compactedTo)}
}

// encodeSchema returns the schema file bytes of st with the log marks.
func encodeSchema(st *schemaState, marks logMarks) ([]byte, error) {
	var f schemaFileJSON
	f.Keyspaces = []keyspaceJSON{}
	version := uint32(schemaVersion)
	for _, name := range slices.Sorted(maps.Keys(st.keyspaces)) {
		ks := st.keyspaces[name]
		kj := keyspaceJSON{Name: name, Replication: ks.def.Replication, DurableWrites: ks.def.DurableWrites, Tables: []tableJSON{}}
		for _, ut := range ks.def.Types {
			tj := typeJSON{Name: ut.UDT.Name}
			for i, f := range ut.UDT.Fields {
				tj.Fields = append(tj.Fields, fieldJSON{Name: f, Type: ut.DeclaredField(i).String()})
			}
			kj.Types = append(kj.Types, tj)
		}
		for _, fn := range ks.def.Functions {
			kj.Functions = append(kj.Functions, functionJSON{Name: fn.Name, ArgNames: fn.ArgNames, ArgTypes: typeStrings(fn.ArgTypes),
				Return: fn.Return.String(), CalledOnNullInput: fn.CalledOnNullInput, Language: fn.Language, Body: fn.Body})
		}
		for _, a := range ks.def.Aggregates {
			kj.Aggregates = append(kj.Aggregates, aggregateJSON{Name: a.Name, ArgTypes: typeStrings(a.ArgTypes), StateFunc: a.StateFunc,
				StateType: a.StateType.String(), FinalFunc: a.FinalFunc, InitCond: initCondJSON(a.InitCond), Return: a.Return.String()})
		}
		for _, tn := range slices.Sorted(maps.Keys(ks.tables)) {
			t := ks.tables[tn]
			tj := tableJSON{Name: tn, ID: hex.EncodeToString(t.ID[:]), Options: t.Options, View: t.View, Compact: t.Compact}
			for _, c := range t.Columns {
				tj.Columns = append(tj.Columns, columnJSON{Name: c.Name, Type: c.Type.String(), Kind: c.Kind.String(), Position: c.Position, Desc: c.Desc})
			}
			for _, name := range slices.Sorted(maps.Keys(t.Dropped)) {
				d := t.Dropped[name]
				tj.Dropped = append(tj.Dropped, droppedJSON{Name: name, Type: d.Type.String(), DroppedAt: d.DroppedAt, Static: d.Static})
			}
			for _, ix := range t.Indexes {
				tj.Indexes = append(tj.Indexes, indexJSON{Name: ix.Name, Column: ix.Column, Target: indexTargetName(ix.Target),
					Class: ix.Class, Options: ix.Options})
			}
			for _, tr := range t.Triggers {
				tj.Triggers = append(tj.Triggers, triggerJSON{Name: tr.Name, Class: tr.Class})
				version = schemaVersionTriggers
			}
			if p, ok := marks.truncated[t.ID]; ok {
				tj.TruncatedAt = &positionJSON{Segment: p.Segment, Offset: p.Offset}
			}
			if p, ok := marks.compactedTo[t.ID]; ok {
				tj.CompactedTo = &positionJSON{Segment: p.Segment, Offset: p.Offset}
			}
			kj.Tables = append(kj.Tables, tj)
		}
		f.Keyspaces = append(f.Keyspaces, kj)
	}
	payload, err := json.Marshal(&f)
	if err != nil {
		return nil, err
	}
	b := make([]byte, schemaHeaderSize, schemaHeaderSize+len(payload))
	copy(b, schemaMagic)
	binary.LittleEndian.PutUint32(b[4:], version)
	binary.LittleEndian.PutUint32(b[8:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[12:], crc32.Checksum(payload, crcTable))
	return append(b, payload...), nil
}

// decodeSchema parses a schema file named file into keyspaces, tables and
// log marks.
func decodeSchema(file string, b []byte) (*schemaState, logMarks, error) {
	bad := func(off int, format string, args ...any) error {
		return fmt.Errorf("%w: schema file %s at offset %d: %s", ErrCorruption, file, off, fmt.Sprintf(format, args...))
	}
	if len(b) < schemaHeaderSize {
		return nil, logMarks{}, bad(0, "%d bytes, shorter than the header", len(b))
	}
	if string(b[:4]) != schemaMagic {
		return nil, logMarks{}, bad(0, "bad magic %q", b[:4])
	}
	if v := binary.LittleEndian.Uint32(b[4:]); v != schemaVersion && v != schemaVersionV1 && v != schemaVersionTriggers {
		return nil, logMarks{}, bad(4, "unknown version %d", v)
	}
	n := binary.LittleEndian.Uint32(b[8:])
	if uint64(n) != uint64(len(b)-schemaHeaderSize) {
		return nil, logMarks{}, bad(8, "payload length %d, file holds %d", n, len(b)-schemaHeaderSize)
	}
	payload := b[schemaHeaderSize:]
	if got, want := crc32.Checksum(payload, crcTable), binary.LittleEndian.Uint32(b[12:]); got != want {
		return nil, logMarks{}, bad(schemaHeaderSize, "checksum mismatch (stored %08x, computed %08x)", want, got)
	}
	var f schemaFileJSON
	if err := json.Unmarshal(payload, &f); err != nil {
		return nil, logMarks{}, bad(schemaHeaderSize, "%v", err)
	}
	st := emptySchemaState()
	marks := newLogMarks()
	for _, kj := range f.Keyspaces {
		ks := &keyspaceState{def: &schema.Keyspace{Name: kj.Name, Replication: kj.Replication, DurableWrites: kj.DurableWrites},
			tables: map[string]*schema.Table{}}
		resolve := func(name string) (types.Type, bool) { return ks.def.Type(name) }
		for _, tj := range kj.Types {
			ut := &types.UserType{Keyspace: kj.Name, Name: tj.Name}
			var fields []types.Type
			for _, fj := range tj.Fields {
				ft, err := types.ParseTypeWith(fj.Type, resolve)
				if err != nil {
					return nil, logMarks{}, bad(schemaHeaderSize, "field %s of type %s.%s: %v", fj.Name, kj.Name, tj.Name, err)
				}
				ut.Fields = append(ut.Fields, fj.Name)
				fields = append(fields, ft)
			}
			ks.def.Types = append(ks.def.Types, types.UserTypeOf(ut, fields, false))
		}
		parseTypes := func(what string, ss []string) ([]types.Type, error) {
			out := make([]types.Type, len(ss))
			for i, s := range ss {
				t, err := types.ParseTypeWith(s, resolve)
				if err != nil {
					return nil, bad(schemaHeaderSize, "%s of keyspace %s: %v", what, kj.Name, err)
				}
				out[i] = t
			}
			return out, nil
		}
		for _, fj := range kj.Functions {
			ts, err := parseTypes("function "+fj.Name, append(slices.Clone(fj.ArgTypes), fj.Return))
			if err != nil {
				return nil, logMarks{}, err
			}
			if len(fj.ArgNames) != len(fj.ArgTypes) {
				return nil, logMarks{}, bad(schemaHeaderSize, "function %s.%s: %d argument names for %d types", kj.Name, fj.Name, len(fj.ArgNames), len(fj.ArgTypes))
			}
			fn := schema.Function{Keyspace: kj.Name, Name: fj.Name, ArgNames: fj.ArgNames, ArgTypes: ts[:len(ts)-1], Return: ts[len(ts)-1],
				CalledOnNullInput: fj.CalledOnNullInput, Language: fj.Language, Body: fj.Body}
			ks.def.Functions = append(ks.def.Functions, fn.Prepared())
		}
		for _, aj := range kj.Aggregates {
			ts, err := parseTypes("aggregate "+aj.Name, append(slices.Clone(aj.ArgTypes), aj.StateType, aj.Return))
			if err != nil {
				return nil, logMarks{}, err
			}
			n := len(aj.ArgTypes)
			ks.def.Aggregates = append(ks.def.Aggregates, &schema.Aggregate{Keyspace: kj.Name, Name: aj.Name, ArgTypes: ts[:n],
				StateFunc: aj.StateFunc, StateType: ts[n], FinalFunc: aj.FinalFunc, InitCond: initCondOf(aj.InitCond), Return: ts[n+1]})
		}
		for _, tj := range kj.Tables {
			var id data.TableID
			if raw, err := hex.DecodeString(tj.ID); err != nil || len(raw) != len(id) {
				return nil, logMarks{}, bad(schemaHeaderSize, "table %s.%s: bad id %q", kj.Name, tj.Name, tj.ID)
			} else {
				copy(id[:], raw)
			}
			cols := make([]*schema.Column, 0, len(tj.Columns))
			for _, cj := range tj.Columns {
				typ, err := types.ParseTypeWith(cj.Type, resolve)
				if err != nil {
					return nil, logMarks{}, bad(schemaHeaderSize, "column %s of %s.%s: %v", cj.Name, kj.Name, tj.Name, err)
				}
				kind, ok := columnKinds[cj.Kind]
				if !ok {
					return nil, logMarks{}, bad(schemaHeaderSize, "column %s of %s.%s: kind %q", cj.Name, kj.Name, tj.Name, cj.Kind)
				}
				cols = append(cols, &schema.Column{Name: cj.Name, Type: typ, Kind: kind, Position: cj.Position, Desc: cj.Desc})
			}
			t := schema.NewTable(kj.Name, tj.Name, id, cols, tj.Options)
			t.Compact = tj.Compact
			for _, dj := range tj.Dropped {
				typ, err := types.ParseTypeWith(dj.Type, resolve)
				if err != nil {
					return nil, logMarks{}, bad(schemaHeaderSize, "dropped column %s of %s.%s: %v", dj.Name, kj.Name, tj.Name, err)
				}
				if t.Dropped == nil {
					t.Dropped = map[string]schema.DroppedColumn{}
				}
				t.Dropped[dj.Name] = schema.DroppedColumn{Type: typ, DroppedAt: dj.DroppedAt, Static: dj.Static}
			}
			for _, ij := range tj.Indexes {
				target, ok := indexTargets[ij.Target]
				if !ok || t.StoredColumn(ij.Column) == nil || ij.Name == "" {
					return nil, logMarks{}, bad(schemaHeaderSize, "index %q of %s.%s: bad column %q or target %q", ij.Name, kj.Name, tj.Name, ij.Column, ij.Target)
				}
				t.Indexes = append(t.Indexes, schema.Index{Name: ij.Name, Column: ij.Column, Target: target, Class: ij.Class, Options: ij.Options})
			}
			for _, trj := range tj.Triggers {
				if trj.Name == "" || trj.Class == "" {
					return nil, logMarks{}, bad(schemaHeaderSize, "trigger %q of %s.%s: no name or class", trj.Name, kj.Name, tj.Name)
				}
				t.Triggers = append(t.Triggers, schema.Trigger{Name: trj.Name, Class: trj.Class})
			}
			if tj.View != nil {
				if tj.View.BaseName == "" {
					return nil, logMarks{}, bad(schemaHeaderSize, "view %s.%s has no base table", kj.Name, tj.Name)
				}
				t.View = tj.View
			}
			ks.tables[tj.Name] = t
			if tj.TruncatedAt != nil {
				marks.truncated[id] = commitlog.Position{Segment: tj.TruncatedAt.Segment, Offset: tj.TruncatedAt.Offset}
			}
			if tj.CompactedTo != nil {
				marks.compactedTo[id] = commitlog.Position{Segment: tj.CompactedTo.Segment, Offset: tj.CompactedTo.Offset}
			}
		}
		st.keyspaces[kj.Name] = ks
	}
	return st, marks, nil
}

// initCondJSON and initCondOf convert an aggregate's initial state to and
// from the file, keeping an empty value (INITCOND ”) apart from none.
func initCondJSON(b []byte) *[]byte {
	if b == nil {
		return nil
	}
	return &b
}

func initCondOf(p *[]byte) []byte {
	if p == nil {
		return nil
	}
	if *p == nil {
		return []byte{}
	}
	return *p
}

// typeStrings returns the CQL type strings of ts.
func typeStrings(ts []types.Type) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.String()
	}
	return out
}

// schemaFileName returns the name of schema file n.
func schemaFileName(n uint64) string {
	return schemaFilePrefix + strconv.FormatUint(n, 10) + schemaFileSuffix
}

// parseSchemaFileName returns n for a name schema-<n>.db.
func parseSchemaFileName(name string) (uint64, bool) {
	s, ok := strings.CutPrefix(name, schemaFilePrefix)
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, schemaFileSuffix)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// readSchemaFile loads the newest schema file of dir, removing leftovers
// (temporary files, older versions). It returns a nil state and n = 0 when
// there is none, and errEmptySchemaFile with its n when it is empty.
func readSchemaFile(fsys vfs.FS, dir string) (*schemaState, logMarks, uint64, error) {
	names, newest, found, err := newestSchemaFile(fsys, dir)
	if err != nil {
		return nil, logMarks{}, 0, err
	}
	for _, name := range names {
		if n, ok := parseSchemaFileName(name); (ok && n != newest) || strings.HasSuffix(name, ".tmp") {
			if err := fsys.Remove(fsys.PathJoin(dir, name)); err != nil {
				return nil, logMarks{}, 0, err
			}
		}
	}
	if !found {
		return nil, logMarks{}, 0, nil
	}
	if fi, err := fsys.Stat(fsys.PathJoin(dir, schemaFileName(newest))); err == nil && fi.Size() == 0 {
		return nil, logMarks{}, newest, fmt.Errorf("%w: schema file %s is empty", errEmptySchemaFile, fsys.PathJoin(dir, schemaFileName(newest)))
	}
	st, marks, err := loadSchemaFile(fsys, dir, newest)
	if err != nil {
		return nil, logMarks{}, 0, err
	}
	return st, marks, newest, nil
}

// errEmptySchemaFile is returned by readSchemaFile for a schema file of no
// bytes (emptied): Open treats it as a missing file.
var errEmptySchemaFile = errors.New("engine: empty schema file")

// newestSchemaFile lists dir and finds the number of its newest schema
// file; a missing dir has none.
func newestSchemaFile(fsys vfs.FS, dir string) (names []string, newest uint64, found bool, err error) {
	names, err = fsys.List(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	for _, name := range names {
		if n, ok := parseSchemaFileName(name); ok && (!found || n > newest) {
			newest, found = n, true
		}
	}
	return names, newest, found, nil
}

// loadSchemaFile reads and decodes schema file n of dir.
func loadSchemaFile(fsys vfs.FS, dir string, n uint64) (*schemaState, logMarks, error) {
	path := fsys.PathJoin(dir, schemaFileName(n))
	f, err := fsys.Open(path)
	if err != nil {
		return nil, logMarks{}, err
	}
	b, err := io.ReadAll(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, logMarks{}, fmt.Errorf("engine: reading %s: %w", path, err)
	}
	return decodeSchema(path, b)
}

// ReadTables returns the tables recorded in the schema file of the data
// directory dir (Options.Dir), sorted by keyspace and name. It only reads:
// it takes no lock and removes nothing, so offline tools (sstabledump) can
// decode a directory's SSTables while an engine runs on it.
func ReadTables(fsys vfs.FS, dir string) ([]*schema.Table, error) {
	sdir := fsys.PathJoin(dir, schemaDirName)
	_, newest, found, err := newestSchemaFile(fsys, sdir)
	if err != nil || !found {
		return nil, err
	}
	st, _, err := loadSchemaFile(fsys, sdir, newest)
	if err != nil {
		return nil, err
	}
	var out []*schema.Table
	for _, ks := range st.keyspaces {
		for _, t := range ks.tables {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *schema.Table) int {
		return cmp.Or(cmp.Compare(a.Keyspace, b.Keyspace), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// writeSchemaFile writes b as schema file n of dir atomically and removes
// file n-1.
func writeSchemaFile(fsys vfs.FS, dir string, n uint64, b []byte) error {
	final := fsys.PathJoin(dir, schemaFileName(n))
	tmp := final + ".tmp"
	f, err := fsys.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := fsys.Rename(tmp, final); err != nil {
		return err
	}
	if err := fsys.SyncDir(dir); err != nil {
		return err
	}
	if n > 1 {
		if err := fsys.Remove(fsys.PathJoin(dir, schemaFileName(n-1))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
