package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"strings"
	"testing"
)

func sample() *BarChart {
	return &BarChart{
		Title: "Answer value vs correctness", XLabel: "answer value", YLabel: "EM-in",
		Categories: []string{"0.0-0.2", "0.2-0.4", "0.4-0.6", "0.6-0.8", "0.8-1.0"},
		Series: []Series{
			{Name: "tot", Values: []float64{0.1, 0.25, math.NaN(), 0.6, 0.93}, Notes: []string{"n=40", "n=3", "", "n=7", "n=55"}},
			{Name: "chain", Values: []float64{0.05, 0.3, 0.5, 0.7, 0.8}},
		},
	}
}

// TestWritePNGForViewing writes the sample chart to $PLOT_OUT, to look at.
func TestWritePNGForViewing(t *testing.T) {
	out := os.Getenv("PLOT_OUT")
	if out == "" {
		t.Skip("set PLOT_OUT to write a sample chart")
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := sample().WritePNG(f); err != nil {
		t.Fatal(err)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		mod  func(*BarChart)
		want string
	}{
		{func(c *BarChart) {}, ""},
		{func(c *BarChart) { c.Categories = nil }, "no categories"},
		{func(c *BarChart) { c.Series = nil }, "no series"},
		{func(c *BarChart) { c.Series[1].Values = c.Series[1].Values[:2] }, `series "chain" has 2 values for 5 categories`},
		{func(c *BarChart) { c.Series[0].Notes = []string{"x"} }, `series "tot" has 1 notes`},
		{func(c *BarChart) { c.Series[0].Values[0] = -1 }, "value -1 cannot be drawn"},
		{func(c *BarChart) { c.Series[0].Values[0] = math.Inf(1) }, "cannot be drawn"},
		{func(c *BarChart) { c.Width = 50 }, "too small"},
	} {
		c := sample()
		tc.mod(c)
		err := c.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
		if tc.want != "" {
			if err := c.WritePNG(io.Discard); err == nil {
				t.Errorf("WritePNG accepted an invalid chart (%s)", tc.want)
			}
			if err := c.WriteSVG(io.Discard); err == nil {
				t.Errorf("WriteSVG accepted an invalid chart (%s)", tc.want)
			}
		}
	}
}

// TestSVG: the document is well-formed XML with one rect per drawn bar
// and legend entry in each series' colour, and the texts escaped.
func TestSVG(t *testing.T) {
	c := sample()
	c.Title = `Value <vs> "correct" & more`
	var buf bytes.Buffer
	if err := c.WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	rects := map[string]int{}
	var texts []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("invalid XML: %v\n%s", err, buf.String())
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if el.Name.Local == "rect" {
				for _, a := range el.Attr {
					if a.Name.Local == "fill" {
						rects[a.Value]++
					}
				}
			}
		case xml.CharData:
			if s := strings.TrimSpace(string(el)); s != "" {
				texts = append(texts, s)
			}
		}
	}
	if rects["#4c78a8"] != 5 || rects["#f58518"] != 6 {
		t.Errorf("rects by colour = %v (want 4+1 blue, 5+1 orange)", rects)
	}
	for _, want := range []string{c.Title, "EM-in", "answer value", "0.93", "n=55", "0.8-1.0", "tot", "chain"} {
		found := false
		for _, s := range texts {
			found = found || s == want
		}
		if !found {
			t.Errorf("SVG lacks text %q", want)
		}
	}
}

// TestPNG decodes the image and checks the bars: each drawn bar's column
// is in the series colour from the value's height down to the axis.
func TestPNG(t *testing.T) {
	c := sample()
	var buf bytes.Buffer
	if err := c.WritePNG(&buf); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 800 || b.Dy() != 450 {
		t.Fatalf("size %v", b)
	}
	l := c.layout()
	gw := float64(l.right-l.left) / 5
	bw := gw * 0.8 / 2
	for s, ser := range c.Series {
		for i, v := range ser.Values {
			x := int(float64(l.left) + float64(i)*gw + gw*0.1 + (float64(s)+0.5)*bw)
			top := l.y(v)
			want := palette(s)
			if math.IsNaN(v) {
				if same(img.At(x, l.bottom-2), want) {
					t.Errorf("series %d category %d: bar drawn for NaN", s, i)
				}
				continue
			}
			if !same(img.At(x, top), want) || !same(img.At(x, l.bottom-1), want) || same(img.At(x, top-1), want) {
				t.Errorf("series %d category %d: bar column at x=%d is not %v from y=%d to the axis", s, i, x, want, top)
			}
		}
	}
}

