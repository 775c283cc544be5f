package sstable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/vfs"
)

// ReadStats counts what reads touched. The engine adds them to its per-query
// read statistics (TRACING, system_views).
type ReadStats struct {
	// FilterChecks counts bloom filter probes; FilterNegatives those that
	// ruled the key out.
	FilterChecks, FilterNegatives uint64
	// IndexEntries counts Index.db entries decoded; IndexBytes the Index.db
	// bytes read.
	IndexEntries, IndexBytes uint64
	// Chunks counts Data.db chunks read, checked and decompressed;
	// DataBytes the Data.db bytes read for them.
	Chunks, DataBytes uint64
	// Blocks counts row blocks decoded (a row-index block, or all the rows
	// of a partition without a row index).
	Blocks uint64
	// Rows counts rows decoded.
	Rows uint64
}

// Add adds o to s.
func (s *ReadStats) Add(o ReadStats) {
	s.FilterChecks += o.FilterChecks
	s.FilterNegatives += o.FilterNegatives
	s.IndexEntries += o.IndexEntries
	s.IndexBytes += o.IndexBytes
	s.Chunks += o.Chunks
	s.DataBytes += o.DataBytes
	s.Blocks += o.Blocks
	s.Rows += o.Rows
}

// atomicStats is the Reader's cumulative ReadStats.
type atomicStats struct {
	filterChecks, filterNegatives, indexEntries, indexBytes atomic.Uint64
	chunks, dataBytes, blocks, rows                         atomic.Uint64
}

func (a *atomicStats) add(s *ReadStats) {
	// Only what moved: a hot read touches neither Index.db nor Data.db,
	// and atomic adds to shared counters are not free.
	for _, f := range [...]struct {
		c *atomic.Uint64
		v uint64
	}{
		{&a.filterChecks, s.FilterChecks}, {&a.filterNegatives, s.FilterNegatives},
		{&a.indexEntries, s.IndexEntries}, {&a.indexBytes, s.IndexBytes},
		{&a.chunks, s.Chunks}, {&a.dataBytes, s.DataBytes},
		{&a.blocks, s.Blocks}, {&a.rows, s.Rows},
	} {
		if f.v != 0 {
			f.c.Add(f.v)
		}
	}
}

// Reader reads one SSTable. It is safe for concurrent use; the partitions
// and iterators it returns are not (each belongs to one goroutine).
type Reader struct {
	fs     vfs.FS
	dir    string
	gen    int
	data   vfs.File
	index  vfs.File
	closed atomic.Bool
	// version is the format version of every component (FormatVersion or
	// older); rows decodes the rows of version 2.
	version int
	rows    rowDecoder

	stats   Stats
	filter  *bloomFilter
	summary []summaryEntry
	// interval is Summary.db's sampling interval (bounded: a capacity hint).
	interval int
	// indexSize is the Index.db length; dataLen the uncompressed stream
	// length.
	indexSize, dataLen uint64
	codec              Codec
	chunkLen           uint64
	// chunkShift is log2(chunkLen) (a power of two): stream positions map
	// to chunks by shifts, not divisions, on the read paths.
	chunkShift   uint
	chunkOffsets []uint64
	dataFileLen  uint64
	digest       uint32
	total        atomicStats
	// cache holds the Reader's chunks, index spans, record positions and
	// index entries under cacheID; private when the Reader made it.
	cache   *Cache
	cacheID uint64
	private bool
	names   [ComponentTOC + 1]string
}

// name returns the file name of component c, computed once at Open for the
// components reads name in their errors and decoders.
func (r *Reader) name(c Component) string {
	if int(c) < len(r.names) && r.names[c] != "" {
		return r.names[c]
	}
	return FileName(r.gen, c)
}

func (r *Reader) path(c Component) string { return r.fs.PathJoin(r.dir, r.name(c)) }

func readWhole(vfsys vfs.FS, path, name string) ([]byte, error) {
	f, err := vfsys.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrMissingComponent, name)
		}
		return nil, fmt.Errorf("sstable: open %s: %w", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("sstable: read %s: %w", name, err)
	}
	return b, nil
}

