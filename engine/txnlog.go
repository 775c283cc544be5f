package engine

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/minicass/minicass/sstable"
	"github.com/minicass/minicass/vfs"
)

// The compaction transaction log makes the switch from a compaction's
// input SSTables to its output atomic across crashes, like Cassandra's
// LifecycleTransaction log files. Each compaction writes one file in the
// table's directory, compaction-<n>.txn, before it creates any output:
//
//	remove <gen> <crc>     one line per input SSTable
//	add <gen> <crc>        appended and fsynced before output <gen> is created
//	commit 0 <crc>         appended and fsynced once every output is complete
//
// <crc> is the CRC32C (Castagnoli) of "<kind> <gen>" in 8 hex digits. A
// line that is torn or fails its checksum ends the file (a crash while
// appending). Worked example, a compaction of generations 1 and 2 into 5:
//
//	remove 1 01eddd04
//	remove 2 12bd2ef0
//	add 5 945ddd87
//	commit 0 0306d4ea
//
// Open replays every log before listing the
// SSTables: a committed log removes the "remove" generations, an
// uncommitted one the "add" generations; then the log itself is deleted.
// The commit record is the single atomic step, so a crash at any point
// leaves either the inputs or the outputs readable, never both (counters
// would count twice) and never neither. After a commit the engine removes
// the inputs once no read holds them, then the log.

// A flush writes the same kind of log, flush-<gen>.txn, with one "add"
// line for its output and no "remove" line: an SSTable generation is
// removed at open only when a log says it is unfinished (or one of its
// files has a temporary name), never merely because TOC.txt is missing.

const (
	txnPrefix      = "compaction-"
	flushTxnPrefix = "flush-"
	txnSuffix      = ".txn"
)

// txnLog is an open compaction transaction log.
type txnLog struct {
	fs   vfs.FS
	dir  string
	name string
	f    vfs.File
}

func txnLine(kind string, gen int) string {
	rec := kind + " " + strconv.Itoa(gen)
	return fmt.Sprintf("%s %08x\n", rec, crc32.Checksum([]byte(rec), crcTable))
}

// createTxn creates compaction-<n>.txn in dir recording the inputs, and
// makes it durable (file and directory entry) before returning.
func createTxn(fsys vfs.FS, dir string, n int, inputs []int) (*txnLog, error) {
	return createTxnNamed(fsys, dir, txnPrefix+strconv.Itoa(n)+txnSuffix, inputs, nil)
}

// createFlushTxn creates flush-<gen>.txn in dir recording output gen, and
// makes it durable before returning: call it before creating gen.
func createFlushTxn(fsys vfs.FS, dir string, gen int) (*txnLog, error) {
	return createTxnNamed(fsys, dir, flushTxnPrefix+strconv.Itoa(gen)+txnSuffix, nil, []int{gen})
}

func createTxnNamed(fsys vfs.FS, dir, name string, inputs, outputs []int) (*txnLog, error) {
	t := &txnLog{fs: fsys, dir: dir, name: fsys.PathJoin(dir, name)}
	f, err := fsys.Create(t.name)
	if err != nil {
		return nil, err
	}
	t.f = f
	var b strings.Builder
	for _, g := range inputs {
		b.WriteString(txnLine("remove", g))
	}
	for _, g := range outputs {
		b.WriteString(txnLine("add", g))
	}
	if err := t.append(b.String()); err != nil {
		return nil, errors.Join(err, t.close())
	}
	if err := fsys.SyncDir(dir); err != nil {
		return nil, errors.Join(err, t.close())
	}
	return t, nil
}

func (t *txnLog) append(s string) error {
	if _, err := io.WriteString(t.f, s); err != nil {
		return err
	}
	return t.f.Sync()
}

// add records the output generation gen; call it before creating gen.
func (t *txnLog) add(gen int) error { return t.append(txnLine("add", gen)) }

// commit records that the outputs replace the inputs.
func (t *txnLog) commit() error { return t.append(txnLine("commit", 0)) }

func (t *txnLog) close() error {
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	return err
}

// remove closes and deletes the log.
func (t *txnLog) remove() error {
	err := t.close()
	if rerr := t.fs.Remove(t.name); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	return err
}

// txnRecords is what a log holds.
type txnRecords struct {
	remove, add []int
	committed   bool
}

// parseTxn reads a log's records up to the first torn or damaged line.
func parseTxn(b []byte) txnRecords {
	var r txnRecords
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			break
		}
		gen, err := strconv.Atoi(f[1])
		if err != nil {
			break
		}
		if want := strings.TrimSpace(txnLine(f[0], gen)); want != sc.Text() {
			break
		}
		switch f[0] {
		case "remove":
			r.remove = append(r.remove, gen)
		case "add":
			r.add = append(r.add, gen)
		case "commit":
			r.committed = true
		}
	}
	return r
}

// replayTxns finishes or rolls back the compactions logged in dir (see
// above) and returns the number of logs found.
func replayTxns(fsys vfs.FS, dir string) (int, error) {
	names, err := fsys.List(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, name := range names {
		if !(strings.HasPrefix(name, txnPrefix) || strings.HasPrefix(name, flushTxnPrefix)) || !strings.HasSuffix(name, txnSuffix) {
			continue
		}
		n++
		path := fsys.PathJoin(dir, name)
		b, err := readFileAll(fsys, path)
		if err != nil {
			return n, err
		}
		recs := parseTxn(b)
		gone := recs.add
		if recs.committed {
			gone = recs.remove
		}
		for _, g := range gone {
			if err := sstable.Remove(fsys, dir, g); err != nil {
				return n, err
			}
		}
		if err := fsys.SyncDir(dir); err != nil {
			return n, err
		}
		if err := fsys.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
	}
	return n, nil
}

func readFileAll(fsys vfs.FS, path string) ([]byte, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(f)
	return b, errors.Join(err, f.Close())
}
