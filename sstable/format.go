package sstable

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"

	"github.com/minicass/minicass/data"
)

// FormatVersion is the version of the minicass SSTable format written by
// this package. It is stored in the header of every binary component.
// Part of the file format.
//
//	1: first version: rows, deletions and range tombstones in the
//	   encodings of package data (the commit log's).
//	2: compact rows (rowcodec.go): flags bytes, absent fields left out,
//	   timestamps, local deletion times and TTLs as deltas against bases in
//	   Statistics.db, column names numbered in a dictionary there; flags
//	   instead of live deletions in partition headers and index entries,
//	   and no token in partition headers.
//	3: Index.db entries of partitions without a row index whose rows cross
//	   chunks mark the first record of each later chunk, so that a reverse
//	   read starts in the last chunk (entryHasChunkMarks), and say when the
//	   partition header holds no static row and no range tombstones, so
//	   that such a read need not read the header (entryPlainHeader).
//	   Data.db and the other components are as in version 2.
//
// Open reads all three (MinFormatVersion to FormatVersion), so that the SSTables
// of an older build stay readable and compaction rewrites them in the
// current version; a component of any other version is refused with an
// error wrapping ErrUnsupportedVersion. Every component of one SSTable has
// the same version. The file names keep the letters VersionString for both
// versions (see VersionString).
const FormatVersion = 3

// MinFormatVersion is the oldest format version Open reads.
const MinFormatVersion = 1

// VersionString is the two-letter version in component file names
// (nb-1-big-Data.db in Cassandra 4.x, xa-1-big-Data.db here). minicass uses
// its own letters, outside the range Cassandra has used ("ja" to "oa", "da"
// for BTI), so that no Cassandra tool mistakes a minicass SSTable for one of
// its own. Part of the file format.
//
// Unlike Cassandra's, the letters name the format family, not its version:
// every format version is named "xa", and the version that decides how a
// file is read is the one in its component headers (FormatVersion). A
// directory then lists, removes, snapshots and links the SSTables of
// different versions alike, and a generation number alone names a table.
const VersionString = "xa"

// FormatName is the format name in component file names, as Cassandra's
// "big" format. Part of the file format.
const FormatName = "big"

// Component identifies one file of an SSTable.
type Component uint8

// The components, in the order they are listed in TOC.txt. The values are
// stored in the headers of the binary components and are part of the file
// format.
const (
	ComponentData Component = iota + 1
	ComponentIndex
	ComponentSummary
	ComponentFilter
	ComponentStatistics
	ComponentCompressionInfo
	ComponentDigest
	ComponentTOC
)

// Components lists every component in TOC order.
var Components = []Component{
	ComponentData, ComponentIndex, ComponentSummary, ComponentFilter,
	ComponentStatistics, ComponentCompressionInfo, ComponentDigest, ComponentTOC,
}

var componentNames = [...]string{
	ComponentData:            "Data.db",
	ComponentIndex:           "Index.db",
	ComponentSummary:         "Summary.db",
	ComponentFilter:          "Filter.db",
	ComponentStatistics:      "Statistics.db",
	ComponentCompressionInfo: "CompressionInfo.db",
	ComponentDigest:          "Digest.crc32",
	ComponentTOC:             "TOC.txt",
}

// String returns the component's file suffix, such as "Data.db".
func (c Component) String() string {
	if int(c) < len(componentNames) && componentNames[c] != "" {
		return componentNames[c]
	}
	return "Component(" + strconv.Itoa(int(c)) + ")"
}

// FileName returns the name of component c of generation gen, such as
// "xa-1-big-Data.db".
func FileName(gen int, c Component) string {
	return VersionString + "-" + strconv.Itoa(gen) + "-" + FormatName + "-" + c.String()
}

// ParseFileName parses a component file name of this format version, such
// as "xa-1-big-Data.db".
func ParseFileName(name string) (gen int, c Component, ok bool) {
	rest, found := strings.CutPrefix(name, VersionString+"-")
	if !found {
		return 0, 0, false
	}
	i := strings.IndexByte(rest, '-')
	if i <= 0 {
		return 0, 0, false
	}
	g, err := strconv.Atoi(rest[:i])
	if err != nil || g < 0 || strconv.Itoa(g) != rest[:i] {
		return 0, 0, false
	}
	suffix, found := strings.CutPrefix(rest[i+1:], FormatName+"-")
	if !found {
		return 0, 0, false
	}
	for _, comp := range Components {
		if comp.String() == suffix {
			return g, comp, true
		}
	}
	return 0, 0, false
}