// Open opens generation gen in dir. It checks that every component exists
// (ErrMissingComponent names the first missing one), the TOC, the magic
// numbers and versions, and the checksums of the small components
// (Summary, Filter, Statistics, CompressionInfo), and loads them in memory.
// Data.db chunks and Index.db entries are checked as they are read, or all
// at once with ReaderOptions.VerifyData.
//
// Unless opts.SkipDigest is set, Open also reads Data.db once and checks it
// against Digest.crc32, so that damage anywhere in Data.db is reported at
// open, naming the file, rather than on the first read of the damaged
// chunk (Cassandra checks the digest only in nodetool verify and
// sstableverify; see docs/compatibility.md).
func Open(vfsys vfs.FS, dir string, gen int, opts ReaderOptions) (_ *Reader, err error) {
	return open(vfsys, dir, gen, opts, true)
}

// open is Open; withTOC false opens a generation whose TOC.txt is missing
// (Recover).
func open(vfsys vfs.FS, dir string, gen int, opts ReaderOptions, withTOC bool) (_ *Reader, err error) {
	r := &Reader{fs: vfsys, dir: dir, gen: gen}
	for _, c := range Components {
		r.names[c] = FileName(gen, c)
	}
	defer func() {
		if err != nil {
			_ = r.Close() // the open error is what matters
		}
	}()
	if withTOC {
		toc, err := readWhole(vfsys, r.path(ComponentTOC), r.name(ComponentTOC))
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(toc, tocText()) {
			i := 0
			for i < len(toc) && i < len(tocText()) && toc[i] == tocText()[i] {
				i++
			}
			return nil, corruptf(r.name(ComponentTOC), int64(i), "unexpected component list")
		}
	}
	small := map[Component][]byte{}
	// sameVersion checks that component c is of the version of the
	// components before it.
	sameVersion := func(c Component, v int) error {
		if r.version == 0 {
			r.version = v
		} else if v != r.version {
			return corruptf(r.name(c), 4, "format version %d, while %s is version %d", v, r.name(ComponentSummary), r.version)
		}
		return nil
	}
	for _, c := range []Component{ComponentSummary, ComponentFilter, ComponentStatistics, ComponentCompressionInfo, ComponentDigest} {
		b, err := readWhole(vfsys, r.path(c), r.name(c))
		if err != nil {
			return nil, err
		}
		if c != ComponentDigest {
			var v int
			if b, v, err = openSmall(r.name(c), c, b); err != nil {
				return nil, err
			}
			if err := sameVersion(c, v); err != nil {
				return nil, err
			}
		}
		small[c] = b
	}
	for _, c := range []Component{ComponentData, ComponentIndex} {
		f, err := vfsys.Open(r.path(c))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%w: %s", ErrMissingComponent, r.name(c))
			}
			return nil, fmt.Errorf("sstable: open %s: %w", r.name(c), err)
		}
		if c == ComponentData {
			r.data = f
		} else {
			r.index = f
		}
		var hdr [headerSize]byte
		if _, err := f.ReadAt(hdr[:], 0); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("sstable: read %s: %w", r.name(c), err)
		}
		v, err := checkHeader(r.name(c), c, hdr[:])
		if err != nil {
			return nil, err
		}
		if err := sameVersion(c, v); err != nil {
			return nil, err
		}
	}
	if err := checkVersion(r.name(ComponentData), r.version); err != nil {
		return nil, err
	}
	if r.stats, err = decodeStats(r.name(ComponentStatistics), small[ComponentStatistics], r.version); err != nil {
		return nil, err
	}
	r.rows = rowDecoder{enc: r.stats.Encoding, names: r.stats.ColumnNames}
	if r.filter, err = decodeBloomFilter(r.name(ComponentFilter), small[ComponentFilter]); err != nil {
		return nil, err
	}
	if err := r.decodeSummary(small[ComponentSummary]); err != nil {
		return nil, err
	}
	if err := r.decodeCompressionInfo(small[ComponentCompressionInfo]); err != nil {
		return nil, err
	}
	if r.cache = opts.Cache; r.cache == nil {
		r.cache, r.private = NewCache(CacheOptions{
			BlockCacheSize: privateBudget(opts.ChunkCacheSize, DefaultChunkCacheSize),
			KeyCacheSize:   privateBudget(opts.KeyCacheSize, DefaultReaderKeyCacheSize),
		}), true
	}
	r.cacheID = r.cache.newID()
	d, perr := strconv.ParseUint(strings.TrimSpace(string(small[ComponentDigest])), 10, 32)
	if perr != nil {
		return nil, corruptf(r.name(ComponentDigest), 0, "not a decimal CRC32: %q", small[ComponentDigest])
	}
	r.digest = uint32(d)
	// Cross-checks between components and file sizes.
	for _, c := range []struct {
		comp Component
		f    vfs.File
		want uint64
	}{{ComponentData, r.data, r.dataFileLen}, {ComponentIndex, r.index, r.indexSize}} {
		fi, err := c.f.Stat()
		if err != nil {
			return nil, fmt.Errorf("sstable: stat %s: %w", r.name(c.comp), err)
		}
		if uint64(fi.Size()) != c.want {
			return nil, corruptf(r.name(c.comp), fi.Size(), "file length %d, expected %d", fi.Size(), c.want)
		}
	}
	if r.stats.DataSize != r.dataLen || r.stats.CompressedSize != r.dataFileLen ||
		r.stats.Compression.Codec != r.codec || uint64(r.stats.Compression.ChunkLength) != r.chunkLen {
		return nil, corruptf(r.name(ComponentStatistics), 0, "sizes or compression disagree with CompressionInfo.db")
	}
	switch {
	case opts.VerifyData:
		if err := r.Verify(); err != nil {
			return nil, err
		}
	case !opts.SkipDigest:
		if err := r.checkDigest(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Recover makes generation gen of dir whole again when its TOC.txt is
// missing but every other component is there, as Cassandra's
// SSTable.componentsFor rewrites a lost TOC from the components it
// discovers: it checks that each component exists, opens them with every
// check (magic numbers, small-component checksums, cross-checks, each
// Data.db chunk's CRC32C and the Digest.crc32), and only then writes
// TOC.txt (under a temporary name, synced, renamed, directory synced). It
// returns an error wrapping ErrMissingComponent or ErrCorruption, naming
// the file, and changes nothing, if the generation is not complete and
// intact. Recover never deletes a file.
func Recover(vfsys vfs.FS, dir string, gen int) error {
	for _, c := range Components {
		if c == ComponentTOC {
			continue
		}
		if _, err := vfsys.Stat(vfsys.PathJoin(dir, FileName(gen, c))); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%w: %s (and %s)", ErrMissingComponent, FileName(gen, c), FileName(gen, ComponentTOC))
			}
			return fmt.Errorf("sstable: stat %s: %w", FileName(gen, c), err)
		}
	}
	r, err := open(vfsys, dir, gen, ReaderOptions{VerifyData: true, ChunkCacheSize: -1, KeyCacheSize: -1}, false)
	if err != nil {
		return err
	}
	if err := r.verifyIndex(); err != nil {
		_ = r.Close()
		return err
	}
	if err := r.Close(); err != nil {
		return err
	}
	w := &Writer{fs: vfsys, dir: dir, gen: gen}
	return w.writeTOC(tocText())
}

