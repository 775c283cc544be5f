package sstable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/vfs"
)

// Meta describes a finished SSTable.
type Meta struct {
	Dir string
	Gen int
	// Files lists the component file names (without directory) in TOC
	// order.
	Files []string
	// Sizes holds each component's length in bytes, by component.
	Sizes map[Component]int64
	Stats Stats
}

// blockInfo is one row-index block: rows [Offset, Offset+Length) relative to
// the partition's start in the uncompressed data stream.
type blockInfo struct {
	First, Last    []byte
	Offset, Length uint64
}

type summaryEntry struct {
	token    int64
	key      []byte
	indexPos uint64
}

// Writer writes one SSTable, push-style: BeginPartition, AddRow for each row
// in clustering order, EndPartition, for each partition in token order, then
// Finish (or Abort). A Writer is not safe for concurrent use. After an
// error, the Writer is unusable and Abort removes what it wrote.
//
// Structure: a pipeline of two stages (three with Index.db). On the
// caller's goroutine the Writer encodes each partition header and row
// record straight into the current chunk of the uncompressed Data.db stream
// (writeRowRecord), and each index entry into the Index.db buffer; full
// chunks go to the dataSink (sink.go), whose goroutine compresses,
// checksums and writes them, in batches of sinkBatch with recycled chunk
// buffers, and full Index.db buffers to the indexSink's goroutine. A sink's
// error surfaces from the Writer's next hand-over, Finish or Abort, and
// Finish and Abort both end the goroutines. A narrow flush spends its time
// in encoding (and the memtable's iteration), not in compression: the sink
// goroutine is mostly idle (bench/RESULTS.md, Run 40). The files are
// created on a goroutine of their own, started by NewWriter (see
// precreation).
type Writer struct {
	fs   vfs.FS
	dir  string
	gen  int
	opts WriterOptions
	err  error // sticky
	done bool

	data, index vfs.File
	created     []string
	// pre creates the SSTable's files (see precreate); data, index and
	// late hold them once Finish or Abort took them (takeLate), each
	// entry cleared when its file is handed on.
	pre          *precreation
	late         [numLate]vfs.File
	chunk        []byte // uncompressed bytes of the current chunk
	pos          uint64 // uncompressed stream offset
	sink         *dataSink
	indexSink    *indexSink
	indexOut     []byte
	indexFileOff uint64
	summary      []summaryEntry
	// summaryDue counts the partitions until the next summary entry.
	summaryDue int
	stats      Stats
	enc        rowEncoder
	scratch    []byte
	rowBuf     []byte
	blockOffs  []uint32
	// maxRecord is the longest row record written so far (see
	// writeRowRecord).
	maxRecord     int
	hasPartitions bool
	// sizeBucket and cellBucket are the histogram buckets of the last
	// partition (Histogram.addNear).
	sizeBucket, cellBucket int

	// Current partition.
	inPartition bool
	token       int64
	key         []byte
	deletion    data.DeletionTime
	partStart   uint64
	rowsOff     uint64
	// plainHeader is set when the partition header holds neither a static
	// row nor range tombstones; marks are the positions (relative to
	// partStart) of the first record starting in each chunk after the one
	// the rows start in, and markChunk the chunk of the last position
	// recorded (see entryHasChunkMarks).
	plainHeader bool
	marks       []uint64
	markChunk   uint64
	blocks      []blockInfo
	blockOpen   bool
	blockStart  uint64
	arena       []byte
	lastClust   []byte
	hasLastRow  bool
	partCells   int64
	lastToken   int64
	lastKey     []byte
}

// indexFlushSize and dataFlushSize are the buffer sizes at which the writer
// hands bytes to the file.
const (
	indexFlushSize = 128 << 10
	dataFlushSize  = 256 << 10
)

// NewWriter returns a Writer of generation gen in dir (which must exist).
// It starts the creation of the SSTable's files, Data.db and Index.db
// first, on a goroutine (see precreation): an error creating one is
// returned by a later call (the write that needs the file, or Finish).
func NewWriter(fs vfs.FS, dir string, gen int, opts WriterOptions) (*Writer, error) {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if gen < 0 {
		return nil, fmt.Errorf("%w: negative generation %d", ErrInvalidOptions, gen)
	}
	w := &Writer{fs: fs, dir: dir, gen: gen, opts: opts, stats: newStats()}
	w.chunk = make([]byte, 0, opts.Compression.ChunkLength)
	w.indexOut = make([]byte, 0, 2*indexFlushSize)
	pre := w.precreate()
	w.pre = pre
	w.sink = newDataSink(opts.Compression.Codec, opts.Compression.ChunkLength, pre.dataFile, FileName(gen, ComponentData))
	hashes := 0 // a filter with no bits needs no hashes
	if opts.BloomFilterFPChance < 1 {
		hashes = min(max(opts.ExpectedPartitions, 1024), 1<<22)
	}
	w.indexSink = newIndexSink(pre.indexFile, FileName(gen, ComponentIndex), cap(w.indexOut), hashes)
	w.indexOut = appendHeader(w.indexOut, ComponentIndex)
	w.indexFileOff = 0 // the header is in w.indexOut
	return w, nil
}

