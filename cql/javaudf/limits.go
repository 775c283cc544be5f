package javaudf

// Memory limits. A JVM running a UDF has a bounded heap; the interpreter
// bounds what one call may build so that a body cannot exhaust the
// process: beyond these sizes it throws OutOfMemoryError, as the JVM
// would (at a different size).
const (
	// maxElems bounds an array, collection or string-repeat count.
	maxElems = 1 << 20
	// maxChars bounds a string or StringBuilder, in UTF-16 units.
	maxChars = 1 << 22
	// maxBigBits bounds the magnitude of a BigInteger result.
	maxBigBits = 1 << 20
)

// maxDepth bounds the nesting of statements and expressions the parser
// accepts.
const maxDepth = 200

func outOfMemory() {
	throwJava("OutOfMemoryError", "Java heap space")
}

// checkElems throws OutOfMemoryError when n elements exceed maxElems.
func checkElems(n int64) {
	if n > maxElems {
		outOfMemory()
	}
}

// checkChars throws OutOfMemoryError when a string of n units exceeds
// maxChars.
func checkChars(n int) {
	if n > maxChars {
		outOfMemory()
	}
}

// checkBits throws ArithmeticException when a BigInteger result of about
// n bits exceeds maxBigBits.
func checkBits(n int64) {
	if n > maxBigBits {
		throwJava("ArithmeticException", "BigInteger would overflow supported range")
	}
}
