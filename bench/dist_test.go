package bench

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDistSeededAndBounded(t *testing.T) {
	for _, spec := range []string{"fixed(5)", "uniform(1..100)", "gaussian(0..40)", "normal(0..40, 4)", "exp(10..1000)", "zipf(0..1000)"} {
		d, err := ParseDist(spec, false, 0, 0)
		require.NoError(t, err, spec)
		seed := uint64(1234)
		t.Logf("%s: seed %d", spec, seed)
		draw := func() []int64 {
			r := rand.New(rand.NewPCG(seed, 0))
			out := make([]int64, 1000)
			for i := range out {
				out[i] = d.SampleInt(r)
			}
			return out
		}
		a, b := draw(), draw()
		assert.Equal(t, a, b, "%s: the same seed gives the same values", spec)
		for _, v := range a {
			require.True(t, float64(v) >= d.Lo && float64(v) <= d.Hi, "%s: %d out of range", spec, v)
		}
	}
}

func TestDistShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(99, 0))
	count := func(spec string, n int) map[int64]int {
		d, err := ParseDist(spec, false, 0, 0)
		require.NoError(t, err)
		seen := map[int64]int{}
		for range n {
			seen[d.SampleInt(r)]++
		}
		return seen
	}
	// uniform(1..4) reaches every value, 4 included.
	u := count("uniform(1..4)", 4000)
	assert.Len(t, u, 4)
	for v := int64(1); v <= 4; v++ {
		assert.Greater(t, u[v], 800, "value %d", v)
	}
	// zipf: the first value is the hottest.
	z := count("zipf(0..100)", 10000)
	for v, c := range z {
		assert.LessOrEqual(t, c, z[0], "value %d", v)
	}
	// gaussian: the middle is hotter than the edges.
	g := count("gaussian(0..10)", 10000)
	assert.Greater(t, g[5], g[0])
	assert.Greater(t, g[5], g[10])
}

func TestParseDistErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"uniform":          "wants a range",
		"uniform(1..":      "missing closing parenthesis",
		"uniform(1-5)":     "the range must read a..b",
		"uniform(a..b)":    "the bounds must be numbers",
		"fixed(x)":         "fixed wants one number",
		"exp(1..2, 3)":     "only gaussian takes a third parameter",
		"gaussian(1..2,0)": "the deviations must be a positive number",
		"poisson(1..2)":    "unknown kind",
		"uniform(5..1)":    "is empty",
	} {
		_, err := ParseDist(spec, false, 0, 0)
		require.Error(t, err, spec)
		assert.Contains(t, err.Error(), want, spec)
	}
	d, err := ParseDist("zipf", true, 0, 9)
	require.NoError(t, err)
	assert.Equal(t, [2]float64{0, 9}, [2]float64{d.Lo, d.Hi})
}
