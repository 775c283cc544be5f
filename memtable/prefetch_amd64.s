#include "textflag.h"

// func prefetchBucket(b *bucket)
//
// Hints the processor to load the bucket's 512 bytes (eight cache lines)
// into its caches. A prefetch never faults and changes no memory.
TEXT ·prefetchBucket(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ b+0(FP), AX
	PREFETCHT0 0(AX)
	PREFETCHT0 64(AX)
	PREFETCHT0 128(AX)
	PREFETCHT0 192(AX)
	PREFETCHT0 256(AX)
	PREFETCHT0 320(AX)
	PREFETCHT0 384(AX)
	PREFETCHT0 448(AX)
	RET

// func prefetchLine(p unsafe.Pointer)
//
// Hints the processor to load the cache line holding p.
TEXT ·prefetchLine(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 0(AX)
	RET
