package studio

import (
	"fmt"
	"math"
	"net/http"
	"strings"

	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/sstable"
)

// maxLayoutPartitions bounds the partitions the SSTable view lists.
const maxLayoutPartitions = 200

// sstableView shows one SSTable's anatomy: its component files and their
// sizes, its Data.db chunks, its partitions with their place in the stream,
// the row index of its widest partition (or of the chosen key), its bloom
// filter, and its statistics. Without name=, the newest SSTable is shown.
func (s *Studio) sstableView(r *http.Request) (*rendered, error) {
	t, err := s.table(r)
	if err != nil {
		return nil, err
	}
	key, keyText, err := parseKey(r, t)
	if err != nil {
		return nil, err
	}
	e := s.db.Engine()
	infos := e.SSTables(t.Keyspace, t.Name)
	var b strings.Builder
	if len(infos) == 0 {
		b.WriteString(`<p id="no-sstables" class="note">This table has no SSTable yet: its data is in the memtable. Flush it (NODETOOL flush ks.t in the shell) to write one.</p>`)
		return &rendered{title: "SSTables of " + t.QualifiedName(), table: t, body: b.String()}, nil
	}
	name := r.URL.Query().Get("name")
	info := infos[0]
	if name != "" {
		found := false
		for _, in := range infos {
			if in.Name == name {
				info, found = in, true
			}
		}
		if !found {
			return nil, badRequest("%s has no live SSTable %s", t.QualifiedName(), name)
		}
	}
	b.WriteString(`<p id="sstables">SSTables: `)
	for i, in := range infos {
		if i > 0 {
			b.WriteString(" · ")
		}
		if in.Name == info.Name {
			fmt.Fprintf(&b, `<b>%s</b>`, esc(in.Name))
		} else {
			fmt.Fprintf(&b, `<a href="/sstable?table=%s&amp;name=%s">%s</a>`, esc(t.QualifiedName()), esc(in.Name), esc(in.Name))
		}
	}
	b.WriteString("</p>")
	fmt.Fprintf(&b, `<form method="get" action="/sstable"><input type="hidden" name="table" value="%s"><input type="hidden" name="name" value="%s">row index of partition <input name="key" value="%s" size="30"> <button>show</button> (empty: the widest)</form>`,
		esc(t.QualifiedName()), esc(info.Name), esc(keyText))

	var an sstable.Anatomy
	var parts []sstable.PartitionLayout
	var chosen *sstable.PartitionLayout
	var mayContain bool
	total := 0
	err = e.InspectSSTable(t.Keyspace, t.Name, info.Name, func(rd *sstable.Reader) error {
		an = rd.Anatomy()
		if key != nil {
			mayContain = rd.MayContain(key)
		}
		return rd.Partitions(func(l sstable.PartitionLayout) bool {
			total++
			if key != nil && string(l.Key) == string(key) {
				c := l
				chosen = &c
			} else if key == nil && (chosen == nil || len(l.Blocks) > len(chosen.Blocks) || (len(l.Blocks) == len(chosen.Blocks) && l.Length > chosen.Length)) {
				c := l
				chosen = &c
			}
			if len(parts) < maxLayoutPartitions {
				parts = append(parts, l)
			}
			return true
		})
	})
	if err != nil {
		return nil, err
	}

	var svg strings.Builder
	const w = 760.0
	fmt.Fprintf(&svg, `<svg id="anatomy" xmlns="http://www.w3.org/2000/svg" width="%g" height="200" viewBox="0 0 %g 200" role="img" aria-label="anatomy of %s">`, w, w, esc(info.Name))
	fmt.Fprintf(&svg, `<title>Anatomy of %s of %s</title>`, esc(info.Name), esc(t.QualifiedName()))
	drawComponents(&svg, info)
	drawChunks(&svg, an)
	drawPartitions(&svg, an, parts, total)
	svg.WriteString("</svg>")

	b.WriteString(`<p class="note">An SSTable is a set of files written once. Data.db holds the partitions in token order, cut in compressed chunks; Index.db has an entry per partition (with a row index for a partition larger than column_index_size); Summary.db samples Index.db; Filter.db is the bloom filter a read asks first; Statistics.db the metadata below.</p>`)
	b.WriteString(`<h2>Components</h2><table id="components"><tr><th>file</th><th>bytes</th></tr>`)
	for i, f := range info.Files {
		fmt.Fprintf(&b, `<tr class="component"><td class="src">%s</td><td class="num">%d</td></tr>`, esc(f), info.Sizes[i])
	}
	fmt.Fprintf(&b, `<tr><th>total</th><th class="num">%d</th></tr></table>`, info.DiskSize)

	fmt.Fprintf(&b, `<h2>Chunks</h2><p class="note">Codec %s, chunks of %d bytes of stream: the stream of %d bytes is stored in %d bytes of Data.db (ratio %.2f). A read decompresses whole chunks.</p>`,
		esc(an.Codec), an.ChunkLength, an.StreamLength, an.DataFileLength, ratio(an.DataFileLength, an.StreamLength))
	b.WriteString(`<table id="chunks"><tr><th>chunk</th><th>file offset</th><th>stored bytes</th><th>stream range</th></tr>`)
	for i, c := range an.Chunks {
		if i == 100 {
			fmt.Fprintf(&b, `<tr><td colspan="4">... %d more</td></tr>`, len(an.Chunks)-i)
			break
		}
		fmt.Fprintf(&b, `<tr class="chunk"><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td>[%d, %d)</td></tr>`, i, c.FileOffset, c.StoredLength, c.StreamStart, c.StreamEnd)
	}
	b.WriteString("</table>")

	b.WriteString(`<h2>Row index</h2>`)
	switch {
	case chosen == nil && key != nil:
		fmt.Fprintf(&b, `<p id="row-index" class="note">Partition %s is not in this SSTable.</p>`, esc(t.FormatPartitionKey(key)))
	case chosen == nil:
		b.WriteString(`<p id="row-index" class="note">No partition.</p>`)
	default:
		rowIndex(&b, t, chosen)
	}

	b.WriteString(`<h2>Bloom filter</h2>`)
	if an.BloomBits == 0 {
		b.WriteString(`<p id="bloom">No filter bits (bloom_filter_fp_chance 1.0): every read looks in Index.db.</p>`)
	} else {
		fill := float64(an.BloomBitsSet) / float64(an.BloomBits)
		fmt.Fprintf(&b, `<p id="bloom">%d bits (%d bytes), %d hash functions, %d bits set (%.1f%%). A key absent from the SSTable passes with a chance of about %.4f%%: the fill raised to the number of hashes.</p>`,
			an.BloomBits, an.BloomBits/8, an.BloomHashes, an.BloomBitsSet, 100*fill, 100*math.Pow(fill, float64(an.BloomHashes)))
		fmt.Fprintf(&b, `<svg id="bloom-fill" xmlns="http://www.w3.org/2000/svg" width="400" height="24" viewBox="0 0 400 24" role="img" aria-label="bloom filter fill"><rect x="0" y="4" width="400" height="16" fill="#eee"/><rect x="0" y="4" width="%.1f" height="16" fill="#8e44ad"/></svg>`, 400*fill)
	}
	if key != nil {
		verdict := "says no: a read of this key skips the SSTable without touching Index.db"
		if mayContain {
			verdict = "says maybe: a read of this key looks in Index.db"
		}
		fmt.Fprintf(&b, `<p id="bloom-key">For %s the filter %s.</p>`, esc(t.FormatPartitionKey(key)), verdict)
	}
	fmt.Fprintf(&b, `<p class="note">Summary.db: %d samples, one every %d Index.db entries; Index.db: %d bytes.</p>`, an.SummaryEntries, an.SummaryInterval, an.IndexLength)

	b.WriteString(`<h2>Statistics</h2>`)
	statsTable(&b, t, info.Stats)

	fmt.Fprintf(&b, `<h2>Partitions</h2><table id="layout"><tr><th>partition</th><th>token</th><th>position</th><th>length</th><th>index blocks</th><th>Index.db entry</th></tr>`)
	for _, p := range parts {
		del := ""
		if p.Deleted {
			del = ` <span class="tombstone">deleted</span>`
		}
		fmt.Fprintf(&b, `<tr class="lp"><td><a href="/sstable?table=%s&amp;name=%s&amp;key=%s">%s</a>%s</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td></tr>`,
			esc(t.QualifiedName()), esc(info.Name), esc(keyText0(t, p.Key)), esc(t.FormatPartitionKey(p.Key)), del, p.Token, p.Position, p.Length, len(p.Blocks), p.IndexPosition)
	}
	b.WriteString("</table>")
	if total > len(parts) {
		fmt.Fprintf(&b, `<p class="note">The first %d of %d partitions.</p>`, len(parts), total)
	}
	return &rendered{title: "SSTable " + info.Name + " of " + t.QualifiedName(), table: t, svg: svg.String(), body: b.String()}, nil
}