// verifyIndex reads every Index.db entry, checking its CRC32C.
func (r *Reader) verifyIndex() error {
	it := r.Scan(data.FullRing)
	for {
		if _, ok := it.Next(); !ok {
			break
		}
	}
	return errors.Join(it.Err(), it.Close())
}

// checkDigest reads all of Data.db and compares its CRC32 with
// Digest.crc32.
func (r *Reader) checkDigest() error {
	h := crc32.NewIEEE()
	buf := make([]byte, 256<<10)
	for off := uint64(0); off < r.dataFileLen; {
		n := min(uint64(len(buf)), r.dataFileLen-off)
		if _, err := r.data.ReadAt(buf[:n], int64(off)); err != nil {
			return fmt.Errorf("sstable: read %s at %d: %w", r.name(ComponentData), off, err)
		}
		h.Write(buf[:n])
		off += n
	}
	if got := h.Sum32(); got != r.digest {
		return corruptf(r.name(ComponentData), 0, "digest mismatch: computed %d, %s holds %d", got, r.name(ComponentDigest), r.digest)
	}
	return nil
}

func (r *Reader) decodeSummary(body []byte) error {
	d := &decoder{file: r.name(ComponentSummary), base: headerSize, Cursor: data.Cursor{Buf: body}}
	interval := d.Uvarint("index interval")
	r.indexSize = d.Uvarint("index size")
	r.dataLen = d.Uvarint("data length")
	n := d.Count("sample count", 3)
	if d.Err() == nil && (interval == 0 || r.indexSize < headerSize) {
		d.Fail("index interval or size")
	}
	r.summary = make([]summaryEntry, 0, n)
	r.interval = int(min(interval, 1<<12))
	prev := uint64(0)
	for i := 0; i < n && d.Err() == nil; i++ {
		e := summaryEntry{token: d.Varint("sample token"), key: d.Bytes("sample key"), indexPos: d.Uvarint("sample position")}
		if d.Err() == nil && (e.indexPos < headerSize || e.indexPos >= r.indexSize || e.indexPos <= prev) {
			d.Fail("sample position")
		}
		prev = e.indexPos
		r.summary = append(r.summary, e)
	}
	first := summaryEntry{token: d.Varint("first token"), key: d.Bytes("first key")}
	last := summaryEntry{token: d.Varint("last token"), key: d.Bytes("last key")}
	if err := d.finish("summary"); err != nil {
		return err
	}
	if len(r.summary) > 0 && r.summary[0].indexPos != headerSize {
		return corruptf(r.name(ComponentSummary), headerSize, "first sample does not start the index")
	}
	if first.token != r.stats.FirstToken || last.token != r.stats.LastToken ||
		!bytes.Equal(first.key, r.stats.FirstKey) || !bytes.Equal(last.key, r.stats.LastKey) {
		return corruptf(r.name(ComponentSummary), 0, "first/last key disagree with Statistics.db")
	}
	if uint64(len(r.summary)) != (r.stats.Partitions+interval-1)/interval {
		return corruptf(r.name(ComponentSummary), 0, "%d samples for %d partitions", len(r.summary), r.stats.Partitions)
	}
	return nil
}