// lateComponents are the components Finish writes once Data.db and
// Index.db are whole, in the order it writes them; TOC.txt's temporary
// file (see writeTOC) comes after them in Writer.late, at lateTOC.
var lateComponents = [...]Component{ComponentSummary, ComponentFilter, ComponentStatistics,
	ComponentCompressionInfo, ComponentDigest}

const (
	lateTOC = len(lateComponents)
	numLate = lateTOC + 1
)

// precreation is the creation of the SSTable's files: Data.db and
// Index.db, then the lateComponents and TOC.txt's temporary file.
// Creating a file can cost a millisecond of CPU and more (ext4 allocating
// an inode: 0.2-2 ms measured in a directory under /tmp on the benchmark
// machine, 20 us elsewhere on the same filesystem; flush7's note), and a
// flush creates nine files in turn: NewWriter created Data.db and
// Index.db before the first partition, Finish the six others once the
// last was written. NewWriter starts their creation, in that order, on a
// goroutine instead, which runs while the partitions are encoded; the
// sinks wait for Data.db and Index.db when they first write (dataFile,
// indexFile), Finish (or Abort) takes the files (takeLate). The files
// are empty until written; the temporary TOC.txt marks the generation
// unfinished from the start, as it did from Finish on before.
type precreation struct {
	done   chan struct{} // closed when the goroutine ends
	opened chan struct{} // closed once data and index are created, or failed
	// data, index and openErr (the error creating one of them) are the
	// goroutine's until opened is closed.
	data, index vfs.File
	openErr     error
	files       [numLate]vfs.File
	names       []string // the files created, in order
	err         error    // the first creation error; no file is created after it
}

// dataFile waits for Data.db's creation and returns it or the error.
func (p *precreation) dataFile() (vfs.File, error) {
	<-p.opened
	return p.data, p.openErr
}

// indexFile waits for Index.db's creation and returns it or the error.
func (p *precreation) indexFile() (vfs.File, error) {
	<-p.opened
	if p.openErr != nil {
		return nil, p.openErr
	}
	return p.index, nil
}

// precreate starts the creation of the SSTable's files, in order, on a
// goroutine.
func (w *Writer) precreate() *precreation {
	p := &precreation{done: make(chan struct{}), opened: make(chan struct{})}
	fsys, dir, gen := w.fs, w.dir, w.gen
	go func() {
		defer close(p.done)
		for i, c := range []Component{ComponentData, ComponentIndex} {
			name := FileName(gen, c)
			f, err := fsys.Create(fsys.PathJoin(dir, name))
			if err != nil {
				p.openErr = fmt.Errorf("sstable: create %s: %w", name, err)
				p.err = p.openErr
				close(p.opened)
				return
			}
			if i == 0 {
				p.data = f
			} else {
				p.index = f
			}
			p.names = append(p.names, name)
		}
		close(p.opened)
		for i := range p.files {
			name := FileName(gen, ComponentTOC) + tmpSuffix
			if i < lateTOC {
				name = FileName(gen, lateComponents[i])
			}
			f, err := fsys.Create(fsys.PathJoin(dir, name))
			if err != nil {
				p.err = fmt.Errorf("sstable: create %s: %w", name, err)
				return
			}
			p.files[i] = f
			p.names = append(p.names, name)
		}
	}()
	return p
}

// takeLate waits for the precreation, moves its files into w.data,
// w.index and w.late and their names into w.created, and returns its
// error. It may be called more than once; only the first call waits. The
// sinks must have stopped: they hold Data.db and Index.db otherwise.
func (w *Writer) takeLate() error {
	p := w.pre
	if p == nil {
		return nil
	}
	<-p.done
	w.pre = nil
	w.data, w.index, w.late = p.data, p.index, p.files
	w.created = append(w.created, p.names...)
	return p.err
}

func (w *Writer) check() error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return fmt.Errorf("%w: writer already finished or aborted", ErrWriterState)
	}
	return nil
}

func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

