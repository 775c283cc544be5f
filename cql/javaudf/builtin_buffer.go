package javaudf

import (
	"math"
)

// The instance methods of java.nio.ByteBuffer (heap buffers: position and
// limit, relative and absolute gets and puts).

// bufferMethod runs a ByteBuffer method on b.
func bufferMethod(b *jbuffer, name string, args []any, line int) any {
	need := func(n int) int {
		if b.pos+n > len(b.b) {
			throwJava("BufferUnderflowException", "")
		}
		p := b.pos
		return p
	}
	absolute := len(args) == 1 && isNum(args[0])
	at := func(n int) int {
		if absolute {
			i := intArg(args, 0)
			if i < 0 || i+n > len(b.b) {
				throwJava("IndexOutOfBoundsException", "")
			}
			return i
		}
		p := need(n)
		b.pos += n
		return p
	}
	switch name {
	case "remaining":
		return int32(len(b.b) - b.pos)
	case "hasRemaining":
		return b.pos < len(b.b)
	case "position":
		return int32(b.pos)
	case "limit", "capacity":
		return int32(len(b.b))
	case "arrayOffset":
		return int32(0)
	case "hasArray":
		return true
	case "isDirect", "isReadOnly":
		return false
	case "get":
		if len(args) == 1 {
			if arr, ok := args[0].(*jarray); ok {
				p := need(len(arr.vals))
				for i := range arr.vals {
					arr.vals[i] = int8(b.b[p+i])
				}
				b.pos += len(arr.vals)
				return b
			}
		}
		return int8(b.b[at(1)])
	case "getInt":
		p := at(4)
		return int32(be64(b.b[p : p+4]))
	case "getLong":
		p := at(8)
		return int64(be64(b.b[p : p+8]))
	case "getShort":
		p := at(2)
		return int16(be64(b.b[p : p+2]))
	case "getChar":
		p := at(2)
		return jchar(be64(b.b[p : p+2]))
	case "getDouble":
		p := at(8)
		return math.Float64frombits(be64(b.b[p : p+8]))
	case "getFloat":
		p := at(4)
		return math.Float32frombits(uint32(be64(b.b[p : p+4])))
	case "array":
		arr := &jarray{elem: tInt8, vals: make([]any, len(b.b))}
		for i, c := range b.b {
			arr.vals[i] = int8(c)
		}
		return arr
	case "duplicate", "slice", "asReadOnlyBuffer":
		if name == "slice" {
			return &jbuffer{b: b.b[b.pos:]}
		}
		return &jbuffer{b: b.b, pos: b.pos}
	case "rewind":
		b.pos = 0
		return b
	case "put", "putInt", "putLong", "putShort", "putDouble", "putFloat":
		var enc []byte
		v := args[len(args)-1]
		switch name {
		case "put":
			if arr, ok := v.(*jarray); ok {
				enc = bytesOfArray(arr)
			} else if o, ok := v.(*jbuffer); ok {
				enc = o.b[o.pos:]
				o.pos = len(o.b)
			} else {
				enc = []byte{byte(toInt64(v))}
			}
		case "putInt":
			enc = beBytes(uint64(toInt64(v)), 4)
		case "putLong":
			enc = beBytes(uint64(toInt64(v)), 8)
		case "putShort":
			enc = beBytes(uint64(toInt64(v)), 2)
		case "putDouble":
			enc = beBytes(math.Float64bits(toFloat64(v)), 8)
		case "putFloat":
			enc = beBytes(uint64(math.Float32bits(toFloat32(v))), 4)
		}
		if len(args) == 2 {
			i := intArg(args, 0)
			if i < 0 || i+len(enc) > len(b.b) {
				throwJava("IndexOutOfBoundsException", "")
			}
			copy(b.b[i:], enc)
			return b
		}
		if b.pos+len(enc) > len(b.b) {
			throwJava("BufferOverflowException", "")
		}
		copy(b.b[b.pos:], enc)
		b.pos += len(enc)
		return b
	case "flip":
		b.b = b.b[:b.pos]
		b.pos = 0
		return b
	case "clear":
		b.pos = 0
		return b
	}
	panic(&UnsupportedError{Line: line, Construct: "the method ByteBuffer." + name})
}

// beBytes is v's low n bytes, big-endian.
func beBytes(v uint64, n int) []byte {
	out := make([]byte, n)
	for i := range n {
		out[n-1-i] = byte(v >> (8 * i))
	}
	return out
}
