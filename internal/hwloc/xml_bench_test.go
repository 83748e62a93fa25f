package hwloc

import (
	"os"
	"testing"
)

// BenchmarkParseXML reads real hwloc XML from the corpus: the DGX-2's
// (hwloc 2.x format with an NVLinkBandwidth matrix, 16 GPUs behind 34
// switch ports) and the largest file (four packages, 506 tags).
func BenchmarkParseXML(b *testing.B) {
	for _, name := range []string{"nvidiaDGX2.xml", "40intel64-2g2n4c+pcilocality.xml"} {
		b.Run(name, func(b *testing.B) {
			data, err := os.ReadFile(corpus(b, name))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseXML(name, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
