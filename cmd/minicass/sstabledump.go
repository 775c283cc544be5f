package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/sstable"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/vfs"
)

// minicass sstabledump prints one SSTable as Cassandra's sstabledump does
// (sstable.Dump: the same JSON), for a file of a data directory:
//
//	minicass sstabledump DIR/data/ks/t-<id>/xa-1-big-Data.db [-e] [-k KEY]... [-x KEY]... [-t] [-l]
//	minicass sstabledump --layout [--hex] DIR/data/ks/t-<id>/xa-1-big-Data.db
//
// The table's schema comes from DIR's schema file, read without locking or
// changing anything, so the command may run while a server uses DIR (it
// sees the SSTables already written; a flush makes the memtables one).
// --layout prints the physical layout instead (sstable.LayoutTable):
// chunks, partitions, row index blocks, with partition keys and block bounds
// decoded with the table's types; --hex prints them as the bytes stored.
func init() {
	commands["sstabledump"] = command{
		summary: "print an SSTable of a data directory as Cassandra's sstabledump does (-e, -k, -x, -t, -l; --layout [--hex])",
		run:     sstabledumpMain,
	}
}

// keyList is a repeatable -k or -x flag.
type keyList []string

func (k *keyList) String() string     { return strings.Join(*k, ",") }
func (k *keyList) Set(v string) error { *k = append(*k, v); return nil }

func sstabledumpMain(args []string, io stdio) int {
	fs := flag.NewFlagSet("sstabledump", flag.ContinueOnError)
	fs.SetOutput(io.err)
	keysOnly := fs.Bool("e", false, "enumerate partition keys only")
	raw := fs.Bool("t", false, "print raw timestamps instead of ISO-8601 instants")
	lines := fs.Bool("l", false, "print each partition as a separate JSON object on its own line")
	debug := fs.Bool("d", false, "CQL row per line internal representation (not supported)")
	layout := fs.Bool("layout", false, "print the physical layout (chunks, partitions, index blocks) instead")
	hexKeys := fs.Bool("hex", false, "with --layout: print keys and block bounds as the bytes stored, in hex")
	var include, exclude keyList
	fs.Var(&include, "k", "partition key to include (repeatable)")
	fs.Var(&exclude, "x", "partition key to exclude (repeatable)")
	// sstabledump takes the path first and the options after it; either
	// order works.
	rest, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(rest) != 1 {
		fmt.Fprintln(io.err, "usage: minicass sstabledump <sstable file path> [-e] [-k KEY]... [-x KEY]... [-t] [-l] [--layout [--hex]]")
		return 2
	}
	path := rest[0]
	if *debug {
		fmt.Fprintln(io.err, "minicass sstabledump: -d (the internal row representation) is not supported; the JSON output shows the same data")
		return 2
	}
	if err := sstabledump(io, path, *layout, *hexKeys, sstable.DumpOptions{Now: time.Now(), RawTimestamps: *raw, JSONLines: *lines, KeysOnly: *keysOnly}, include, exclude); err != nil {
		fmt.Fprintf(io.err, "minicass sstabledump: %v\n", err)
		return 1
	}
	return 0
}

func sstabledump(io stdio, path string, layout, hexKeys bool, opts sstable.DumpOptions, include, exclude []string) error {
	dir, name := filepath.Split(filepath.Clean(path))
	dir = filepath.Clean(dir)
	gen, _, ok := sstable.ParseFileName(name)
	if !ok {
		return fmt.Errorf("%s is not an SSTable component (such as xa-1-big-Data.db)", name)
	}
	t, err := sstableTable(dir)
	if err != nil {
		return err
	}
	r, err := sstable.Open(vfs.Default, dir, gen, sstable.ReaderOptions{})
	if err != nil {
		return err
	}
	defer r.Close()
	if layout {
		if hexKeys {
			return sstable.Layout(io.out, r)
		}
		return sstable.LayoutTable(io.out, r, t)
	}
	if len(include) > 0 || len(exclude) > 0 {
		keep, err := keyFilter(t, include, exclude)
		if err != nil {
			return err
		}
		opts.Keep = keep
	}
	if err := sstable.Dump(io.out, r, t, opts); err != nil {
		return err
	}
	_, err = fmt.Fprintln(io.out)
	return err
}

// sstableTable finds the table of an SSTable directory
// DIR/data/<keyspace>/<table>-<id> in DIR's schema.
func sstableTable(dir string) (*schema.Table, error) {
	tableDir := filepath.Base(dir)
	ksDir := filepath.Dir(dir)
	root := filepath.Dir(filepath.Dir(ksDir))
	if filepath.Base(filepath.Dir(ksDir)) != "data" {
		return nil, fmt.Errorf("%s is not a table directory of a data directory (DIR/data/<keyspace>/<table>-<id>)", dir)
	}
	tables, err := engine.ReadTables(vfs.Default, root)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		if t.Keyspace == filepath.Base(ksDir) && engine.TableDirName(t) == tableDir {
			return t, nil
		}
	}
	return nil, fmt.Errorf("no table of %s's schema has the directory %s (dropped?)", root, tableDir)
}

// keyFilter returns a filter keeping the partitions whose key is in
// include (all when it is empty) and not in exclude. A key is written as
// sstabledump reads it (AbstractType.fromString): the text of the value,
// the components of a composite key separated by ':' (a '\:' is a colon in
// a component).
func keyFilter(t *schema.Table, include, exclude []string) (func([]byte) bool, error) {
	set := func(keys []string) (map[string]bool, error) {
		m := map[string]bool{}
		for _, k := range keys {
			b, err := parseKey(t, k)
			if err != nil {
				return nil, err
			}
			m[string(b)] = true
		}
		return m, nil
	}
	in, err := set(include)
	if err != nil {
		return nil, err
	}
	out, err := set(exclude)
	if err != nil {
		return nil, err
	}
	return func(key []byte) bool {
		return (len(in) == 0 || in[string(key)]) && !out[string(key)]
	}, nil
}

// parseKey converts a partition key of t written as text to its
// serialized form.
func parseKey(t *schema.Table, s string) ([]byte, error) {
	pk := t.PartitionKey()
	kinds := make([]types.Type, len(pk))
	for i, c := range pk {
		kinds[i] = c.Type
	}
	return parseKeyOf(kinds, s)
}