func (r *Reader) decodeCompressionInfo(body []byte) error {
	d := &decoder{file: r.name(ComponentCompressionInfo), base: headerSize, Cursor: data.Cursor{Buf: body}}
	r.codec = Codec(d.Byte("codec"))
	r.chunkLen = d.Uvarint("chunk length")
	dataLen := d.Uvarint("data length")
	r.dataFileLen = d.Uvarint("data file length")
	n := d.Count("chunk count", 8)
	if d.Err() == nil {
		if err := (Compression{Codec: r.codec, ChunkLength: int(min(r.chunkLen, maxChunkLength+1))}).validate(); err != nil || r.codec == CodecDefault {
			d.Fail("codec or chunk length")
		}
	}
	if d.Err() == nil {
		r.chunkShift = uint(bits.TrailingZeros64(r.chunkLen))
	}
	if d.Err() == nil && (dataLen != r.dataLen || uint64(n) != (dataLen+r.chunkLen-1)/r.chunkLen) {
		d.Fail("chunk count")
	}
	r.chunkOffsets = make([]uint64, n)
	prev := uint64(headerSize)
	for i := range r.chunkOffsets {
		off := d.u64("chunk offset")
		// A chunk has at least a kind byte and a CRC.
		if d.Err() == nil && (off != prev && i == 0 || off < prev || off+5 > r.dataFileLen) {
			d.Fail("chunk offset")
		}
		r.chunkOffsets[i] = off
		prev = off + 5
	}
	if d.Err() == nil && n == 0 && r.dataFileLen != headerSize {
		d.Fail("data file length")
	}
	return d.finish("compression info")
}