// Binary component header, 8 bytes, at offset 0 of every binary component
// (Data, Index, Summary, Filter, Statistics, CompressionInfo). Part of the
// file format:
//
//	magic    [4]byte  "MCS" followed by the component letter
//	version  uint16   FormatVersion, little-endian
//	comp     uint8    the Component value
//	reserved uint8    0
const headerSize = 8

// magicPrefix starts every binary component. Part of the file format.
const magicPrefix = "MCS"

// componentLetters gives the fourth magic byte of each binary component.
// Part of the file format.
var componentLetters = map[Component]byte{
	ComponentData:            'D',
	ComponentIndex:           'I',
	ComponentSummary:         'S',
	ComponentFilter:          'F',
	ComponentStatistics:      'T',
	ComponentCompressionInfo: 'C',
}

// trailerSize is the size of the trailer of the small components (Summary,
// Filter, Statistics, CompressionInfo): a CRC32C, little-endian, of every
// byte before it (header and body). Part of the file format.
const trailerSize = 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func crc32c(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

func appendHeader(b []byte, c Component) []byte {
	b = append(b, magicPrefix...)
	b = append(b, componentLetters[c])
	b = binary.LittleEndian.AppendUint16(b, FormatVersion)
	return append(b, byte(c), 0)
}

// checkHeader checks the header of component c and returns its format
// version, which the caller checks (checkVersion) once it has compared the
// versions of all the components: a damaged version field is corruption,
// a whole SSTable of a newer version is not.
func checkHeader(file string, c Component, b []byte) (int, error) {
	if len(b) < headerSize {
		return 0, corruptf(file, 0, "file too short for header (%d bytes)", len(b))
	}
	if string(b[:3]) != magicPrefix || b[3] != componentLetters[c] {
		return 0, corruptf(file, 0, "bad magic %q", b[:4])
	}
	if Component(b[6]) != c || b[7] != 0 {
		return 0, corruptf(file, 6, "bad component byte %d", b[6])
	}
	return int(binary.LittleEndian.Uint16(b[4:])), nil
}

// checkVersion reports a format version this build does not read.
func checkVersion(file string, v int) error {
	if v < MinFormatVersion || v > FormatVersion {
		return fmt.Errorf("%w: %s is format version %d; this build reads versions %d to %d",
			ErrUnsupportedVersion, file, v, MinFormatVersion, FormatVersion)
	}
	return nil
}

// sealSmall frames body as a small component: header, body, CRC32C trailer.
func sealSmall(c Component, body []byte) []byte {
	b := appendHeader(make([]byte, 0, headerSize+len(body)+trailerSize), c)
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, crc32c(b))
}

// openSmall checks the header and trailer of a small component and returns
// its body and format version.
func openSmall(file string, c Component, b []byte) ([]byte, int, error) {
	v, err := checkHeader(file, c, b)
	if err != nil {
		return nil, 0, err
	}
	if len(b) < headerSize+trailerSize {
		return nil, 0, corruptf(file, int64(len(b)), "file too short for trailer")
	}
	n := len(b) - trailerSize
	if got, want := crc32c(b[:n]), binary.LittleEndian.Uint32(b[n:]); got != want {
		return nil, 0, corruptf(file, int64(n), "checksum mismatch: computed %08x, stored %08x", got, want)
	}
	return b[headerSize:n], v, nil
}

// decoder reads the varint-based encodings of the index, summary,
// statistics and compression info bodies with data.Cursor's primitives. It
// keeps the first error, which names the file and the absolute offset.
type decoder struct {
	data.Cursor
	file string
	base int64 // absolute file offset of Buf[0]
	err  error
}

// Err returns the first decoding error, or nil.
func (d *decoder) Err() error {
	if d.err == nil {
		if what, at, ok := d.Failure(); ok {
			d.err = corruptf(d.file, d.base+int64(at), "bad %s", what)
		}
	}
	return d.err
}

// u64 reads a little-endian uint64.
func (d *decoder) u64(what string) uint64 {
	b := d.Raw(8, what)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (d *decoder) finish(what string) error {
	if d.Err() == nil && d.Remaining() != 0 {
		d.err = corruptf(d.file, d.base+int64(d.Off), "%d trailing bytes after %s", d.Remaining(), what)
	}
	return d.err
}

func appendBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
