package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/types"
)

// minicass ring shows how a cluster places data, on a simulated token ring
// (partitioner.Ring) that needs no data directory: each node draws
// --vnodes random tokens and owns the ranges ending at them; a key's
// Murmur3 token (Cassandra's) falls in one range, and the replication
// strategy walks the ring from there to choose its replicas.
//
//	minicass ring [--nodes 4] [--vnodes 16] [--dcs 1] [--racks 1] [--seed 1]
//	              [--rf 3 | --rf datacenter1:3,datacenter2:2] [--key-type text]
//	              [--tokens] [--] [KEY...]
//
// It prints each node's share of the ring, as nodetool status does (Owns,
// and Owns (effective) under the replication), how uneven the shares are,
// and, for each KEY, its token and replicas, as nodetool getendpoints does.
func init() {
	commands["ring"] = command{
		summary: "a simulated cluster's token ring: ownership per node, and the token and replicas of keys",
		run:     ringMain,
	}
}

func ringMain(args []string, io stdio) int {
	fs := flag.NewFlagSet("ring", flag.ContinueOnError)
	fs.SetOutput(io.err)
	nodes := fs.Int("nodes", 4, "nodes per data center")
	vnodes := fs.Int("vnodes", 16, "tokens per node (num_tokens)")
	dcs := fs.Int("dcs", 1, "data centers, named datacenter1, datacenter2, ...")
	racks := fs.Int("racks", 1, "racks per data center; nodes are dealt to them in turn")
	seed := fs.Int64("seed", 1, "seed of the random tokens (the same seed gives the same ring)")
	rf := fs.String("rf", "3", "replication: N for SimpleStrategy, or dc:N,... for NetworkTopologyStrategy")
	keyType := fs.String("key-type", "text", "CQL type of the partition key; types separated by ',' for a composite key")
	tokens := fs.Bool("tokens", false, "list every token of the ring with its node, as nodetool ring does")
	keys, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if *nodes < 1 || *dcs < 1 || *racks < 1 || *vnodes < 1 || *nodes**dcs > 1000 || *vnodes > 1024 {
		fmt.Fprintln(io.err, "minicass ring: --nodes, --dcs, --racks and --vnodes must be at least 1 (at most 1000 nodes, 1024 vnodes)")
		return 2
	}
	strategy, desc, err := parseStrategy(*rf)
	if err != nil {
		fmt.Fprintf(io.err, "minicass ring: %v\n", err)
		return 2
	}
	var kinds []types.Type
	for _, name := range strings.Split(*keyType, ",") {
		t, err := types.ParseType(strings.TrimSpace(name))
		if err != nil {
			fmt.Fprintf(io.err, "minicass ring: --key-type: %v\n", err)
			return 2
		}
		kinds = append(kinds, t)
	}
	var members []partitioner.Node
	for d := 0; d < *dcs; d++ {
		for n := 0; n < *nodes; n++ {
			members = append(members, partitioner.Node{
				Name: fmt.Sprintf("127.0.%d.%d", d, n+1),
				DC:   fmt.Sprintf("datacenter%d", d+1),
				Rack: fmt.Sprintf("rack%d", n%*racks+1),
			})
		}
	}
	ring := partitioner.NewRing(members, *vnodes, *seed)
	fmt.Fprintf(io.out, "Simulated ring: %d nodes, %d token%s each (seed %d), Murmur3Partitioner; replication %s\n",
		len(members), *vnodes, plural(*vnodes), *seed, desc)
	printOwnership(io.out, ring, strategy)
	if *tokens {
		printTokens(io.out, ring)
	}
	for _, key := range keys {
		b, err := parseKeyOf(kinds, key)
		if err != nil {
			fmt.Fprintf(io.err, "minicass ring: %v\n", err)
			return 1
		}
		tok := partitioner.Murmur3(b)
		var names []string
		for _, n := range ring.Replicas(tok, strategy) {
			names = append(names, n.Name)
		}
		fmt.Fprintf(io.out, "\nKey %s: token %d, replicas %s\n", key, int64(tok), strings.Join(names, ", "))
	}
	return 0
}

// parseStrategy reads --rf: "3" is SimpleStrategy with RF 3,
// "datacenter1:3,datacenter2:2" NetworkTopologyStrategy.
func parseStrategy(s string) (partitioner.Strategy, string, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 {
			return nil, "", fmt.Errorf("--rf %d: a replication factor is at least 1", n)
		}
		return partitioner.SimpleStrategy{RF: n}, fmt.Sprintf("SimpleStrategy, RF %d", n), nil
	}
	rf := map[string]int{}
	var parts []string
	for _, item := range strings.Split(s, ",") {
		dc, v, ok := strings.Cut(strings.TrimSpace(item), ":")
		n, err := strconv.Atoi(v)
		if !ok || dc == "" || err != nil || n < 1 {
			return nil, "", fmt.Errorf("--rf %q: want N, or dc:N,dc:N", s)
		}
		rf[dc] = n
		parts = append(parts, fmt.Sprintf("%s %d", dc, n))
	}
	return partitioner.NetworkTopologyStrategy{RF: rf}, "NetworkTopologyStrategy, " + strings.Join(parts, ", "), nil
}

// printOwnership prints a table per data center, then the spread of the
// primary shares.
func printOwnership(w io.Writer, ring *partitioner.Ring, s partitioner.Strategy) {
	owns := ring.Ownership()
	effective := ring.EffectiveOwnership(s)
	tokens := map[string]int{}
	for _, tr := range ring.Ranges() {
		tokens[tr.Owner.Name]++
	}
	lo, hi := math.Inf(1), 0.0
	dc := ""
	var tw *tabwriter.Writer
	for _, n := range ring.Nodes() {
		if n.DC != dc {
			if tw != nil {
				tw.Flush()
			}
			dc = n.DC
			fmt.Fprintf(w, "\nDatacenter: %s\n", dc)
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "Address\tRack\tTokens\tOwns\tOwns (effective)")
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f%%\t%.1f%%\n", n.Name, n.Rack, tokens[n.Name], 100*owns[n.Name], 100*effective[n.Name])
		lo, hi = min(lo, owns[n.Name]), max(hi, owns[n.Name])
	}
	tw.Flush()
	if len(owns) > 1 {
		fmt.Fprintf(w, "\nPrimary ownership: smallest %.1f%%, largest %.1f%% (%.2fx). Random tokens split the ring unevenly; more tokens per node even it out.\n",
			100*lo, 100*hi, hi/lo)
	}
}

// printTokens lists the ring's tokens in order with their owners.
func printTokens(w io.Writer, ring *partitioner.Ring) {
	ranges := ring.Ranges()
	slices.SortFunc(ranges, func(a, b partitioner.TokenRange) int { return compareTokens(a.End, b.End) })
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Token\tAddress\tDatacenter\tRack\t")
	for _, tr := range ranges {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t\n", int64(tr.End), tr.Owner.Name, tr.Owner.DC, tr.Owner.Rack)
	}
	tw.Flush()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func compareTokens(a, b partitioner.Token) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
