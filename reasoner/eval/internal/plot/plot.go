// Package plot draws the grouped bar charts of Grove's evaluation reports
// as SVG and PNG, with the standard library only.
//
// A chart is laid out once, in integer pixels, and drawn through a small
// canvas interface (filled rectangles, one-pixel lines, horizontal and
// vertical text) with two implementations: one writes SVG elements by
// hand, the other paints an image.RGBA that image/png encodes. Both
// backends therefore show the same geometry. The PNG's text uses a 5x7
// pixel font defined in this package (font.go), scaled by whole pixels;
// the SVG's text uses the viewer's monospace font at the matching size.
package plot

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"
)

// Series is one set of bars, one per category.
type Series struct {
	Name string
	// Values has one value per category; NaN draws no bar.
	Values []float64
	// Notes, when set, has one annotation per category drawn above the
	// bar's value ("n=12"); "" draws none.
	Notes []string
}

// BarChart is a grouped bar chart: for each category, one bar per series.
type BarChart struct {
	Title      string
	XLabel     string
	YLabel     string
	Categories []string
	Series     []Series
	// YMax is the top of the y axis; 0 picks 1 when every value is at
	// most 1, else a round number above the largest value.
	YMax float64
	// Percent shows values and ticks as percentages (0.63 as "63");
	// otherwise values have two decimals.
	Percent bool
	// Width and Height in pixels; 0 means 800 x 450.
	Width, Height int
}

// Validate reports a chart that cannot be drawn.
func (c *BarChart) Validate() error {
	var errs []error
	if len(c.Categories) == 0 {
		errs = append(errs, errors.New("no categories"))
	}
	if len(c.Series) == 0 {
		errs = append(errs, errors.New("no series"))
	}
	for _, s := range c.Series {
		if len(s.Values) != len(c.Categories) {
			errs = append(errs, fmt.Errorf("series %q has %d values for %d categories", s.Name, len(s.Values), len(c.Categories)))
		}
		if s.Notes != nil && len(s.Notes) != len(c.Categories) {
			errs = append(errs, fmt.Errorf("series %q has %d notes for %d categories", s.Name, len(s.Notes), len(c.Categories)))
		}
		for _, v := range s.Values {
			if math.IsInf(v, 0) || v < 0 {
				errs = append(errs, fmt.Errorf("series %q: value %g cannot be drawn", s.Name, v))
				break
			}
		}
	}
	if c.Width < 0 || c.Height < 0 || (c.Width > 0 && c.Width < 200) || (c.Height > 0 && c.Height < 150) {
		errs = append(errs, fmt.Errorf("size %dx%d is too small (at least 200x150)", c.Width, c.Height))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("bar chart %q: %w", c.Title, err)
	}
	return nil
}

// anchor aligns text horizontally on its x coordinate.
type anchor int

const (
	anchorStart anchor = iota
	anchorMiddle
	anchorEnd
)

// canvas is what a chart is drawn on. Coordinates are pixels from the top
// left; text y is the top of the glyphs.
type canvas interface {
	fillRect(x, y, w, h int, c color.RGBA)
	line(x1, y1, x2, y2 int, c color.RGBA)
	text(x, y int, s string, scale int, a anchor, c color.RGBA)
	// vtext draws s rotated a quarter turn anticlockwise, centred on x, y.
	vtext(x, y int, s string, scale int, c color.RGBA)
}

// Colours as 0xRRGGBB.
const (
	black = 0x222222
	grey  = 0x666666
	grid  = 0xdddddd
	white = 0xffffff
)

// rgb converts 0xRRGGBB to an opaque colour.
func rgb(c uint32) color.RGBA { return color.RGBA{uint8(c >> 16), uint8(c >> 8), uint8(c), 0xff} }

// palette returns the series colours (Tableau 10).
func palette(i int) color.RGBA {
	p := [...]uint32{0x4c78a8, 0xf58518, 0x54a24b, 0xe45756, 0x72b7b2, 0xb279a2, 0xeeca3b, 0x9d755d, 0xff9da6, 0xbab0ac}
	return rgb(p[i%len(p)])
}

// layout is the chart's geometry.
type layout struct {
	w, h                     int
	left, right, top, bottom int
	ymax                     float64
}

func (c *BarChart) layout() layout {
	l := layout{w: c.Width, h: c.Height}
	if l.w == 0 {
		l.w = 800
	}
	if l.h == 0 {
		l.h = 450
	}
	l.left, l.right, l.top, l.bottom = 78, l.w-20, 100, l.h-64
	l.ymax = c.YMax
	if l.ymax <= 0 {
		l.ymax = autoMax(c.Series)
	}
	return l
}

// autoMax is 1 for fractions, else a round number above the largest value.
func autoMax(series []Series) float64 {
	top := 0.0
	for _, s := range series {
		for _, v := range s.Values {
			if !math.IsNaN(v) {
				top = max(top, v)
			}
		}
	}
	if top <= 1 {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(top)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= top {
			return m * mag
		}
	}
	return 10 * mag
}

func (l layout) y(v float64) int {
	return l.bottom - int(math.Round(v/l.ymax*float64(l.bottom-l.top)))
}

