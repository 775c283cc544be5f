package sstable

// refwriter_test.go is a frozen copy of the Writer as it was before the
// flushpipe2 changes (commit 96ee578), types renamed, kept as the reference
// that TestWriterMatchesReference compares the Writer against byte for byte.
// Do not edit it to follow the Writer.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/vfs"
	"github.com/spaolacci/murmur3"
)

// refWriter writes one SSTable, push-style: BeginPartition, AddRow for each row
// in clustering order, EndPartition, for each partition in token order, then
// Finish (or Abort). A refWriter is not safe for concurrent use. After an
// error, the refWriter is unusable and Abort removes what it wrote.
type refWriter struct {
	fs   vfs.FS
	dir  string
	gen  int
	opts WriterOptions
	err  error // sticky
	done bool

	data, index   vfs.File
	created       []string
	chunk         []byte // uncompressed bytes of the current chunk
	pos           uint64 // uncompressed stream offset
	sink          *dataSink
	indexSink     *refIndexSink
	indexOut      []byte
	indexFileOff  uint64
	summary       []summaryEntry
	keyHashes     [][2]uint64
	stats         Stats
	enc           rowEncoder
	scratch       []byte
	rowBuf        []byte
	blockOffs     []uint32
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

// NewWriter creates the Data.db and Index.db files of generation gen in dir
// (which must exist) and returns a refWriter for them.
func newRefWriter(fs vfs.FS, dir string, gen int, opts WriterOptions) (*refWriter, error) {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if gen < 0 {
		return nil, fmt.Errorf("%w: negative generation %d", ErrInvalidOptions, gen)
	}
	w := &refWriter{fs: fs, dir: dir, gen: gen, opts: opts, stats: newStats()}
	w.chunk = make([]byte, 0, opts.Compression.ChunkLength)
	w.indexOut = make([]byte, 0, 2*indexFlushSize)
	w.keyHashes = make([][2]uint64, 0, min(max(opts.ExpectedPartitions, 1024), 1<<22))
	var err error
	if w.data, err = w.create(ComponentData); err != nil {
		return nil, err
	}
	if w.index, err = w.create(ComponentIndex); err != nil {
		w.Abort()
		return nil, err
	}
	data := w.data
	w.sink = newDataSink(opts.Compression.Codec, opts.Compression.ChunkLength, func() (vfs.File, error) { return data, nil }, FileName(gen, ComponentData))
	w.indexSink = &refIndexSink{file: w.index, name: FileName(gen, ComponentIndex)}
	w.indexOut = appendHeader(w.indexOut, ComponentIndex)
	w.indexFileOff = 0 // the header is in w.indexOut
	return w, nil
}

func (w *refWriter) create(c Component) (vfs.File, error) {
	name := FileName(w.gen, c)
	f, err := w.fs.Create(w.fs.PathJoin(w.dir, name))
	if err != nil {
		return nil, fmt.Errorf("sstable: create %s: %w", name, err)
	}
	w.created = append(w.created, name)
	return f, nil
}

func (w *refWriter) check() error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return fmt.Errorf("%w: writer already finished or aborted", ErrWriterState)
	}
	return nil
}

func (w *refWriter) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

