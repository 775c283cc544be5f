package javaudf

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Java strings are sequences of UTF-16 code units; the evaluator keeps
// them as Go strings and converts where an index is involved.

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func toUTF16(s string) []uint16 { return utf16.Encode([]rune(s)) }

func utf16String(u []uint16) string { return string(utf16.Decode(u)) }

// jlen is String.length().
func jlen(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return len(toUTF16(s))
}

// jsubstring is String.substring(b, e) with its bounds check.
func jsubstring(s string, b, e int) string {
	n := jlen(s)
	if b < 0 || e > n || b > e {
		throwJava("StringIndexOutOfBoundsException", "begin "+itoa(int64(b))+", end "+itoa(int64(e))+", length "+itoa(int64(n)))
	}
	if isASCII(s) {
		return s[b:e]
	}
	return utf16String(toUTF16(s)[b:e])
}

// jcharAt is String.charAt(i).
func jcharAt(s string, i int) jchar {
	n := jlen(s)
	if i < 0 || i >= n {
		// JDK 11's StringLatin1.charAt.
		throwJava("StringIndexOutOfBoundsException", "String index out of range: "+itoa(int64(i)))
	}
	if isASCII(s) {
		return jchar(s[i])
	}
	return jchar(toUTF16(s)[i])
}

// jindexOf is String.indexOf(sub, from) in UTF-16 units.
func jindexOf(s, sub string, from int) int {
	u, w := toUTF16(s), toUTF16(sub)
	from = max(from, 0)
	for i := from; i+len(w) <= len(u); i++ {
		if equalUnits(u[i:i+len(w)], w) {
			return i
		}
	}
	return -1
}

func jlastIndexOf(s, sub string) int {
	u, w := toUTF16(s), toUTF16(sub)
	for i := len(u) - len(w); i >= 0; i-- {
		if equalUnits(u[i:i+len(w)], w) {
			return i
		}
	}
	return -1
}

func equalUnits(a, b []uint16) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// compareStrings is String.compareTo: by UTF-16 code unit, then length.
func compareStrings(a, b string) int {
	if isASCII(a) && isASCII(b) {
		return clampCmp(strings.Compare(a, b), a, b)
	}
	u, w := toUTF16(a), toUTF16(b)
	for i := 0; i < len(u) && i < len(w); i++ {
		if u[i] != w[i] {
			return int(u[i]) - int(w[i])
		}
	}
	return len(u) - len(w)
}

// clampCmp turns strings.Compare into Java's difference of the first
// differing chars (or of the lengths).
func clampCmp(c int, a, b string) int {
	if c == 0 {
		return 0
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return len(a) - len(b)
}

// stringHash is String.hashCode.
func stringHash(s string) int32 {
	var h int32
	for _, c := range toUTF16(s) {
		h = 31*h + int32(c)
	}
	return h
}

// javaTrim is String.trim: strips chars <= ' ' at both ends.
func javaTrim(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	return s[i:j]
}
