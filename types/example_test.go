package types_test

import (
	"bytes"
	"fmt"

	"github.com/minicass/minicass/types"
)

func ExampleParseLiteral() {
	t, _ := types.ParseType("map<text, frozen<list<int>>>")
	b, _ := types.ParseLiteral(t, "{'b': [1, 2], 'a': []}")
	fmt.Println(t)
	fmt.Println(types.Format(t, b))
	fmt.Println(string(types.AppendJSON(nil, t, b)))
	// Output:
	// map<text, frozen<list<int>>>
	// {'a': [], 'b': [1, 2]}
	// {"a": [], "b": [1, 2]}
}

func ExampleEncodeClustering() {
	cols := []types.ClusteringColumn{
		{Type: types.TextType, Order: types.Asc},
		{Type: types.IntType, Order: types.Desc},
	}
	row := func(name string, n int32) []byte {
		v := [][]byte{[]byte(name), {byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}}
		k, _ := types.EncodeClustering(cols, v)
		return k
	}
	a1, a2 := row("a", 1), row("a", 2)
	fmt.Printf("%x\n%x\n", a1, a2)
	fmt.Println(bytes.Compare(a2, a1)) // n is DESC: 2 sorts before 1
	start, _ := types.EncodeBound(cols, [][]byte{[]byte("a")}, types.StartInclusive)
	end, _ := types.EncodeBound(cols, [][]byte{[]byte("a")}, types.EndInclusive)
	fmt.Println(bytes.Compare(start, a2) < 0 && bytes.Compare(a1, end) < 0)
	// Output:
	// 40610001bf7ffffffe80
	// 40610001bf7ffffffd80
	// -1
	// true
}