// BeginPartition starts a partition. Partitions must come in increasing
// (token, key) order (data.ComparePartitions). del is the partition
// deletion (data.LiveDeletion if none), static the static row or nil, rts
// the partition's range tombstones (in any order; they are stored sorted by
// Start). The refWriter copies what it keeps: the caller may reuse key, static
// and rts after the call.
func (w *refWriter) BeginPartition(token int64, key []byte, del data.DeletionTime, static *data.Row, rts []data.RangeTombstone) error {
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

// AddRow adds a row to the current partition. Rows must come in strictly
// increasing clustering order. The row is encoded immediately; the caller
// may reuse it after the call.
func (w *refWriter) AddRow(r *data.Row) error {
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
	const room = binary.MaxVarintLen64
	b := w.enc.appendRow(append(w.scratch[:0], make([]byte, room)...), r)
	n := len(b) - room
	var lb [binary.MaxVarintLen64]byte
	ln := binary.PutUvarint(lb[:], uint64(n))
	copy(b[room-ln:], lb[:ln])
	w.scratch = b
	if err := w.writeStream(b[room-ln:]); err != nil {
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

func (w *refWriter) closeBlock() {
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
func (w *refWriter) EndPartition() error {
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
	partLen := w.pos - w.partStart

	// Index entry.
	entry := appendBytes(w.scratch[:0], w.key)
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
			w.blockOffs = append(w.blockOffs, uint32(len(entry)))
			entry = appendBytes(entry, blk.First)
			entry = appendBytes(entry, blk.Last)
			entry = binary.AppendUvarint(entry, blk.Offset)
			entry = binary.AppendUvarint(entry, blk.Length)
		}
		for _, off := range w.blockOffs {
			entry = binary.LittleEndian.AppendUint32(entry, off)
		}
	}
	w.scratch = entry
	if w.stats.Partitions%uint64(w.opts.IndexInterval) == 0 {
		w.summary = append(w.summary, summaryEntry{token: w.token, key: append([]byte(nil), w.key...), indexPos: w.indexFileOff + uint64(len(w.indexOut))})
	}
	w.indexOut = binary.AppendUvarint(w.indexOut, uint64(len(entry)))
	w.indexOut = append(w.indexOut, entry...)
	w.indexOut = binary.LittleEndian.AppendUint32(w.indexOut, crc32c(entry))
	if len(w.indexOut) >= indexFlushSize {
		if err := w.flushIndex(); err != nil {
			return err
		}
	}

	h1, h2 := murmur3.Sum128(w.key)
	w.keyHashes = append(w.keyHashes, [2]uint64{h1, h2})
	if !w.hasPartitions {
		w.stats.FirstToken = w.token
		w.stats.FirstKey = append([]byte(nil), w.key...)
	}
	w.hasPartitions = true
	w.lastToken = w.token
	w.lastKey = append(w.lastKey[:0], w.key...)
	w.stats.Partitions++
	w.stats.PartitionSizes.addNear(int64(partLen), &w.sizeBucket)
	w.stats.CellCounts.addNear(w.partCells, &w.cellBucket)
	return nil
}

// writeStream appends b to the uncompressed data stream, compressing each
// chunk as it fills.
func (w *refWriter) writeStream(b []byte) error {
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
func (w *refWriter) emitChunk() error {
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
func (w *refWriter) flushIndex() error {
	if len(w.indexOut) == 0 {
		return nil
	}
	n := len(w.indexOut)
	next, err := w.indexSink.put(w.indexOut)
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
func (w *refWriter) Finish() (*Meta, error) {
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

	sizes := map[Component]int64{ComponentData: int64(w.sink.fileOff), ComponentIndex: int64(w.indexFileOff)}
	// Data.db and Index.db are whole: their fsyncs (Data.db's is the
	// long one) start now and overlap the building of the small
	// components, the bloom filter above all (a few ms for 100,000
	// partitions).
	waitBig := w.startSyncs([]syncFile{{c: ComponentData, f: w.data}, {c: ComponentIndex, f: w.index}})
	w.data, w.index = nil, nil
	var files []syncFile
	for _, f := range []struct {
		c    Component
		body []byte
	}{
		{ComponentSummary, sealSmall(ComponentSummary, w.encodeSummary())},
		{ComponentFilter, sealSmall(ComponentFilter, w.buildFilter().encode())},
		{ComponentStatistics, sealSmall(ComponentStatistics, st.encode())},
		{ComponentCompressionInfo, sealSmall(ComponentCompressionInfo, w.encodeCompressionInfo())},
		{ComponentDigest, []byte(strconv.FormatUint(uint64(w.sink.digest), 10))},
	} {
		file, err := w.writeFile(f.c, f.body)
		if err != nil {
			_ = waitBig() // the write error is the one to report; the files are removed by Abort
			return nil, errors.Join(err, closeAll(files))
		}
		files = append(files, syncFile{c: f.c, f: file})
		sizes[f.c] = int64(len(f.body))
	}
	waitSmall := w.startSyncs(files)
	errBig := waitBig()
	if err := errors.Join(errBig, waitSmall()); err != nil {
		return nil, w.fail(err)
	}
	if err := w.fs.SyncDir(w.dir); err != nil {
		return nil, w.fail(fmt.Errorf("sstable: sync directory %s: %w", w.dir, err))
	}
	toc := tocText()
	if err := w.writeTOC(toc); err != nil {
		return nil, err
	}
	sizes[ComponentTOC] = int64(len(toc))
	w.done = true
	return &Meta{Dir: w.dir, Gen: w.gen, Files: Files(w.gen), Sizes: sizes, Stats: *st}, nil
}

// writeFile creates and writes one component and returns it open, for
// startSyncs.
func (w *refWriter) writeFile(c Component, b []byte) (vfs.File, error) {
	f, err := w.create(c)
	if err != nil {
		return nil, w.fail(err)
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close() // the write error is the one to report
		return nil, w.fail(fmt.Errorf("sstable: write %s: %w", FileName(w.gen, c), err))
	}
	return f, nil
}

// startSyncs starts the fsyncs of files, all at once: the fsyncs of
// different files overlap (a journaling filesystem commits them together),
// which takes a fraction of their time one after the other. The function
// it returns waits for them, closes every file whatever happened, and
// returns the first error.
func (w *refWriter) startSyncs(files []syncFile) func() error {
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f.f.Sync(); err != nil {
				errs[i] = fmt.Errorf("sstable: sync %s: %w", FileName(w.gen, f.c), err)
			}
		}()
	}
	return func() error {
		wg.Wait()
		for i, f := range files {
			if err := f.f.Close(); err != nil && errs[i] == nil {
				errs[i] = fmt.Errorf("sstable: close %s: %w", FileName(w.gen, f.c), err)
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

// writeTOC makes the SSTable complete: it writes TOC.txt under a temporary
// name, fsyncs it, renames it into place and fsyncs the directory. Written
// in place, TOC.txt could become durable before its contents do (another
// writer's directory sync in the same directory is enough), and a crash
// would then leave a table whose TOC is torn; a rename is atomic, so
// TOC.txt is either absent or whole. The temporary file of an interrupted
// flush belongs to the unfinished generation and is removed with it.
func (w *refWriter) writeTOC(toc []byte) error {
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
	if err := w.fs.Rename(w.fs.PathJoin(w.dir, tmp), w.fs.PathJoin(w.dir, name)); err != nil {
		return w.fail(fmt.Errorf("sstable: rename %s: %w", tmp, err))
	}
	w.created[len(w.created)-1] = name
	if err := w.fs.SyncDir(w.dir); err != nil {
		return w.fail(fmt.Errorf("sstable: sync directory %s: %w", w.dir, err))
	}
	return nil
}

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
func (w *refWriter) encodeSummary() []byte {
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
func (w *refWriter) encodeCompressionInfo() []byte {
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

func (w *refWriter) buildFilter() *bloomFilter {
	f := newBloomFilter(len(w.keyHashes), w.opts.BloomFilterFPChance)
	if f.nbits > 0 {
		for _, h := range w.keyHashes {
			refAddHash(f, h[0], h[1])
		}
	}
	return f
}

// refIndexSink writes Index.db buffers as they come, on the caller's
// goroutine: the frozen writer's entries carry their CRCs already.
type refIndexSink struct {
	file vfs.File
	name string
	err  error
}

func (s *refIndexSink) put(b []byte) ([]byte, error) {
	if s.err == nil {
		if _, err := s.file.Write(b); err != nil {
			s.err = fmt.Errorf("sstable: write %s: %w", s.name, err)
		}
	}
	return b[:0], s.err
}

func (s *refIndexSink) stop() error { return s.err }

// refAddHash is the frozen bloomFilter.addHash.
func refAddHash(f *bloomFilter, h1, h2 uint64) {
	for i := uint64(0); i < f.hashes; i++ {
		bit := (h1 + i*h2) % f.nbits
		f.words[bit/64] |= 1 << (bit % 64)
	}
}

// Abort closes and removes every file the refWriter created. It is safe to
// call after an error, and a no-op after Finish succeeded.
func (w *refWriter) Abort() error {
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
	for _, f := range []vfs.File{w.data, w.index} {
		if f != nil {
			_ = f.Close() // the files are removed below; a close error changes nothing
		}
	}
	w.data, w.index = nil, nil
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