// BeginPartition starts a partition. Partitions must come in increasing
// (token, key) order (data.ComparePartitions). del is the partition
// deletion (data.LiveDeletion if none), static the static row or nil, rts
// the partition's range tombstones (in any order; they are stored sorted by
// Start). The Writer copies what it keeps: the caller may reuse key, static
// and rts after the call.
func (w *Writer) BeginPartition(token int64, key []byte, del data.DeletionTime, static *data.Row, rts []data.RangeTombstone) error {
	if err := w.check(); err != nil {
		return err
	}
	if w.inPartition {
		return w.fail(fmt.Errorf("%w: BeginPartition inside a partition", ErrWriterState))
	}
	if w.hasPartitions && data.ComparePartitions(w.lastToken, w.lastKey, token, key) >= 0 {
		return w.fail(fmt.Errorf("%w: partition (%d, %x) does not follow (%d, %x)", ErrOutOfOrder, token, key, w.lastToken, w.lastKey))
	}
	if static != nil && len(static.Clustering) != 0 {
		return w.fail(fmt.Errorf("%w: static row with clustering %x", ErrWriterState, static.Clustering))
	}
	w.inPartition = true
	w.token, w.deletion = token, del
	w.key = append(w.key[:0], key...)
	w.partStart = w.pos
	w.blocks = w.blocks[:0]
	w.blockOpen = false
	w.arena = w.arena[:0]
	w.hasLastRow = false
	w.partCells = 0

	// Partition header: key, flags, deletion, static row, range tombstones.
	sorted := rts
	if len(rts) > 1 && !sort.SliceIsSorted(rts, func(i, j int) bool { return lessBound(rts[i].Start, rts[j].Start) }) {
		sorted = append([]data.RangeTombstone(nil), rts...)
		sort.SliceStable(sorted, func(i, j int) bool { return lessBound(sorted[i].Start, sorted[j].Start) })
	}
	b := appendBytes(w.scratch[:0], key)
	var flags byte
	if del != data.LiveDeletion {
		flags |= partHasDeletion
	}
	if static != nil {
		flags |= partHasStatic
	}
	if len(sorted) > 0 {
		flags |= partHasRangeTombstones
	}
	b = append(b, flags)
	if !del.IsLive() {
		w.stats.PartitionTombstones++
		w.stats.ClusteringUnbounded = true
		w.stats.deletion(del)
	}
	if flags&partHasDeletion != 0 {
		b = w.enc.appendDeletion(b, del)
	}
	if static != nil {
		w.rowBuf = w.enc.appendRow(w.rowBuf[:0], static)
		b = binary.AppendUvarint(b, uint64(len(w.rowBuf)))
		b = append(b, w.rowBuf...)
		w.stats.row(static, true)
		w.partCells += int64(len(static.Cells))
	}
	if len(sorted) > 0 {
		b = binary.AppendUvarint(b, uint64(len(sorted)))
		for i := range sorted {
			b = w.enc.appendRangeTombstone(b, &sorted[i])
			w.stats.rangeTombstone(&sorted[i])
		}
	}
	w.scratch = b
	if err := w.writeStream(b); err != nil {
		return err
	}
	w.rowsOff = w.pos - w.partStart
	w.plainHeader = static == nil && len(sorted) == 0
	w.marks = w.marks[:0]
	w.markChunk = w.pos / uint64(w.opts.Compression.ChunkLength)
	return nil
}

// endOfPartition is the byte that ends a partition's records.
var endOfPartition = [1]byte{0}

// Partition header flags (format version 2). Part of the file format.
const (
	partHasDeletion        = 0x01
	partHasStatic          = 0x02
	partHasRangeTombstones = 0x04
	partFlagsReserved      = 0xf8
)

// Index entry flags. Part of the file format. Format version 2 has only
// entryHasDeletion and entryHasRowIndex (its reserved bits are
// entryFlagsReservedV2); version 3 adds entryHasChunkMarks and
// entryPlainHeader (see index.go).
const (
	entryHasDeletion     = 0x01
	entryHasRowIndex     = 0x02
	entryHasChunkMarks   = 0x04
	entryPlainHeader     = 0x08
	entryFlagsReserved   = 0xf0
	entryFlagsReservedV2 = 0xfc
)

// lessBound orders range-tombstone starts, nil (unbounded) first.
func lessBound(a, b []byte) bool {
	if a == nil || b == nil {
		return a == nil && b != nil
	}
	return bytes.Compare(a, b) < 0
}

// AddRow adds a row to the current partition. Rows must come in strictly
// increasing clustering order. The row is encoded immediately; the caller
// may reuse it after the call.
func (w *Writer) AddRow(r *data.Row) error {
	if err := w.check(); err != nil {
		return err
	}
	if !w.inPartition {
		return w.fail(fmt.Errorf("%w: AddRow outside a partition", ErrWriterState))
	}
	if w.hasLastRow && bytes.Compare(r.Clustering, w.lastClust) <= 0 {
		return w.fail(fmt.Errorf("%w: row %x does not follow %x", ErrOutOfOrder, r.Clustering, w.lastClust))
	}
	if !w.blockOpen {
		w.blockOpen = true
		w.blockStart = w.pos
		start := len(w.arena)
		w.arena = append(w.arena, r.Clustering...)
		w.blocks = append(w.blocks, blockInfo{First: w.arena[start:len(w.arena):len(w.arena)], Offset: w.pos - w.partStart})
	}
	// A row record is uvarint(len(row)) followed by the row: encode the
	// row after room for the longest length, put the length right before
	// it, and write the record in one piece.
	if c := w.pos / uint64(w.opts.Compression.ChunkLength); c != w.markChunk {
		w.marks = append(w.marks, w.pos-w.partStart)
		w.markChunk = c
	}
	if err := w.writeRowRecord(r); err != nil {
		return err
	}
	w.lastClust = append(w.lastClust[:0], r.Clustering...)
	w.hasLastRow = true
	w.stats.row(r, false)
	w.partCells += int64(len(r.Cells))
	if w.pos-w.blockStart >= uint64(w.opts.ColumnIndexSize) {
		w.closeBlock()
	}
	return nil
}

// writeRowRecord appends r's record, uvarint(len(row)) and the row, to the
// stream. When the current chunk has room to spare (directMargin, or twice
// the longest record so far) the row is encoded straight into the chunk
// after one byte for its length, which holds the length of any row shorter
// than 128 bytes: a narrow row costs no copy at all, a longer one a move by
// the length's extra bytes. Otherwise, or when the record would fill the
// chunk, the row is encoded after room for the longest length in scratch
// and written through writeStream, as every record was before.
func (w *Writer) writeRowRecord(r *data.Row) error {
	return w.writeRecord(r, nil)
}

