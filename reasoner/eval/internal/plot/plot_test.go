package plot

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotutil"
)

func sample() *BarChart {
	return &BarChart{
		Title: "Answer value vs correctness", XLabel: "answer value", YLabel: "EM-in (%)", Percent: true,
		Categories: []string{"0.0-0.2", "0.2-0.4", "0.4-0.6", "0.6-0.8", "0.8-1.0"},
		Series: []Series{
			{Name: "tot", Values: []float64{0.1, 0.25, math.NaN(), 0.6, 0.93}, Notes: []string{"n=40", "n=3", "", "n=7", "n=55"}},
			{Name: "chain", Values: []float64{0.05, 0.3, 0.5, 0.7, 0.8}},
		},
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

// TestSVG: the document is well-formed XML of the requested size and
// carries the title (escaped), the legend, the categories and the bar
// labels with their notes, but no label for a NaN bar.
func TestSVG(t *testing.T) {
	c := sample()
	c.Title = `Value <vs> "correct" & more`
	var buf bytes.Buffer
	if err := c.WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name
		Width   string `xml:"width,attr"`
		Height  string `xml:"height,attr"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil || doc.XMLName.Local != "svg" {
		t.Fatalf("not an SVG document: %v\n%.300s", err, buf.String())
	}
	if doc.Width != "600pt" || doc.Height != "337.5pt" {
		t.Errorf("size %s x %s, want 600pt x 337.5pt (800 x 450 px at 96 dpi)", doc.Width, doc.Height)
	}
	texts := svgTexts(t, buf.Bytes())
	for _, want := range []string{`Value <vs> "correct" & more`, "tot", "chain", "0.0-0.2", "0.8-1.0", "answer value",
		"EM-in (%)", "93 (n=55)", "10 (n=40)", "50", "100"} {
		if !strings.Contains(texts, want+"\n") {
			t.Errorf("SVG text lacks %q", want)
		}
	}
	if strings.Contains(texts, "(n=)") || strings.Contains(texts, "NaN") {
		t.Errorf("a NaN bar was labelled:\n%s", texts)
	}
}

// svgTexts returns the character data of the document's text elements,
// one per line.
func svgTexts(t *testing.T, doc []byte) string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var b strings.Builder
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return b.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			inText = e.Name.Local == "text"
		case xml.EndElement:
			if e.Name.Local == "text" {
				b.WriteString("\n")
			}
			inText = false
		case xml.CharData:
			if inText {
				b.Write(e)
			}
		}
	}
}

// TestPNG: the image has the requested size and both series' colours,
// the first series' bars taller where its values are larger.
func TestPNG(t *testing.T) {
	c := sample()
	c.Width, c.Height = 640, 360
	var buf bytes.Buffer
	if err := c.WritePNG(&buf); err != nil {
		t.Fatal(err)
	}
	data := bytes.Clone(buf.Bytes())
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 640 || b.Dy() != 360 {
		t.Fatalf("size %v", b)
	}
	for i, s := range c.Series {
		if n := countColour(img, plotutil.Color(i)); n < 500 {
			t.Errorf("series %s: %d pixels of its colour", s.Name, n)
		}
	}
	if out := os.Getenv("PLOT_OUT"); out != "" {
		if err := os.WriteFile(filepath.Clean(out), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func countColour(img image.Image, c color.Color) int {
	r0, g0, b0, _ := c.RGBA()
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			if r>>8 == r0>>8 && g>>8 == g0>>8 && bb>>8 == b0>>8 {
				n++
			}
		}
	}
	return n
}

func TestAutoMax(t *testing.T) {
	for _, tc := range []struct {
		vals []float64
		want float64
	}{
		{[]float64{0.2, math.NaN()}, 1},
		{[]float64{3.2}, 4},
		{[]float64{47}, 50},
		{[]float64{120}, 200},
	} {
		if got := autoMax([]Series{{Values: tc.vals}}); got != tc.want {
			t.Errorf("autoMax(%v) = %g, want %g", tc.vals, got, tc.want)
		}
	}
}
