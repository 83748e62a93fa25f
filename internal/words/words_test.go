package words

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 GPUs"}, {1, "1 GPU"}, {2, "2 GPUs"}, {10000, "10000 GPUs"}} {
		if got := Count(c.n, "GPU"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestGbps(t *testing.T) {
	for v, want := range map[float64]string{0: "unknown", -1: "unknown", 0.46: "0.5 Gb/s", 0.5: "0.5 Gb/s", 1: "1 Gb/s",
		9.4: "9.4 Gb/s", 9.96: "10 Gb/s", 16.4: "16 Gb/s", 460.913: "461 Gb/s"} {
		if got := Gbps(v); got != want {
			t.Errorf("Gbps(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestGbpsSpan(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{{83.2, 172.6, "83-173"}, {83, 83.4, "83"}, {9.44, 9.44, "9.4"}, {192, 150, "192"}} {
		if got := GbpsSpan(c.lo, c.hi); got != c.want {
			t.Errorf("GbpsSpan(%v, %v) = %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}

func TestCountedNames(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"a", "bridge", "a", ""}, "2 x a, 1 x bridge, 1 x unnamed"},
		{[]string{"a", "b", "c", "d", "e", "f", "g", "a"}, "2 x a, 1 x b, 1 x c, 1 x d, 1 x e, 2 more names"},
	} {
		if got := CountedNames(c.names); got != c.want {
			t.Errorf("CountedNames(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}

func TestExamples(t *testing.T) {
	for _, tt := range []struct {
		items []string
		want  string
	}{
		{nil, ""},
		{[]string{"a", "b"}, "a, b"},
		{[]string{"a", "b", "c"}, "a, b, c"},
		{[]string{"a", "b", "c", "d"}, "a, b, c and 1 more"},
	} {
		if got := Examples(tt.items, 3); got != tt.want {
			t.Errorf("Examples(%q, 3) = %q; want %q", tt.items, got, tt.want)
		}
	}
}