// writeRecord is writeRowRecord for the row r, or for the plain row p when
// r is nil (AddPlainNarrowPartition).
func (w *Writer) writeRecord(r *data.Row, p *plainRow) error {
	if start := len(w.chunk); cap(w.chunk)-start > max(directMargin, 2*w.maxRecord) {
		b := w.appendRecordRow(append(w.chunk, 0), r, p)
		n := len(b) - start - 1
		if cap(b) == cap(w.chunk) && &b[0] == &w.chunk[:1][0] { // encoded in place
			ln := uvarintLen(uint64(n))
			if start+ln+n < cap(w.chunk) {
				if ln > 1 {
					b = append(b, make([]byte, ln-1)...)
					copy(b[start+ln:], b[start+1:start+1+n])
				}
				binary.PutUvarint(b[start:], uint64(n))
				w.chunk = b
				w.pos += uint64(ln + n)
				w.maxRecord = max(w.maxRecord, ln+n)
				return nil
			}
		}
		// The record fills the chunk or outgrew it: write it as below,
		// from the bytes just encoded (w.chunk still ends at start).
		const room = binary.MaxVarintLen64
		w.scratch = append(append(w.scratch[:0], make([]byte, room)...), b[start+1:start+1+n]...)
		return w.writeScratchRecord(n)
	}
	const room = binary.MaxVarintLen64
	b := w.appendRecordRow(append(w.scratch[:0], make([]byte, room)...), r, p)
	w.scratch = b
	return w.writeScratchRecord(len(b) - room)
}

// appendRecordRow appends the encoding of r, or of the plain row p when r
// is nil.
func (w *Writer) appendRecordRow(b []byte, r *data.Row, p *plainRow) []byte {
	if r != nil {
		return w.enc.appendRow(b, r)
	}
	return w.enc.appendPlainRow(b, p)
}

// writeScratchRecord writes the record of the n-byte row encoded in scratch
// after room for the longest uvarint.
func (w *Writer) writeScratchRecord(n int) error {
	const room = binary.MaxVarintLen64
	b := w.scratch
	var lb [binary.MaxVarintLen64]byte
	ln := binary.PutUvarint(lb[:], uint64(n))
	copy(b[room-ln:], lb[:ln])
	w.maxRecord = max(w.maxRecord, ln+n)
	return w.writeStream(b[room-ln : room+n])
}

// directMargin is the least room left in the current chunk for
// writeRowRecord to encode a row straight into it.
const directMargin = 1024

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

func (w *Writer) closeBlock() {
	if !w.blockOpen {
		return
	}
	blk := &w.blocks[len(w.blocks)-1]
	start := len(w.arena)
	w.arena = append(w.arena, w.lastClust...)
	blk.Last = w.arena[start:len(w.arena):len(w.arena)]
	blk.Length = w.pos - w.blockStart
	w.blockOpen = false
	// Blocks alias the arena; when the arena grew, earlier slices still
	// point at the old array, which stays valid.
}

// EndPartition ends the current partition and writes its index entry.
func (w *Writer) EndPartition() error {
	if err := w.check(); err != nil {
		return err
	}
	if !w.inPartition {
		return w.fail(fmt.Errorf("%w: EndPartition outside a partition", ErrWriterState))
	}
	if len(w.blocks) > 1 {
		w.closeBlock()
	} else {
		w.blockOpen = false // a single block is not indexed: no copy of its last key
	}
	if err := w.writeStream(endOfPartition[:]); err != nil {
		return err
	}
	w.inPartition = false
	return w.indexPartition(w.key)
}

// AddNarrowPartition writes a partition of one row, r, with no partition
// deletion, static row or range tombstone: the bytes of
// BeginPartition(token, key, data.LiveDeletion, nil, nil), AddRow(r) and
// EndPartition(), in one call, for the narrow partitions of a flush or a
// compaction. It skips what a partition of one row does not need: the
// sort of range tombstones, the header's flags, the row index's block
// (one block is never indexed), the chunk marks (the first row never
// starts a mark: it starts where the header ends), the copy of the key
// for EndPartition and the copy of the clustering for the next AddRow's
// order check. The caller may reuse key and r after the call.
func (w *Writer) AddNarrowPartition(token int64, key []byte, r *data.Row) error {
	return w.addNarrow(token, key, r, nil)
}

