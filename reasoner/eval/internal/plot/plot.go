// Package plot draws the grouped bar charts of Grove's evaluation reports
// as SVG and PNG with gonum.org/v1/plot.
//
// A BarChart is data only (categories, series, notes, axis settings); Plot
// turns it into a gonum plot: one plotter.BarChart per series, offset so
// that each category's bars stand side by side, nominal x ticks with the
// category names, a legend, the value of each bar above it (with its note,
// "n=12", after the value) and, with Percent, y ticks in percent. SVG and
// PNG are gonum's own writers at 96 pixels per inch, so both show the
// same geometry and fonts (gonum's embedded Liberation fonts).
package plot

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// Series is one set of bars, one per category.
type Series struct {
	Name string
	// Values has one value per category; NaN draws no bar.
	Values []float64
	// Notes, when set, has one annotation per category drawn after the
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

// maxBarPx bounds a bar's width, so that charts with few categories do
// not draw slabs.
const maxBarPx = 90

// dpi is the resolution of the PNG (and the pixel size of the SVG).
const dpi = 96

// size is the chart's size in pixels.
func (c *BarChart) size() (w, h int) {
	w, h = c.Width, c.Height
	if w == 0 {
		w = 800
	}
	if h == 0 {
		h = 450
	}
	return w, h
}

// autoMax is 1 when every value is at most 1, else a round number above
// the largest value.
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
	step := math.Pow(10, math.Floor(math.Log10(top)))
	return math.Ceil(top/step) * step
}

// format prints a value as the chart shows it.
func (c *BarChart) format(v float64) string {
	if c.Percent {
		return strconv.FormatFloat(100*v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// Plot builds the gonum plot of the chart.
func (c *BarChart) Plot() (*gplot.Plot, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	p := gplot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = c.Title, c.XLabel, c.YLabel
	top := c.YMax
	if top == 0 {
		top = autoMax(c.Series)
	}
	// Headroom above the axis top keeps the legend and the labels of the
	// tallest bars clear of each other; the ticks stop at top.
	p.Y.Min, p.Y.Max = 0, top*1.18
	p.Y.Tick.Marker = tickMarker{c: c, top: top}
	p.X.Min, p.X.Max = -0.5, float64(len(c.Categories))-0.5
	p.Legend.Top = true
	p.Legend.Left = true
	w, _ := c.size()
	group := vg.Length(w) * vg.Inch / dpi * 0.7 / vg.Length(len(c.Categories))
	barW := min(group/vg.Length(len(c.Series)), maxBarPx*vg.Inch/dpi)
	for i, s := range c.Series {
		vals := make(plotter.Values, len(s.Values))
		for j, v := range s.Values {
			if !math.IsNaN(v) {
				vals[j] = v
			}
		}
		bars, err := plotter.NewBarChart(vals, barW)
		if err != nil {
			return nil, fmt.Errorf("bar chart %q, series %q: %w", c.Title, s.Name, err)
		}
		bars.Offset = (vg.Length(i) - vg.Length(len(c.Series)-1)/2) * barW
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		p.Add(bars)
		p.Legend.Add(s.Name, bars)
		labels, err := c.barLabels(s, bars.Offset)
		if err != nil {
			return nil, err
		}
		if labels != nil {
			p.Add(labels)
		}
	}
	p.NominalX(c.Categories...)
	return p, nil
}

// barLabels writes each drawn bar's value (and note) above it.
func (c *BarChart) barLabels(s Series, offset vg.Length) (*plotter.Labels, error) {
	var xys plotter.XYs
	var texts []string
	for j, v := range s.Values {
		if math.IsNaN(v) {
			continue
		}
		t := c.format(v)
		if s.Notes != nil && s.Notes[j] != "" {
			t += " (" + s.Notes[j] + ")"
		}
		xys = append(xys, plotter.XY{X: float64(j), Y: v})
		texts = append(texts, t)
	}
	if len(xys) == 0 {
		return nil, nil
	}
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: texts})
	if err != nil {
		return nil, fmt.Errorf("bar chart %q, series %q labels: %w", c.Title, s.Name, err)
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].XAlign = text.XCenter
		labels.TextStyle[i].Font.Size = vg.Points(7)
	}
	labels.Offset = vg.Point{X: offset, Y: vg.Points(2)}
	return labels, nil
}

// tickMarker puts six ticks at fifths of the y range, labelled in percent
// with Percent, else with up to four significant digits.
type tickMarker struct {
	c   *BarChart
	top float64
}

func (m tickMarker) Ticks(lo, _ float64) []gplot.Tick {
	step := (m.top - lo) / 5
	var ticks []gplot.Tick
	for i := 0; i <= 5; i++ {
		v := lo + float64(i)*step
		label := m.c.format(v)
		if !m.c.Percent {
			label = strconv.FormatFloat(v, 'g', 4, 64)
		}
		ticks = append(ticks, gplot.Tick{Value: v, Label: label})
	}
	return ticks
}

// write renders the chart in format ("svg" or "png") to w.
func (c *BarChart) write(w io.Writer, format string) error {
	p, err := c.Plot()
	if err != nil {
		return err
	}
	pw, ph := c.size()
	wt, err := p.WriterTo(vg.Length(pw)*vg.Inch/dpi, vg.Length(ph)*vg.Inch/dpi, format)
	if err != nil {
		return fmt.Errorf("bar chart %q: %w", c.Title, err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("bar chart %q: write %s: %w", c.Title, format, err)
	}
	return nil
}

// WriteSVG writes the chart as an SVG document.
func (c *BarChart) WriteSVG(w io.Writer) error { return c.write(w, "svg") }

// WritePNG writes the chart as a PNG image of Width x Height pixels.
func (c *BarChart) WritePNG(w io.Writer) error { return c.write(w, "png") }
