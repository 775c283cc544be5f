package vfs

// Mapping is a file's preallocated space mapped into memory, shared and
// writable, as Cassandra maps its commit-log segments: bytes copied into
// Bytes are the file's contents (they reach the page cache at once, so a
// killed process loses none of them), and Sync makes a range durable. Only
// the operating system's files can be mapped (MapFile); the in-memory and
// fault-injecting files cannot, and their users write with Write.
type Mapping struct {
	b    []byte
	impl mappingImpl
}

// Bytes returns the mapped space. Writing past it faults.
func (m *Mapping) Bytes() []byte { return m.b }

// MapFile preallocates size bytes for f (so that writing the mapped space
// cannot fail for want of disk space) and maps them. ok is false, with a
// nil error, when f cannot be mapped: a file of another FS than Default, or
// an operating system or filesystem without the calls this needs; the
// caller then writes with Write. The file's contents before the call are
// kept.
func MapFile(f File, size int64) (m *Mapping, ok bool, err error) {
	return mapFile(f, size)
}

// Sync makes the mapped bytes in [off, off+n) durable.
func (m *Mapping) Sync(off, n int64) error { return m.impl.sync(m.b, off, n) }

// Close unmaps the space and truncates the file to size, the bytes of it in
// use. The file stays open; Bytes must not be used afterwards.
func (m *Mapping) Close(size int64) error {
	err := m.impl.close(m.b, size)
	m.b = nil
	return err
}