// AddPlainNarrowPartition is AddNarrowPartition for a row of the shape
// most writes make, given by its fields rather than as a data.Row: the
// row of clustering ck with liveness timestamp ts (not data.NoTimestamp),
// no TTL or expiry, no row or column deletion, and one cell for each of
// columns, regular, at timestamp ts, without path, TTL or local deletion
// time, cell i holding values[i] (nil for no value). Its bytes and
// statistics are AddNarrowPartition's for that row; the caller skips the
// data.Row (a flush: memtable's DecodePlain), and the Writer encodes the
// row (rowEncoder.appendPlainRow) and counts it (Stats.plainRow) without
// looking at what such a row does not have. columns and values must have
// the same length; the caller may reuse every argument after the call.
func (w *Writer) AddPlainNarrowPartition(token int64, key, ck []byte, ts int64, columns []string, values [][]byte) error {
	if ts == data.NoTimestamp || len(columns) != len(values) {
		if err := w.check(); err != nil {
			return err
		}
		return w.fail(fmt.Errorf("%w: AddPlainNarrowPartition with timestamp %d, %d columns and %d values", ErrWriterState, ts, len(columns), len(values)))
	}
	return w.addNarrow(token, key, nil, &plainRow{ck: ck, ts: ts, columns: columns, values: values})
}

// plainRow is the row of AddPlainNarrowPartition.
type plainRow struct {
	ck      []byte
	ts      int64
	columns []string
	values  [][]byte
}

// addNarrow is AddNarrowPartition for the row r, or for the plain row p
// when r is nil.
func (w *Writer) addNarrow(token int64, key []byte, r *data.Row, p *plainRow) error {
	if err := w.check(); err != nil {
		return err
	}
	if w.inPartition {
		return w.fail(fmt.Errorf("%w: AddNarrowPartition inside a partition", ErrWriterState))
	}
	if w.hasPartitions && data.ComparePartitions(w.lastToken, w.lastKey, token, key) >= 0 {
		return w.fail(fmt.Errorf("%w: partition (%d, %x) does not follow (%d, %x)", ErrOutOfOrder, token, key, w.lastToken, w.lastKey))
	}
	w.token, w.deletion = token, data.LiveDeletion
	w.partStart = w.pos
	w.blocks, w.marks = w.blocks[:0], w.marks[:0]
	w.plainHeader = true
	// The header: the key and its flags (none). In the chunk when it does
	// not fill it (writeStream's common case), else through writeStream.
	if start := len(w.chunk); start+binary.MaxVarintLen64+len(key)+1 < cap(w.chunk) {
		w.chunk = append(appendBytes(w.chunk, key), 0)
		w.pos += uint64(len(w.chunk) - start)
	} else {
		w.scratch = append(appendBytes(w.scratch[:0], key), 0)
		if err := w.writeStream(w.scratch); err != nil {
			return err
		}
	}
	w.rowsOff = w.pos - w.partStart
	if err := w.writeRecord(r, p); err != nil {
		return err
	}
	if r != nil {
		w.stats.row(r, false)
		w.partCells = int64(len(r.Cells))
	} else {
		w.stats.plainRow(p.ck, p.ts, len(p.columns))
		w.partCells = int64(len(p.columns))
	}
	if err := w.writeStream(endOfPartition[:]); err != nil {
		return err
	}
	return w.indexPartition(key)
}

// indexPartition is the end of every partition, once its end byte is
// written (EndPartition, AddNarrowPartition): its index entry, summary
// entry and statistics. key is the partition's key; the rest is the
// Writer's current partition.
func (w *Writer) indexPartition(key []byte) error {
	partLen := w.pos - w.partStart

	// Index entry, encoded straight into the Index.db buffer after one
	// byte for its length (moved along when the entry is 128 bytes or
	// more) and followed by four bytes for its CRC32C, which the index
	// sink fills in, together with the bloom filter's hash of the key
	// (indexSink.seal): that work is off the caller's goroutine.
	if w.summaryDue == 0 {
		w.summary = append(w.summary, summaryEntry{token: w.token, key: append([]byte(nil), key...), indexPos: w.indexFileOff + uint64(len(w.indexOut))})
		w.summaryDue = w.opts.IndexInterval
	}
	w.summaryDue--
	start := len(w.indexOut)
	entry := appendBytes(append(w.indexOut, 0), key)
	entry = binary.AppendVarint(entry, w.token)
	entry = binary.AppendUvarint(entry, w.partStart)
	entry = binary.AppendUvarint(entry, partLen)
	entry = binary.AppendUvarint(entry, w.rowsOff)
	var flags byte
	if w.deletion != data.LiveDeletion {
		flags |= entryHasDeletion
	}
	if len(w.blocks) > 1 {
		flags |= entryHasRowIndex
	} else if len(w.marks) > 0 {
		flags |= entryHasChunkMarks
	}
	if w.plainHeader {
		flags |= entryPlainHeader
	}
	entry = append(entry, flags)
	if flags&entryHasDeletion != 0 {
		entry = w.enc.appendDeletion(entry, w.deletion)
	}
	if flags&entryHasChunkMarks != 0 {
		entry = binary.AppendUvarint(entry, uint64(len(w.marks)))
		prev := w.rowsOff
		for _, m := range w.marks {
			entry = binary.AppendUvarint(entry, m-prev)
			prev = m
		}
	}
	if len(w.blocks) > 1 {
		entry = binary.AppendUvarint(entry, uint64(len(w.blocks)))
		w.blockOffs = w.blockOffs[:0]
		for _, blk := range w.blocks {
			w.blockOffs = append(w.blockOffs, uint32(len(entry)-start-1))
			entry = appendBytes(entry, blk.First)
			entry = appendBytes(entry, blk.Last)
			entry = binary.AppendUvarint(entry, blk.Offset)
			entry = binary.AppendUvarint(entry, blk.Length)
		}
		for _, off := range w.blockOffs {
			entry = binary.LittleEndian.AppendUint32(entry, off)
		}
	}
	if n := len(entry) - start - 1; n < 0x80 {
		entry[start] = byte(n)
	} else {
		ln := uvarintLen(uint64(n))
		entry = append(entry, make([]byte, ln-1)...)
		copy(entry[start+ln:], entry[start+1:start+1+n])
		binary.PutUvarint(entry[start:], uint64(n))
	}
	w.indexOut = append(entry, 0, 0, 0, 0) // the CRC32C, filled in by the index sink
	if len(w.indexOut) >= indexFlushSize {
		if err := w.flushIndex(); err != nil {
			return err
		}
	}

	if !w.hasPartitions {
		w.stats.FirstToken = w.token
		w.stats.FirstKey = append([]byte(nil), key...)
	}
	w.hasPartitions = true
	w.lastToken = w.token
	w.lastKey = append(w.lastKey[:0], key...)
	w.stats.Partitions++
	w.stats.PartitionSizes.addNear(int64(partLen), &w.sizeBucket)
	w.stats.CellCounts.addNear(w.partCells, &w.cellBucket)
	return nil
}

