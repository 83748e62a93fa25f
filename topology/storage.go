package topology

import (
	"iter"
	"slices"
)

// StoragePairs classifies every accelerator-NVMe pair (GPUDirect Storage:
// the GPU reads the drive peer to peer), accelerators in address order,
// then drives. The labels are nvidia-smi's words as `nvidia-smi topo -m`
// and `gdscheck -p` use them: a drive under the GPU's switch is PIX or PXB,
// one reached through the root complex PHB or NODE, another socket SYS.
// Each pair is what Classify gives but for its Hops, which are left nil: a
// large machine has tens of thousands of these pairs and nothing shows
// their hops (Classify gives a pair's); BottleneckGbps is the same.
func (g *Graph) StoragePairs() []Pair {
	return slices.Collect(g.EachStoragePair())
}

// EachStoragePair yields the pairs of StoragePairs, in its order, one at a
// time: a caller that keeps a few fields of each does not hold every pair
// whole (160 bytes each; a generated tree of 10,000 functions has 35,000).
func (g *Graph) EachStoragePair() iter.Seq[Pair] {
	return func(yield func(Pair) bool) {
		gpus, drives := g.OfKind(KindAccelerator), g.OfKind(KindNVMe)
		hint := g.NVLinkHint() // once, not per pair: it looks at every device
		for _, a := range gpus {
			for _, d := range drives {
				if !yield(g.classify(a, d, hint, false)) {
					return
				}
			}
		}
	}
}
