// Package frame is the codec of the CQL native protocol, versions 3 to 5
// (Cassandra's doc/native_protocol_v4.spec and v5.spec): the frame header,
// the body primitives, every request and response message, and v5's
// segments (segment.go documents their layout, and the lz4 body format of
// v3 and v4). A Header's version byte, a Writer's V and a Reader's version
// select the version's layout; zero means v4. v5 differs from v4 in the
// body: query and batch flags are an [int] with keyspace (0x80) and
// now_in_seconds (0x100) added, PREPARE has flags and a keyspace, EXECUTE
// and PREPARED carry a result_metadata_id, Rows metadata may carry
// METADATA_CHANGED (0x0008) and a new id, READ_FAILURE and WRITE_FAILURE a
// reason map, and duration has a type id. v3 lacks PREPARED's partition key
// indexes, warnings and custom payloads.
//
// # Frame layout
//
// A frame is a 9-byte header followed by a body of Length bytes. All
// integers are big-endian.
//
//	offset size field
//	0      1    version  0x04 request, 0x84 response (bit 0x80 = response)
//	1      1    flags    0x01 compressed, 0x02 tracing, 0x04 custom payload,
//	                     0x08 warning
//	2      2    stream   int16; >= 0 from clients, -1 for server events
//	4      1    opcode   see the Op* constants
//	5      4    length   int32 body length, at most 256 MB by the spec
//
// A response body may start with a tracing [uuid] (flag 0x02), a [string
// list] of warnings (flag 0x08) and a [bytes map] custom payload (flag 0x04),
// in that order; a request body may start with a custom payload. When
// compression is negotiated in v3 or v4 the body, prefix included, is
// compressed as a whole and the header's length is the compressed length;
// in v5 whole segments are compressed instead and frames carry no
// compression flag. Encode and Decode work on uncompressed bodies; the
// caller applies compression with this package's LZ4 and segment helpers
// (or snappy).
//
// # Body primitives
//
//	[byte]            1 byte
//	[short]           uint16
//	[int], [long]     int32, int64
//	[string]          [short] n, n bytes of UTF-8
//	[long string]     [int] n, n bytes
//	[uuid]            16 bytes
//	[string list]     [short] n, n [string]
//	[bytes]           [int] n, n bytes; n < 0 is null
//	[value]           [int] n, n bytes; -1 null, -2 unset
//	[short bytes]     [short] n, n bytes
//	[option]          [short] id, then the parameter [option]s of list, set,
//	                  map and tuple (tuple: [short] count first); id 0 is a
//	                  custom type followed by its class name as a [string]
//	[inet]            [byte] size (4 or 16), the address, [int] port
//	[consistency]     [short]
//	[string map]      [short] n, n ([string], [string])
//	[string multimap] [short] n, n ([string], [string list])
//	[bytes map]       [short] n, n ([string], [bytes])
//
// # Worked example
//
// The query "SELECT release_version FROM system.local" at consistency ONE,
// with no flags, sent on stream 2:
//
//	04                 version 4, request
//	00                 no flags
//	00 02              stream 2
//	07                 QUERY
//	00 00 00 2f        body length 47
//	00 00 00 28        [long string] length 40
//	53 45 4c ... 6c    "SELECT release_version FROM system.local"
//	00 01              consistency ONE
//	00                 query flags: none
//
// Decode turns the body into a *Query; (*Frame).AppendTo produces exactly
// these bytes from Frame{Header: Header{Version: 4, Stream: 2}, Message:
// &Query{...}}.
//
// Every decoder returns an error wrapping one of the package's sentinel
// errors on malformed input and never panics; counts announced in a body are
// checked against the bytes left before anything is allocated.
//
// # Allocations
//
// A server decodes requests with DecodeRequest, which returns the message
// without a Frame: an EXECUTE costs two allocations (the message and its
// value slice; the values alias the body). Encoding a Result with AppendTo
// into a buffer with room allocates nothing; other messages allocate one
// Writer.
package frame