// Close closes the SSTable's files. Partitions and iterators must not be
// used afterwards.
func (r *Reader) Close() error {
	if r.closed.Swap(true) {
		return nil
	}
	if r.cache != nil && !r.private {
		r.cache.forget(r.cacheID)
	}
	var errs []error
	for _, f := range []vfs.File{r.data, r.index} {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	return errors.Join(errs...)
}

// CachedEntries returns how many block and key cache entries the Reader
// has in its Cache (none once it is closed).
func (r *Reader) CachedEntries() (blocks, keys int) { return r.cache.entriesOf(r.cacheID) }

// FormatVersion returns the SSTable's format version (MinFormatVersion to
// FormatVersion).
func (r *Reader) FormatVersion() int { return r.version }

// Gen returns the SSTable's generation.
func (r *Reader) Gen() int { return r.gen }

// Dir returns the SSTable's directory.
func (r *Reader) Dir() string { return r.dir }

// Files returns the SSTable's component file names, in TOC order.
func (r *Reader) Files() []string { return Files(r.gen) }

// Stats returns the SSTable's metadata from Statistics.db. The caller must
// not modify the byte slices it holds.
func (r *Reader) Stats() *Stats { return &r.stats }

// TokenRange returns the range of tokens the SSTable holds, inclusive of
// both ends (meaningless if it holds no partition).
func (r *Reader) TokenRange() data.TokenRange {
	return data.TokenRange{Start: r.stats.FirstToken, End: r.stats.LastToken, StartInclusive: true}
}

// ReadStats returns what all reads of this Reader have touched so far.
func (r *Reader) ReadStats() ReadStats {
	t := &r.total
	return ReadStats{
		FilterChecks: t.filterChecks.Load(), FilterNegatives: t.filterNegatives.Load(),
		IndexEntries: t.indexEntries.Load(), IndexBytes: t.indexBytes.Load(),
		Chunks: t.chunks.Load(), DataBytes: t.dataBytes.Load(),
		Blocks: t.blocks.Load(), Rows: t.rows.Load(),
	}
}

// MayContain reports whether the bloom filter admits key: false means the
// SSTable certainly does not hold the partition.
func (r *Reader) MayContain(key []byte) bool { return r.filter.mayContain(HashKey(key)) }

// MayContainHash is MayContain for the key of hash h (HashKey).
func (r *Reader) MayContainHash(h KeyHash) bool { return r.filter.mayContain(h) }

// chunkCursor reads the chunks of one reading goroutine. It holds the two
// chunks it used last, so that a row aliasing one of them stays valid while
// the next row is read (a k-way merge holds the previous row of a source
// while it advances that source), and a record straddling two chunks is
// assembled without reading either again. Chunks come from the Reader's
// chunk cache when it holds them; a cursor with fill set offers the chunks
// it decompresses to the cache, which then owns the buffer of each chunk it
// admits. A chunk not cached (no fill, or the cache refused it) stays in a
// buffer of the cursor's own, which it decompresses a later chunk into: a
// row is never handed out aliasing such a buffer (alias), it is copied, so
// a read of chunks the cache does not keep allocates no buffer per chunk.
type chunkCursor struct {
	r    *Reader
	fill bool
	// idx, buf and own describe the two slots: chunk index (-1 for none),
	// its bytes, and whether the buffer is the cursor's to overwrite.
	idx [2]int
	buf [2][]byte
	own [2]bool
	mru int // the slot used last
	st  *ReadStats
	// recycle (a reusing scan's cursor) keeps the buffers the cursor's own
	// even when rows alias them: its caller is done with a row two chunk
	// reads later, so the buffers are decompressed into again and a scan
	// allocates no buffer per chunk.
	recycle bool
}

func (r *Reader) newCursor(st *ReadStats, fill bool) *chunkCursor {
	c := new(chunkCursor)
	r.initCursor(c, st, fill)
	return c
}

func (r *Reader) initCursor(c *chunkCursor, st *ReadStats, fill bool) {
	*c = chunkCursor{r: r, idx: [2]int{-1, -1}, st: st, fill: fill && r.cache.blocks != nil}
}

// chunk returns the uncompressed bytes of chunk i, checking its CRC.
func (c *chunkCursor) chunk(i int) ([]byte, error) { return c.chunkPrefix(i, math.MaxInt) }

// chunkPrefix returns at least the first need bytes of chunk i (all of it
// when need reaches its end), checking its CRC. A chunk that the cache
// does not admit is decoded only as far as need, when its codec allows
// (S2 and Snappy, and uncompressed chunks): a read that uses the start of
// a chunk (a partition ending there) pays only for that start.
func (c *chunkCursor) chunkPrefix(i int, need int) ([]byte, error) {
	r := c.r
	full := r.plainLen(i)
	need = min(need, full)
	if c.idx[c.mru] == i && len(c.buf[c.mru]) >= need {
		return c.buf[c.mru], nil
	}
	if c.idx[1-c.mru] == i && len(c.buf[1-c.mru]) >= need {
		c.mru = 1 - c.mru
		return c.buf[c.mru], nil
	}
	if r.closed.Load() {
		return nil, ErrClosed
	}
	s := 1 - c.mru
	if b, ok := r.cache.chunk(r.cacheID, i); ok {
		c.idx[s], c.buf[s], c.own[s], c.mru = i, b, false, s
		return b, nil
	}
	// Only a whole chunk can be cached: decode in full when the cache
	// would take it, else only the prefix asked for.
	if c.fill && need < full && r.cache.admitsChunk(r.cacheID, i, full) {
		need = full
	}
	var dst []byte
	if c.own[s] {
		dst = c.buf[s]
	}
	// The slot is overwritten (or dropped) whatever happens below.
	c.idx[s], c.buf[s], c.own[s] = -1, nil, false
	plain, err := r.readChunk(i, dst, need, c.st)
	if err != nil {
		return nil, err
	}
	// A chunk the cache does not take (it is full and admits the chunk
	// only on its next miss) stays in the cursor's buffer, which a later
	// miss then reuses (no row aliases it: alias).
	own := !c.fill || len(plain) < full || !r.cache.putChunk(r.cacheID, i, plain)
	c.idx[s], c.buf[s], c.own[s], c.mru = i, plain, own, s
	return plain, nil
}

// plainLen returns the uncompressed length of chunk i: the chunk length
// but for the last chunk.
func (r *Reader) plainLen(i int) int {
	return int(min(r.chunkLen, r.dataLen-min(r.dataLen, uint64(i)*r.chunkLen)))
}

// spareBuffers returns the cursor's buffers that no row aliases (those it
// owns), for a later cursor of the same pooled read to decompress into: a
// chunk the cache did not take then costs no allocation. The cursor must
// not be used afterwards.
func (c *chunkCursor) spareBuffers() (b [2][]byte) {
	for s := range c.buf {
		if c.own[s] && c.buf[s] != nil {
			b[s] = c.buf[s][:0]
		}
	}
	return b
}

// alias reports whether bytes of chunk i, which one of the slots holds,
// may be handed to the caller as they are: when its buffer is not the
// cursor's to overwrite (a cached chunk, or one shared with another
// cursor), or when the cursor recycles its buffers anyway. Otherwise the
// caller copies the bytes, and the buffer takes a later chunk.
func (c *chunkCursor) alias(i int) bool {
	if c.recycle {
		return true
	}
	for s := range c.idx {
		if c.idx[s] == i && c.own[s] {
			return false
		}
	}
	return true
}

// share returns a cursor for another reader of the same goroutine that
// starts with c's chunks. Neither cursor overwrites the buffers they then
// share: each decompresses into a fresh buffer when it needs a slot.
func (c *chunkCursor) share(st *ReadStats) *chunkCursor {
	c.own = [2]bool{}
	d := *c
	d.st = st
	return &d
}

// readChunk reads chunk i, checks its CRC and decompresses it into dst[:0]
// (a new buffer if dst is too small): in full, or, when need is less than
// its length and its codec allows, its first need bytes.
func (r *Reader) readChunk(i int, dst []byte, need int, st *ReadStats) ([]byte, error) {
	if i < 0 || i >= len(r.chunkOffsets) {
		return nil, fmt.Errorf("%w: chunk %d out of range", ErrCorruption, i)
	}
	start := r.chunkOffsets[i]
	end := r.dataFileLen
	if i+1 < len(r.chunkOffsets) {
		end = r.chunkOffsets[i+1]
	}
	name := r.name(ComponentData)
	if end < start+5 || end-start > uint64(2*r.chunkLen+64) {
		return nil, corruptf(name, int64(start), "chunk %d has impossible length %d", i, int64(end-start))
	}
	rawp := rawPool.Get().(*[]byte)
	defer rawPool.Put(rawp)
	raw := grow((*rawp)[:0], int(end-start))[:end-start]
	*rawp = raw
	if _, err := r.data.ReadAt(raw, int64(start)); err != nil {
		return nil, fmt.Errorf("sstable: read %s at %d: %w", name, start, err)
	}
	if st != nil {
		st.Chunks++
		st.DataBytes += end - start
	}
	n := len(raw) - 4
	if got, want := crc32c(raw[:n]), binary.LittleEndian.Uint32(raw[n:]); got != want {
		return nil, corruptf(name, int64(start), "chunk %d checksum mismatch: computed %08x, stored %08x", i, got, want)
	}
	plainLen := min(r.chunkLen, r.dataLen-uint64(i)*r.chunkLen)
	var err error
	var plain []byte
	switch raw[0] {
	case 0:
		if uint64(n-1) != plainLen {
			err = errDecodedLength
		} else {
			plain = append(dst[:0], raw[1:1+min(n-1, need)]...)
		}
	case 1:
		plain, err = decompressChunkPrefix(r.codec, dst, raw[1:n], int(plainLen), need)
	default:
		err = errors.New("unknown chunk kind")
	}
	if err != nil {
		return nil, corruptWrap(name, int64(start), err, "chunk %d does not decompress", i)
	}
	return plain, nil
}

// readRange appends uncompressed stream bytes [start, end) to dst.
func (c *chunkCursor) readRange(dst []byte, start, end uint64) ([]byte, error) {
	r := c.r
	if end > r.dataLen || start > end {
		return nil, corruptf(r.name(ComponentData), 0, "stream range [%d, %d) beyond data length %d", start, end, r.dataLen)
	}
	for start < end {
		i := int(start >> r.chunkShift)
		p, err := c.chunk(i)
		if err != nil {
			return nil, err
		}
		off := start - uint64(i)*r.chunkLen
		n := min(uint64(len(p))-off, end-start)
		dst = append(dst, p[off:off+n]...)
		start += n
	}
	return dst, nil
}

// view returns uncompressed stream bytes [start, end) for the caller to
// keep: the chunk holding them when they lie in one that nothing
// overwrites (alias), else a copy.
func (c *chunkCursor) view(start, end uint64) ([]byte, error) {
	r := c.r
	if end > r.dataLen || start > end {
		return nil, corruptf(r.name(ComponentData), 0, "stream range [%d, %d) beyond data length %d", start, end, r.dataLen)
	}
	i := int(start / r.chunkLen)
	if end <= uint64(i+1)*r.chunkLen {
		p, err := c.chunk(i)
		if err != nil {
			return nil, err
		}
		off := start - uint64(i)*r.chunkLen
		if end-uint64(i)*r.chunkLen > uint64(len(p)) {
			return nil, corruptf(r.name(ComponentData), 0, "stream range [%d, %d) beyond chunk %d", start, end, i)
		}
		if c.alias(i) {
			return p[off : end-uint64(i)*r.chunkLen : end-uint64(i)*r.chunkLen], nil
		}
		return append(make([]byte, 0, end-start), p[off:end-uint64(i)*r.chunkLen]...), nil
	}
	return c.readRange(make([]byte, 0, end-start), start, end)
}

// dataErr reports corruption found while decoding the uncompressed stream
// at position pos, naming the Data.db file offset of its chunk.
func (r *Reader) dataErr(pos uint64, err error, format string, args ...any) error {
	off := int64(0)
	if i := pos / r.chunkLen; i < uint64(len(r.chunkOffsets)) {
		off = int64(r.chunkOffsets[i])
	}
	return corruptWrap(r.name(ComponentData), off, err, "stream position %d (chunk at file offset %d): %s", pos, off, fmt.Sprintf(format, args...))
}

// Verify reads all of Data.db, checking every chunk's CRC32C, that every
// chunk decompresses, and the whole file's CRC32 against Digest.crc32.
func (r *Reader) Verify() error {
	var buf []byte
	for i := range r.chunkOffsets {
		if r.closed.Load() {
			return ErrClosed
		}
		var err error
		if buf, err = r.readChunk(i, buf, math.MaxInt, nil); err != nil {
			return err
		}
	}
	return r.checkDigest()
}

// List returns the generations of the complete SSTables (those with a
// TOC.txt) in dir, in increasing order.
func List(vfsys vfs.FS, dir string) ([]int, error) {
	names, err := vfsys.List(dir)
	if err != nil {
		return nil, fmt.Errorf("sstable: list %s: %w", dir, err)
	}
	var gens []int
	for _, n := range names {
		if g, c, ok := ParseFileName(n); ok && c == ComponentTOC {
			gens = append(gens, g)
		}
	}
	sort.Ints(gens)
	return gens, nil
}

// Remove deletes the components of generation gen from dir, TOC.txt first
// so that a crash midway leaves no table that List reports. Missing
// components are not an error.
func Remove(vfsys vfs.FS, dir string, gen int) error {
	var errs []error
	for i := len(Components) - 1; i >= 0; i-- {
		err := vfsys.Remove(vfsys.PathJoin(dir, FileName(gen, Components[i])))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		if i == len(Components)-1 && err == nil {
			if serr := vfsys.SyncDir(dir); serr != nil {
				errs = append(errs, serr)
			}
		}
	}
	return errors.Join(errs...)
}
