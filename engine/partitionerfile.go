package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/minicass/minicass/partitioner"
)

// partitionerFileName is the file of a data directory that names the
// partitioner its data was written under, when that is not the default:
//
//	DIR/PARTITIONER   "org.apache.cassandra.dht.ByteOrderedPartitioner\n"
//
// The format is the partitioner's class name (partitioner.ClassName) and a
// newline, written once, atomically (a temporary file renamed into place),
// when a fresh directory opens under a partitioner other than Murmur3. A
// directory without the file was written under Murmur3Partitioner, as every
// directory of a minicass that had no other partitioner was; so the file
// changes nothing on disk for the default.
//
// Cassandra records the partitioner in each SSTable's Statistics.db
// (ValidationMetadata) and in system.local, and refuses an SSTable whose
// partitioner is not the node's. minicass's SSTables, commit-log records and
// memtables keep the tokens the partitioner gave, which another partitioner
// would order differently, so Open refuses the whole directory instead.
const partitionerFileName = "PARTITIONER"

// ErrPartitionerMismatch is returned by Open when the data directory was
// written under another partitioner than Options.Partitioner. The message
// is Cassandra's for an SSTable of another partitioner, naming the
// directory.
var ErrPartitionerMismatch = errors.New("engine: partitioner mismatch")

// checkPartitioner compares the data directory's partitioner with the
// engine's: hasData says whether the directory already holds a schema
// (written under the recorded partitioner, Murmur3 without a file). A fresh
// directory opened under a non-default partitioner records it.
func (e *Engine) checkPartitioner(hasData bool) error {
	dir := e.opts.Dir
	path := e.fs.PathJoin(dir, partitionerFileName)
	b, err := readFileAll(e.fs, path)
	recorded := partitioner.Murmur3Partitioner
	switch {
	case err == nil:
		name := strings.TrimSuffix(string(b), "\n")
		p, ok := partitioner.Parse(name)
		if !ok || !strings.Contains(name, ".") {
			return fmt.Errorf("%w: %s names no partitioner: %q", ErrCorruption, path, name)
		}
		recorded = p
	case errors.Is(err, fs.ErrNotExist):
		if !hasData {
			return e.writePartitionerFile(path)
		}
	default:
		return fmt.Errorf("engine: reading %s: %w", path, err)
	}
	if recorded != e.opts.Partitioner {
		return fmt.Errorf("%w: Cannot open %s; partitioner %s does not match system partitioner %s. "+
			"Note that the default partitioner starting with Cassandra 1.2 is Murmur3Partitioner, "+
			"so you will need to edit that to match your old partitioner if upgrading.",
			ErrPartitionerMismatch, dir, recorded.ClassName(), e.opts.Partitioner.ClassName())
	}
	return nil
}

// writePartitionerFile records a non-default partitioner in a fresh data
// directory (nothing for Murmur3, the directory's default).
func (e *Engine) writePartitionerFile(path string) error {
	if e.opts.Partitioner == partitioner.Murmur3Partitioner {
		return nil
	}
	tmp := path + ".tmp"
	f, err := e.fs.Create(tmp)
	if err != nil {
		return fmt.Errorf("engine: writing %s: %w", path, err)
	}
	_, err = f.Write([]byte(e.opts.Partitioner.ClassName() + "\n"))
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err == nil {
		err = e.fs.Rename(tmp, path)
	}
	if err == nil {
		err = e.fs.SyncDir(e.opts.Dir)
	}
	if err != nil {
		return fmt.Errorf("engine: writing %s: %w", path, err)
	}
	return nil
}
