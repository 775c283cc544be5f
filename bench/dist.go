package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// A Dist is a distribution of numbers, written as in cassandra-stress's
// column specifications: a name and, in parentheses, a range "a..b" and
// sometimes a parameter:
//
//	fixed(n)          always n
//	uniform(a..b)     every value of [a, b] equally likely
//	gaussian(a..b)    normal around the middle of [a, b], a standard deviation
//	                  of a sixth of its width (cassandra-stress's three
//	                  deviations each side), clamped to [a, b]; also normal()
//	gaussian(a..b,s)  the same with the width s standard deviations wide
//	exp(a..b)         exponential from a, mean a tenth of the width, clamped
//	zipf(a..b)        a + k where k has the Zipf distribution of exponent 1.1
//	                  over the width: a few values very hot, a long tail
//
// Where the range is implied (an entity or row picked by a query), the name
// alone is enough: "uniform", "zipf". A Dist is a value: draw with Sample and
// a *rand.Rand, so one seed gives one sequence.
type Dist struct {
	// Kind is the distribution's name (normal reads as gaussian).
	Kind string
	// Lo and Hi are the bounds, inclusive.
	Lo, Hi float64
	// Param is the gaussian's width in standard deviations (default 6).
	Param float64
	// text is the distribution as written.
	text string
}

// String returns the distribution as written.
func (d Dist) String() string { return d.text }

// ParseDist parses a distribution. Without a range in the text the bounds
// lo and hi apply (implied must then be true).
func ParseDist(s string, implied bool, lo, hi float64) (Dist, error) {
	s = strings.TrimSpace(s)
	d := Dist{text: s}
	name, args, hasArgs := strings.Cut(s, "(")
	name = strings.ToLower(strings.TrimSpace(name))
	if hasArgs {
		if !strings.HasSuffix(args, ")") {
			return d, fmt.Errorf("distribution %q: missing closing parenthesis", s)
		}
		args = strings.TrimSpace(strings.TrimSuffix(args, ")"))
	}
	if name == "normal" {
		name = "gaussian"
	}
	d.Kind = name
	switch name {
	case "fixed", "uniform", "gaussian", "exp", "zipf":
	default:
		return d, fmt.Errorf("distribution %q: unknown kind %q (want fixed, uniform, gaussian, exp or zipf)", s, name)
	}
	if args == "" {
		if name == "fixed" || !implied {
			return d, fmt.Errorf("distribution %q: wants a range, as in %s(1..100)", s, name)
		}
		d.Lo, d.Hi = lo, hi
	} else if name == "fixed" {
		v, err := strconv.ParseFloat(args, 64)
		if err != nil {
			return d, fmt.Errorf("distribution %q: fixed wants one number", s)
		}
		d.Lo, d.Hi = v, v
	} else {
		rng, param, hasParam := strings.Cut(args, ",")
		a, b, ok := strings.Cut(rng, "..")
		if !ok {
			return d, fmt.Errorf("distribution %q: the range must read a..b", s)
		}
		var err1, err2 error
		d.Lo, err1 = strconv.ParseFloat(strings.TrimSpace(a), 64)
		d.Hi, err2 = strconv.ParseFloat(strings.TrimSpace(b), 64)
		if err1 != nil || err2 != nil {
			return d, fmt.Errorf("distribution %q: the bounds must be numbers", s)
		}
		if hasParam {
			if name != "gaussian" {
				return d, fmt.Errorf("distribution %q: only gaussian takes a third parameter", s)
			}
			p, err := strconv.ParseFloat(strings.TrimSpace(param), 64)
			if err != nil || p <= 0 {
				return d, fmt.Errorf("distribution %q: the deviations must be a positive number", s)
			}
			d.Param = p
		}
	}
	if d.Lo > d.Hi || math.IsNaN(d.Lo) || math.IsInf(d.Lo, 0) || math.IsInf(d.Hi, 0) {
		return d, fmt.Errorf("distribution %q: the range %g..%g is empty", s, d.Lo, d.Hi)
	}
	if d.Param == 0 {
		d.Param = 6
	}
	return d, nil
}

// Sample draws one value.
func (d Dist) Sample(r *rand.Rand) float64 {
	w := d.Hi - d.Lo
	var v float64
	switch d.Kind {
	case "fixed":
		return d.Lo
	case "uniform":
		v = d.Lo + r.Float64()*w
	case "gaussian":
		v = d.Lo + w/2 + r.NormFloat64()*w/d.Param
	case "exp":
		v = d.Lo + r.ExpFloat64()*w/10
	case "zipf":
		return d.Lo + float64(zipf(r, uint64(w)))
	}
	return min(max(v, d.Lo), d.Hi)
}

// SampleInt draws one value rounded down to an integer of [Lo, Hi]; a
// uniform(a..b) gives each integer of a..b the same chance.
func (d Dist) SampleInt(r *rand.Rand) int64 {
	var v float64
	if d.Kind == "uniform" {
		v = math.Floor(d.Lo + r.Float64()*(d.Hi-d.Lo+1))
	} else {
		v = math.Floor(d.Sample(r))
	}
	return int64(min(max(v, math.Ceil(d.Lo)), math.Floor(d.Hi)))
}

// zipf draws from 0..n with weights 1/(k+1)^1.1 by rejection (Devroye's
// method, as math/rand's Zipf); n is capped at 2^62.
func zipf(r *rand.Rand, n uint64) uint64 {
	const s = 1.1
	n = min(n, 1<<62)
	for {
		u := 1 - r.Float64()
		x := math.Floor(math.Pow(u, -1/(s-1)))
		if x < 1 || x > float64(n)+1 {
			continue
		}
		t := math.Pow(1+1/x, s-1)
		if r.Float64()*x*(t-1)/(math.Pow(2, s-1)-1) <= t/math.Pow(2, s-1) {
			return uint64(x) - 1
		}
	}
}