// writeStream appends b to the uncompressed data stream, compressing each
// chunk as it fills.
func (w *Writer) writeStream(b []byte) error {
	if len(w.chunk)+len(b) < cap(w.chunk) {
		// Room in the chunk, and it does not fill: the common case.
		w.chunk = append(w.chunk, b...)
		w.pos += uint64(len(b))
		return nil
	}
	for len(b) > 0 {
		n := min(len(b), cap(w.chunk)-len(w.chunk))
		w.chunk = append(w.chunk, b[:n]...)
		b = b[n:]
		w.pos += uint64(n)
		if len(w.chunk) == cap(w.chunk) {
			if err := w.emitChunk(); err != nil {
				return err
			}
		}
	}
	return nil
}

// emitChunk hands the current chunk to the sink, which compresses and
// writes it (in parallel with the writer when it can), and takes the
// buffer to fill next.
func (w *Writer) emitChunk() error {
	if len(w.chunk) == 0 {
		return nil
	}
	next, err := w.sink.put(w.chunk)
	w.chunk = next
	if err != nil {
		return w.fail(err)
	}
	return nil
}

// flushIndex hands the buffered Index.db bytes to the index sink.
func (w *Writer) flushIndex() error {
	if len(w.indexOut) == 0 {
		return nil
	}
	n := len(w.indexOut)
	first := 0
	if w.indexFileOff == 0 {
		first = headerSize // the first buffer starts with the file header
	}
	next, err := w.indexSink.put(w.indexOut, first)
	w.indexOut = next
	if err != nil {
		return w.fail(err)
	}
	w.indexFileOff += uint64(n)
	return nil
}

// Finish completes the SSTable: it flushes Data.db and Index.db, writes the
// other components, fsyncs every file and the directory, and writes TOC.txt
// last (see writeTOC), so that a crash before Finish returns never leaves a
// table that List reports as complete. On error the files are left for
// Abort to remove.
func (w *Writer) Finish() (*Meta, error) {
	if err := w.check(); err != nil {
		return nil, err
	}
	if w.inPartition {
		return nil, w.fail(fmt.Errorf("%w: Finish inside a partition", ErrWriterState))
	}
	if err := w.sink.finish(w.chunk); err != nil {
		return nil, w.fail(err)
	}
	w.chunk = w.chunk[:0]
	if err := w.flushIndex(); err != nil {
		return nil, err
	}
	if err := w.indexSink.stop(); err != nil {
		return nil, w.fail(err)
	}
	st := &w.stats
	if st.Partitions == 0 {
		st.MinTimestamp, st.MaxTimestamp = 0, 0
		st.MinLocalDeletionTime, st.MaxLocalDeletionTime = 0, 0
	} else {
		st.LastToken = w.lastToken
		st.LastKey = append([]byte(nil), w.lastKey...)
		if st.MinTimestamp > st.MaxTimestamp { // no timestamps at all
			st.MinTimestamp, st.MaxTimestamp = 0, 0
		}
		if st.MinLocalDeletionTime > st.MaxLocalDeletionTime {
			st.MinLocalDeletionTime, st.MaxLocalDeletionTime = data.NoDeletionTime, data.NoDeletionTime
		}
	}
	st.CommitLogUpperBound = w.opts.CommitLogUpperBound
	st.DataSize = w.pos
	st.CompressedSize = w.sink.fileOff
	st.Compression = w.opts.Compression
	st.Encoding = w.enc.enc
	st.ColumnNames = w.enc.names

	if err := w.takeLate(); err != nil {
		return nil, w.fail(err) // the files are removed by Abort
	}
	sizes := map[Component]int64{ComponentData: int64(w.sink.fileOff), ComponentIndex: int64(w.indexFileOff)}
	// Data.db and Index.db are whole: their fsyncs (Data.db's is the
	// long one) start now and overlap the building of the small
	// components, the bloom filter above all (a few ms for 100,000
	// partitions).
	waitBig := w.startSyncs([]syncFile{{c: ComponentData, f: w.data}, {c: ComponentIndex, f: w.index}})
	w.data, w.index = nil, nil
	bodies := [len(lateComponents)][]byte{
		sealSmall(ComponentSummary, w.encodeSummary()),
		sealSmall(ComponentFilter, w.buildFilter().encode()),
		sealSmall(ComponentStatistics, st.encode()),
		sealSmall(ComponentCompressionInfo, w.encodeCompressionInfo()),
		[]byte(strconv.FormatUint(uint64(w.sink.digest), 10)),
	}
	var files []syncFile
	for i, c := range lateComponents {
		file, err := w.writeLate(i, bodies[i])
		if err != nil {
			_ = waitBig() // the write error is the one to report; the files are removed by Abort
			return nil, errors.Join(err, closeAll(files))
		}
		files = append(files, syncFile{c: c, f: file})
		sizes[c] = int64(len(bodies[i]))
	}
	// TOC.txt's temporary file is written and fsynced with the small
	// components: its rename, once they are all durable, is what makes
	// the table complete (commitTOC).
	toc := tocText()
	tmp := FileName(w.gen, ComponentTOC) + tmpSuffix
	tocFile := w.late[lateTOC]
	w.late[lateTOC] = nil
	if _, err := tocFile.Write(toc); err != nil {
		_ = tocFile.Close() // the write error is the one to report
		_ = waitBig()       // as above
		return nil, errors.Join(w.fail(fmt.Errorf("sstable: write %s: %w", tmp, err)), closeAll(files))
	}
	files = append(files, syncFile{c: ComponentTOC, f: tocFile, name: tmp})
	waitSmall := w.startSyncs(files)
	errBig := waitBig()
	if err := errors.Join(errBig, waitSmall()); err != nil {
		return nil, w.fail(err)
	}
	if err := w.fs.SyncDir(w.dir); err != nil {
		return nil, w.fail(fmt.Errorf("sstable: sync directory %s: %w", w.dir, err))
	}
	if err := w.commitTOC(); err != nil {
		return nil, err
	}
	sizes[ComponentTOC] = int64(len(toc))
	w.done = true
	return &Meta{Dir: w.dir, Gen: w.gen, Files: Files(w.gen), Sizes: sizes, Stats: *st}, nil
}