func ratio(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

var componentColors = []string{"#2e86c1", "#28b463", "#d4ac0d", "#8e44ad", "#ca6f1e", "#17a589", "#7f8c8d", "#34495e"}

// drawComponents draws the component files as a bar, each part as wide as
// its file (at least 3 pixels, so a small file still shows).
func drawComponents(b *strings.Builder, info engine.SSTableInfo) {
	const left, width = 10.0, 740.0
	fmt.Fprintf(b, `<text x="%g" y="16" font-size="13" font-weight="bold">Component files (%d bytes)</text>`, left, info.DiskSize)
	var sum float64
	for _, s := range info.Sizes {
		sum += math.Max(float64(max(s, 0)), 1)
	}
	x := left
	for i, f := range info.Files {
		ww := math.Max(3, width*math.Max(float64(max(info.Sizes[i], 0)), 1)/sum)
		fmt.Fprintf(b, `<rect class="component" x="%.1f" y="24" width="%.1f" height="24" fill="%s"><title>%s: %d bytes</title></rect>`, x, ww, componentColors[i%len(componentColors)], esc(f), info.Sizes[i])
		if ww > 60 {
			fmt.Fprintf(b, `<text x="%.1f" y="40" font-size="10" fill="#fff">%s</text>`, x+3, esc(componentShort(f)))
		}
		x += ww
	}
}

func componentShort(f string) string {
	if i := strings.LastIndex(f, "-"); i >= 0 {
		return f[i+1:]
	}
	return f
}

// drawChunks draws Data.db's chunks, each as wide as its stored bytes.
func drawChunks(b *strings.Builder, an sstable.Anatomy) {
	const left, width = 10.0, 740.0
	fmt.Fprintf(b, `<text x="%g" y="76" font-size="13" font-weight="bold">Data.db: %d chunks (%s)</text>`, left, len(an.Chunks), esc(an.Codec))
	if an.DataFileLength == 0 {
		return
	}
	for i, c := range an.Chunks {
		x := left + width*float64(c.FileOffset)/float64(an.DataFileLength)
		ww := math.Max(1, width*float64(c.StoredLength)/float64(an.DataFileLength)-1)
		fmt.Fprintf(b, `<rect class="chunk" x="%.1f" y="84" width="%.1f" height="24" fill="%s"><title>chunk %d: file [%d, %d), stream [%d, %d)</title></rect>`,
			x, ww, componentColors[i%2], i, c.FileOffset, c.FileOffset+c.StoredLength, c.StreamStart, c.StreamEnd)
	}
}

// drawPartitions draws the stream with each listed partition as wide as
// its length, a wide one (with a row index) in orange.
func drawPartitions(b *strings.Builder, an sstable.Anatomy, parts []sstable.PartitionLayout, total int) {
	const left, width = 10.0, 740.0
	fmt.Fprintf(b, `<text x="%g" y="136" font-size="13" font-weight="bold">Stream: %d partitions in token order (%d bytes uncompressed)</text>`, left, total, an.StreamLength)
	if an.StreamLength == 0 {
		return
	}
	for _, p := range parts {
		x := left + width*float64(p.Position)/float64(an.StreamLength)
		ww := math.Max(1, width*float64(p.Length)/float64(an.StreamLength)-0.5)
		fill, class := "#5dade2", "stream-partition"
		if len(p.Blocks) > 0 {
			fill, class = "#e67e22", "stream-partition wide"
		}
		fmt.Fprintf(b, `<rect class="%s" x="%.1f" y="144" width="%.1f" height="24" fill="%s"><title>token %d: [%d, %d), %d index blocks</title></rect>`,
			class, x, ww, fill, p.Token, p.Position, p.Position+p.Length, len(p.Blocks))
	}
	fmt.Fprintf(b, `<text x="%g" y="190" font-size="11" fill="#555">orange: a partition larger than column_index_size, with a row index in Index.db</text>`, left)
}

// rowIndex draws and lists the row index of one partition.
func rowIndex(b *strings.Builder, t *schema.Table, p *sstable.PartitionLayout) {
	if len(p.Blocks) == 0 {
		fmt.Fprintf(b, `<p id="row-index" class="note">Partition %s (%d bytes) fits in one column_index_size block: its Index.db entry has no row index, and a read walks its rows from the start.</p>`,
			esc(t.FormatPartitionKey(p.Key)), p.Length)
		return
	}
	fmt.Fprintf(b, `<p id="row-index" class="note">Partition %s: %d bytes in %d blocks. A read of a clustering range binary-searches these blocks in the Index.db entry and decodes only the blocks it needs.</p>`,
		esc(t.FormatPartitionKey(p.Key)), p.Length, len(p.Blocks))
	const left, width = 10.0, 740.0
	fmt.Fprintf(b, `<svg id="row-index-svg" xmlns="http://www.w3.org/2000/svg" width="760" height="60" viewBox="0 0 760 60" role="img" aria-label="row index">`)
	span := float64(p.Length)
	for i, bl := range p.Blocks {
		x := left + width*float64(bl.Offset-p.Position)/span
		ww := math.Max(1, width*float64(bl.Length)/span-1)
		fmt.Fprintf(b, `<rect class="index-block" x="%.1f" y="8" width="%.1f" height="30" fill="%s"><title>block %d: %s .. %s, offset %d, %d bytes</title></rect>`,
			x, ww, componentColors[i%2], i, esc(t.FormatClustering(bl.First)), esc(t.FormatClustering(bl.Last)), bl.Offset, bl.Length)
	}
	b.WriteString(`<text x="10" y="54" font-size="11" fill="#555">each block, as wide as its bytes, in clustering order as stored</text></svg>`)
	b.WriteString(`<table id="blocks"><tr><th>block</th><th>first</th><th>last</th><th>offset</th><th>bytes</th></tr>`)
	for i, bl := range p.Blocks {
		fmt.Fprintf(b, `<tr class="block"><td class="num">%d</td><td>%s</td><td>%s</td><td class="num">%d</td><td class="num">%d</td></tr>`,
			i, esc(t.FormatClustering(bl.First)), esc(t.FormatClustering(bl.Last)), bl.Offset, bl.Length)
	}
	b.WriteString("</table>")
}

// statsTable lists an SSTable's Statistics.db.
func statsTable(b *strings.Builder, t *schema.Table, st *sstable.Stats) {
	if st == nil {
		return
	}
	row := func(name, value string) {
		fmt.Fprintf(b, `<tr><th>%s</th><td>%s</td></tr>`, esc(name), esc(value))
	}
	b.WriteString(`<table id="stats">`)
	row("partitions", fmt.Sprint(st.Partitions))
	row("rows", fmt.Sprint(st.Rows))
	row("cells", fmt.Sprint(st.Cells))
	row("cells with a TTL", fmt.Sprint(st.ExpiringCells))
	row("tombstones: cell, row, range, partition", fmt.Sprintf("%d, %d, %d, %d", st.CellTombstones, st.RowTombstones, st.RangeTombstones, st.PartitionTombstones))
	row("timestamps", fmt.Sprintf("%d .. %d", st.MinTimestamp, st.MaxTimestamp))
	row("local deletion times", fmt.Sprintf("%d .. %d", st.MinLocalDeletionTime, st.MaxLocalDeletionTime))
	row("tokens", fmt.Sprintf("%d .. %d", st.FirstToken, st.LastToken))
	if st.FirstKey != nil {
		row("keys", t.FormatPartitionKey(st.FirstKey)+" .. "+t.FormatPartitionKey(st.LastKey))
	}
	if st.MinClustering != nil {
		unb := ""
		if st.ClusteringUnbounded {
			unb = " (a deletion reaches past them)"
		}
		row("clustering bounds", t.FormatClustering(st.MinClustering)+" .. "+t.FormatClustering(st.MaxClustering)+unb)
	}
	row("partition size (bytes): min, max", fmt.Sprintf("%d, %d", st.PartitionSizes.Min(), st.PartitionSizes.Max()))
	row("cells per partition: min, max", fmt.Sprintf("%d, %d", st.CellCounts.Min(), st.CellCounts.Max()))
	row("stream and Data.db bytes", fmt.Sprintf("%d, %d", st.DataSize, st.CompressedSize))
	row("commit log upper bound", fmt.Sprintf("segment %d offset %d", st.CommitLogUpperBound.Segment, st.CommitLogUpperBound.Offset))
	b.WriteString("</table>")
}
