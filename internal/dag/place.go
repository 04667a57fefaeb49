package dag

// placeX gives every layered node an x centre. Each pass pulls a layer
// towards the mean x of its neighbours in the layer just placed while
// keeping the order and spacing; virtual nodes pull harder so long edges
// run straight. Alternating down and up passes spreads the balance.
func placeX(ln []lnode, layers [][]int) {
	for _, l := range layers {
		x := 0.0
		for i, v := range l {
			if i > 0 {
				x += sep(ln, l[i-1], v)
			}
			ln[v].x = x
		}
		for _, v := range l {
			ln[v].x -= x / 2 // centre every layer on 0
		}
	}
	var buf pavBuf
	for round := 0; round < 4; round++ {
		for i := 1; i < len(layers); i++ {
			buf.align(ln, layers[i], true, false)
		}
		for i := len(layers) - 2; i >= 0; i-- {
			buf.align(ln, layers[i], false, true)
		}
	}
	for _, l := range layers {
		buf.align(ln, l, true, true)
	}
}

// sep is the minimum distance between the centres of neighbours a and b.
func sep(ln []lnode, a, b int) float64 {
	gap := NodeGap
	if ln[a].real < 0 || ln[b].real < 0 {
		gap = virtualGap
	}
	return (ln[a].w+ln[b].w)/2 + gap
}

// pavBuf holds scratch space for align across layers.
type pavBuf struct {
	off, target, weight []float64
	blocks              []pavBlock
}

type pavBlock struct {
	start, end  int // node positions [start, end)
	sumW, sumWT float64
}

// align moves the nodes of layer l to the positions closest (in weighted
// least squares) to their targets subject to order and spacing: with
// y_i = x_i - offset_i the constraints become y non-decreasing, which is
// isotonic regression, solved exactly by pooling adjacent violators.
func (b *pavBuf) align(ln []lnode, l []int, up, down bool) {
	b.off = b.off[:0]
	b.target = b.target[:0]
	b.weight = b.weight[:0]
	b.blocks = b.blocks[:0]
	off := 0.0
	for i, v := range l {
		if i > 0 {
			off += sep(ln, l[i-1], v)
		}
		t, w := ln[v].x, 0.05 // no neighbours: stay put, weakly
		sum, count := 0.0, 0
		if up {
			for _, u := range ln[v].up {
				sum += ln[u].x
			}
			count += len(ln[v].up)
		}
		if down {
			for _, u := range ln[v].down {
				sum += ln[u].x
			}
			count += len(ln[v].down)
		}
		if count > 0 {
			t, w = sum/float64(count), float64(count)
			if ln[v].real < 0 {
				w *= 4
			}
		}
		b.off = append(b.off, off)
		b.target = append(b.target, t-off)
		b.weight = append(b.weight, w)
	}
	for i, x := range b.solve() {
		ln[l[i]].x = x
	}
}

// solve runs pool-adjacent-violators on the loaded targets (already shifted
// by the offsets) and returns the positions, offsets added back.
func (b *pavBuf) solve() []float64 {
	b.blocks = b.blocks[:0]
	for i := range b.target {
		b.blocks = append(b.blocks, pavBlock{start: i, end: i + 1, sumW: b.weight[i], sumWT: b.weight[i] * b.target[i]})
		for len(b.blocks) > 1 {
			last, prev := b.blocks[len(b.blocks)-1], b.blocks[len(b.blocks)-2]
			if prev.sumWT/prev.sumW <= last.sumWT/last.sumW {
				break
			}
			b.blocks = b.blocks[:len(b.blocks)-2]
			b.blocks = append(b.blocks, pavBlock{start: prev.start, end: last.end, sumW: prev.sumW + last.sumW, sumWT: prev.sumWT + last.sumWT})
		}
	}
	out := b.target // reuse: each target is read before it is overwritten
	for _, blk := range b.blocks {
		y := blk.sumWT / blk.sumW
		for i := blk.start; i < blk.end; i++ {
			out[i] = y + b.off[i]
		}
	}
	return out
}

// placeY stacks the layers; each is as tall as its tallest node.
func placeY(ln []lnode, layers [][]int, p part, geo *Geometry) (top, height []float64) {
	top = make([]float64, len(layers))
	height = make([]float64, len(layers))
	for k := range p.nodes {
		l := ln[k].layer
		height[l] = max(height[l], geo.Nodes[ln[k].real].H)
	}
	y := 0.0
	for l := range layers {
		height[l] = max(height[l], NodeHeight)
		top[l] = y
		y += height[l] + LayerGap
	}
	return top, height
}