// tocText returns TOC.txt: the component suffixes, one a line, in TOC order.
func tocText() []byte {
	var sb strings.Builder
	for _, c := range Components {
		sb.WriteString(c.String())
		sb.WriteByte('\n')
	}
	return []byte(sb.String())
}

// writeLate writes b to w.late[i], the precreated file of
// lateComponents[i], and returns it open, for startSyncs; w.late[i] is
// cleared.
func (w *Writer) writeLate(i int, b []byte) (vfs.File, error) {
	f := w.late[i]
	w.late[i] = nil
	if _, err := f.Write(b); err != nil {
		_ = f.Close() // the write error is the one to report
		return nil, w.fail(fmt.Errorf("sstable: write %s: %w", FileName(w.gen, lateComponents[i]), err))
	}
	return f, nil
}

// syncFile is a component file written and not yet synced; name, when
// set, is its file name (TOC.txt's temporary one), else the component's.
type syncFile struct {
	c    Component
	f    vfs.File
	name string
}

func (f syncFile) fileName(gen int) string {
	if f.name != "" {
		return f.name
	}
	return FileName(gen, f.c)
}

// startSyncs starts the fsyncs of files, all at once: the fsyncs of
// different files overlap (a journaling filesystem commits them together),
// which takes a fraction of their time one after the other. The function
// it returns waits for them, closes every file whatever happened, and
// returns the first error.
func (w *Writer) startSyncs(files []syncFile) func() error {
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f.f.Sync(); err != nil {
				errs[i] = fmt.Errorf("sstable: sync %s: %w", f.fileName(w.gen), err)
			}
		}()
	}
	return func() error {
		wg.Wait()
		for i, f := range files {
			if err := f.f.Close(); err != nil && errs[i] == nil {
				errs[i] = fmt.Errorf("sstable: close %s: %w", f.fileName(w.gen), err)
			}
		}
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// closeAll closes files after a failure.
func closeAll(files []syncFile) error {
	for _, f := range files {
		_ = f.f.Close() // the files are removed by Abort
	}
	return nil
}

// writeTOC makes the SSTable complete: it writes TOC.txt under a temporary
// name, fsyncs it, renames it into place and fsyncs the directory. Written
// in place, TOC.txt could become durable before its contents do (another
// writer's directory sync in the same directory is enough), and a crash
// would then leave a table whose TOC is torn; a rename is atomic, so
// TOC.txt is either absent or whole. The temporary file of an interrupted
// flush belongs to the unfinished generation and is removed with it.
// Finish does the same in two steps: it writes and fsyncs the temporary
// file (precreated) together with the small components, then calls
// commitTOC; Recover calls writeTOC.
func (w *Writer) writeTOC(toc []byte) error {
	name := FileName(w.gen, ComponentTOC)
	tmp := name + tmpSuffix
	f, err := w.fs.Create(w.fs.PathJoin(w.dir, tmp))
	if err != nil {
		return w.fail(fmt.Errorf("sstable: create %s: %w", tmp, err))
	}
	w.created = append(w.created, tmp)
	_, err = f.Write(toc)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return w.fail(fmt.Errorf("sstable: write %s: %w", tmp, err))
	}
	return w.commitTOC()
}