func same(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	return uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(b>>8) == want.B
}

func TestFont(t *testing.T) {
	f := newFont()
	seen := map[glyph]rune{}
	for r := rune(32); r < 127; r++ {
		g, ok := f[r]
		if !ok {
			t.Errorf("no glyph for %q", r)
			continue
		}
		if other, dup := seen[g]; dup && r != ' ' {
			t.Errorf("%q and %q have the same glyph", r, other)
		}
		seen[g] = r
	}
	if f.get('é') != f['?'] {
		t.Error("unknown runes are not drawn as '?'")
	}
}

// TestRasterText: horizontal and rotated text put exactly the glyph's
// pixels where expected.
func TestRasterText(t *testing.T) {
	red := rgb(0xff0000)
	g := newFont()['F']
	for _, vertical := range []bool{false, true} {
		cv := newRaster(20, 20)
		if vertical {
			cv.vtext(10, 10, "F", 1, red)
		} else {
			cv.text(3, 4, "F", 1, anchorStart, red)
		}
		for y := range 20 {
			for x := range 20 {
				col, row, in := x-3, y-4, true
				if vertical {
					// rotated anticlockwise: glyph row -> x, glyph column -> up
					col, row = 10+textWidth("F", 1)/2-1-y, x-(10-glyphH/2)
				}
				in = col >= 0 && col < glyphW && row >= 0 && row < glyphH && g.on(col, row)
				if got := cv.img.RGBAAt(x, y) == red; got != in {
					t.Fatalf("vertical=%v pixel (%d,%d) inked %v, want %v", vertical, x, y, got, in)
				}
			}
		}
	}
}

func TestLine(t *testing.T) {
	cv := newRaster(10, 10)
	c := rgb(0x0000ff)
	cv.line(1, 1, 8, 8, c)
	cv.line(8, 1, 8, 1, c)
	for i := 1; i <= 8; i++ {
		if cv.img.RGBAAt(i, i) != c {
			t.Errorf("diagonal pixel %d missing", i)
		}
	}
	if cv.img.RGBAAt(8, 1) != c || cv.img.RGBAAt(2, 1) == c {
		t.Error("line drew the wrong pixels")
	}
	cv.fillRect(-5, -5, 100, 3, c) // clipped, no panic
}

func TestHelpers(t *testing.T) {
	if got := escape("a<b>&\"c'\x01"); got != "a&lt;b&gt;&amp;&quot;c&apos;" {
		t.Errorf("escape = %q", got)
	}
	for in, want := range map[string]string{"short": "short", "a very long category name": "a very..", "xy": "xy"} {
		if got := fit(in, textWidth("a very..", 2), 2); got != want {
			t.Errorf("fit(%q) = %q, want %q", in, got, want)
		}
	}
	if fit("abc", 1, 2) != "" {
		t.Error("fit into 1 pixel is not empty")
	}
	for _, tc := range []struct {
		vals []float64
		want float64
	}{{[]float64{0.3, 1}, 1}, {[]float64{3}, 5}, {[]float64{180}, 200}, {[]float64{1234}, 2000}, {[]float64{math.NaN()}, 1}} {
		if got := autoMax([]Series{{Values: tc.vals}}); got != tc.want {
			t.Errorf("autoMax(%v) = %v, want %v", tc.vals, got, tc.want)
		}
	}
	if tickLabel(0.6000001) != "0.6" || tickLabel(0) != "0" || tickLabel(250) != "250" {
		t.Error("tick labels")
	}
	if textWidth("", 2) != 0 || textWidth("ab", 2) != 22 {
		t.Error("textWidth")
	}
}

func TestLabelScale(t *testing.T) {
	c := sample()
	for _, tc := range []struct {
		width, want int
	}{{100, 2}, {40, 1}, {20, 0}} {
		if got := c.labelScale(tc.width); got != tc.want {
			t.Errorf("bar width %d: label scale %d, want %d", tc.width, got, tc.want)
		}
	}
	if got := c.labels(0, 4); len(got) != 2 || got[0] != "0.93" || got[1] != "n=55" {
		t.Errorf("labels = %v", got)
	}
	if got := c.labels(0, 2); len(got) != 1 {
		t.Errorf("empty note drawn: %v", got)
	}
	c.Percent = true
	if got := c.labels(1, 4); got[0] != "80" {
		t.Errorf("percent label = %v", got)
	}
}
