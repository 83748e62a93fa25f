package topology

// StoragePairs classifies every accelerator-NVMe pair (GPUDirect Storage:
// the GPU reads the drive peer to peer), accelerators in address order,
// then drives. The labels are nvidia-smi's words as `nvidia-smi topo -m`
// and `gdscheck -p` use them: a drive under the GPU's switch is PIX or PXB,
// one reached through the root complex PHB or NODE, another socket SYS.
func (g *Graph) StoragePairs() []Pair {
	gpus, drives := g.OfKind(KindAccelerator), g.OfKind(KindNVMe)
	out := make([]Pair, 0, len(gpus)*len(drives))
	hint := g.NVLinkHint() // once, not per pair: it looks at every device
	for _, a := range gpus {
		for _, d := range drives {
			out = append(out, g.classify(a, d, hint))
		}
	}
	return out
}