// commitTOC renames TOC.txt's temporary file, written and fsynced, the
// last of w.created, into place and fsyncs the directory (see writeTOC).
func (w *Writer) commitTOC() error {
	name := FileName(w.gen, ComponentTOC)
	tmp := name + tmpSuffix
	if err := w.fs.Rename(w.fs.PathJoin(w.dir, tmp), w.fs.PathJoin(w.dir, name)); err != nil {
		return w.fail(fmt.Errorf("sstable: rename %s: %w", tmp, err))
	}
	w.created[len(w.created)-1] = name
	if err := w.fs.SyncDir(w.dir); err != nil {
		return w.fail(fmt.Errorf("sstable: sync directory %s: %w", w.dir, err))
	}
	return nil
}

// tmpSuffix ends the name TOC.txt is written under before its rename.
const tmpSuffix = ".tmp"

// Summary.db body (inside the small-component framing). Part of the file
// format:
//
//	uvarint(indexInterval) uvarint(indexFileLength) uvarint(dataLength)
//	uvarint(n) n*(varint(token) bytes(key) uvarint(indexPosition))
//	varint(firstToken) bytes(firstKey) varint(lastToken) bytes(lastKey)
//
// indexPosition is the Index.db offset of every indexInterval-th entry,
// starting with the first; dataLength is the uncompressed length of the
// Data.db stream.
func (w *Writer) encodeSummary() []byte {
	b := binary.AppendUvarint(nil, uint64(w.opts.IndexInterval))
	b = binary.AppendUvarint(b, w.indexFileOff)
	b = binary.AppendUvarint(b, w.pos)
	b = binary.AppendUvarint(b, uint64(len(w.summary)))
	for _, e := range w.summary {
		b = binary.AppendVarint(b, e.token)
		b = appendBytes(b, e.key)
		b = binary.AppendUvarint(b, e.indexPos)
	}
	b = binary.AppendVarint(b, w.stats.FirstToken)
	b = appendBytes(b, w.stats.FirstKey)
	b = binary.AppendVarint(b, w.stats.LastToken)
	return appendBytes(b, w.stats.LastKey)
}

// CompressionInfo.db body (inside the small-component framing). Part of
// the file format:
//
//	codec:byte uvarint(chunkLength) uvarint(dataLength) uvarint(dataFileLength)
//	uvarint(n) n*uint64(chunk offset in Data.db, little-endian)
//
// Chunk i holds uncompressed bytes [i*chunkLength, (i+1)*chunkLength) of the
// stream and occupies Data.db bytes [offset[i], offset[i+1]) (the last one
// ends at dataFileLength).
func (w *Writer) encodeCompressionInfo() []byte {
	b := []byte{byte(w.opts.Compression.Codec)}
	b = binary.AppendUvarint(b, uint64(w.opts.Compression.ChunkLength))
	b = binary.AppendUvarint(b, w.pos)
	b = binary.AppendUvarint(b, w.sink.fileOff)
	b = binary.AppendUvarint(b, uint64(len(w.sink.offsets)))
	for _, off := range w.sink.offsets {
		b = binary.LittleEndian.AppendUint64(b, off)
	}
	return b
}

// buildFilter builds the bloom filter from the key hashes the index sink
// computed; the sink must have stopped.
func (w *Writer) buildFilter() *bloomFilter {
	f := newBloomFilter(int(w.stats.Partitions), w.opts.BloomFilterFPChance)
	if f.nbits > 0 {
		for _, h := range w.indexSink.hashes {
			f.addHash(h[0], h[1])
		}
	}
	return f
}

// Abort closes and removes every file the Writer created. It is safe to
// call after an error, and a no-op after Finish succeeded.
func (w *Writer) Abort() error {
	if w.done && w.err == nil {
		return nil
	}
	w.done = true
	var errs []error
	if w.sink != nil {
		_ = w.sink.stop() // its error, if any, was reported; the files go
	}
	if w.indexSink != nil {
		_ = w.indexSink.stop() // as the data sink's
	}
	_ = w.takeLate() // its error, if any, was reported or changes nothing: the files go
	for _, f := range append([]vfs.File{w.data, w.index}, w.late[:]...) {
		if f != nil {
			_ = f.Close() // the files are removed below; a close error changes nothing
		}
	}
	w.data, w.index, w.late = nil, nil, [numLate]vfs.File{}
	// Remove the TOC first so a crash midway never leaves a complete-looking
	// table.
	for i := len(w.created) - 1; i >= 0; i-- {
		if err := w.fs.Remove(w.fs.PathJoin(w.dir, w.created[i])); err != nil {
			errs = append(errs, err)
		}
	}
	w.created = nil
	return errors.Join(errs...)
}

// Files returns the component file names of generation gen, in TOC order.
func Files(gen int) []string {
	out := make([]string, len(Components))
	for i, c := range Components {
		out[i] = FileName(gen, c)
	}
	return out
}