// draw paints the whole chart on cv.
func (c *BarChart) draw(cv canvas) {
	l := c.layout()
	cv.fillRect(0, 0, l.w, l.h, rgb(white))
	cv.text(l.w/2, 10, c.Title, 2, anchorMiddle, rgb(black))
	c.drawLegend(cv, l)
	c.drawYAxis(cv, l)
	c.drawBars(cv, l)
	cv.line(l.left, l.bottom, l.right, l.bottom, rgb(black))
	cv.line(l.left, l.top, l.left, l.bottom, rgb(black))
	cv.text((l.left+l.right)/2, l.h-22, c.XLabel, 2, anchorMiddle, rgb(black))
}

// drawLegend writes one coloured square and name per series, centred in
// a row under the title.
func (c *BarChart) drawLegend(cv canvas, l layout) {
	total := 0
	for _, s := range c.Series {
		total += 18 + textWidth(s.Name, 2) + 20
	}
	x := max(l.left, (l.w-total)/2)
	for i, s := range c.Series {
		cv.fillRect(x, 40, 12, 12, palette(i))
		cv.text(x+18, 39, s.Name, 2, anchorStart, rgb(black))
		x += 18 + textWidth(s.Name, 2) + 20
	}
}

// drawYAxis draws five grid lines with their labels and the axis title.
func (c *BarChart) drawYAxis(cv canvas, l layout) {
	const ticks = 5
	for i := 0; i <= ticks; i++ {
		v := l.ymax * float64(i) / ticks
		y := l.y(v)
		if i > 0 {
			cv.line(l.left+1, y, l.right, y, rgb(grid))
		}
		cv.line(l.left-5, y, l.left, y, rgb(black))
		if c.Percent {
			v *= 100
		}
		cv.text(l.left-9, y-7, tickLabel(v), 2, anchorEnd, rgb(black))
	}
	cv.vtext(16, (l.top+l.bottom)/2, c.YLabel, 2, rgb(black))
}

// tickLabel prints a tick value without useless decimals.
func tickLabel(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" || s == "-0" {
		return "0"
	}
	return s
}

// drawBars draws the bars of every category with value labels and notes,
// and the category names under the axis.
func (c *BarChart) drawBars(cv canvas, l layout) {
	n := len(c.Categories)
	gw := float64(l.right-l.left) / float64(n)
	bw := gw * 0.8 / float64(len(c.Series))
	scale := c.labelScale(int(bw))
	for i, cat := range c.Categories {
		gx := float64(l.left) + float64(i)*gw
		cv.text(int(gx+gw/2), l.bottom+9, fit(cat, int(gw)-4, 2), 2, anchorMiddle, rgb(black))
		for s, ser := range c.Series {
			v := ser.Values[i]
			if math.IsNaN(v) {
				continue
			}
			x0 := int(math.Round(gx + gw*0.1 + float64(s)*bw))
			x1 := int(math.Round(gx + gw*0.1 + float64(s+1)*bw))
			y := l.y(min(v, l.ymax))
			cv.fillRect(x0+1, y, max(1, x1-x0-2), l.bottom-y, palette(s))
			if scale == 0 {
				continue
			}
			y -= 4
			for _, label := range c.labels(s, i) {
				y -= glyphH*scale + 2
				cv.text((x0+x1)/2, y, label, scale, anchorMiddle, rgb(grey))
			}
		}
	}
}

// labels are the texts above bar i of series s: its value, then its
// note.
func (c *BarChart) labels(s, i int) []string {
	v := c.Series[s].Values[i]
	out := []string{fmt.Sprintf("%.2f", v)}
	if c.Percent {
		out[0] = fmt.Sprintf("%.0f", 100*v)
	}
	if c.Series[s].Notes != nil && c.Series[s].Notes[i] != "" {
		out = append(out, c.Series[s].Notes[i])
	}
	return out
}

// labelScale is the largest text scale at which every bar label fits its
// bar's width with a margin, 0 when none does, so that all labels of a
// chart have one size and neighbours never touch.
func (c *BarChart) labelScale(barWidth int) int {
	for _, scale := range []int{2, 1} {
		fits := true
		for s, ser := range c.Series {
			for i, v := range ser.Values {
				if math.IsNaN(v) {
					continue
				}
				for _, l := range c.labels(s, i) {
					fits = fits && textWidth(l, scale) <= barWidth-4
				}
			}
		}
		if fits {
			return scale
		}
	}
	return 0
}

// fit shortens s with ".." until it is at most width pixels at scale.
func fit(s string, width, scale int) string {
	r := []rune(s)
	if textWidth(s, scale) <= width {
		return s
	}
	for len(r) > 1 {
		r = r[:len(r)-1]
		if t := string(r) + ".."; textWidth(t, scale) <= width {
			return t
		}
	}
	return ""
}

// WriteSVG writes the chart as an SVG document.
func (c *BarChart) WriteSVG(w io.Writer) error {
	if err := c.Validate(); err != nil {
		return err
	}
	l := c.layout()
	cv := newSVG(l.w, l.h)
	c.draw(cv)
	return cv.writeTo(w)
}

// WritePNG writes the chart as a PNG image.
func (c *BarChart) WritePNG(w io.Writer) error {
	if err := c.Validate(); err != nil {
		return err
	}
	l := c.layout()
	cv := newRaster(l.w, l.h)
	c.draw(cv)
	return cv.encode(w)
}
