package plot

import (
	"bufio"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"strings"
)

// svgCanvas collects SVG elements.
type svgCanvas struct {
	w, h int
	b    strings.Builder
}

func newSVG(w, h int) *svgCanvas { return &svgCanvas{w: w, h: h} }

func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// escape escapes XML text and attribute values.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&apos;")
		default:
			if r < 0x20 && r != '\t' && r != '\n' {
				continue // not allowed in XML 1.0
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (s *svgCanvas) fillRect(x, y, w, h int, c color.RGBA) {
	fmt.Fprintf(&s.b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", x, y, w, h, hex(c))
}

func (s *svgCanvas) line(x1, y1, x2, y2 int, c color.RGBA) {
	fmt.Fprintf(&s.b, "<line x1=\"%d.5\" y1=\"%d.5\" x2=\"%d.5\" y2=\"%d.5\" stroke=\"%s\" stroke-width=\"1\"/>\n",
		x1, y1, x2, y2, hex(c))
}

// fontSize is the SVG font size whose monospace advance matches the
// raster font's at scale.
func fontSize(scale int) int { return 10 * scale }

func (s *svgCanvas) text(x, y int, t string, scale int, a anchor, c color.RGBA) {
	if t == "" {
		return
	}
	anchors := [...]string{"start", "middle", "end"}
	fmt.Fprintf(&s.b, "<text x=\"%d\" y=\"%d\" font-family=\"monospace\" font-size=\"%d\" text-anchor=\"%s\" fill=\"%s\">%s</text>\n",
		x, y+(glyphH-1)*scale, fontSize(scale), anchors[a], hex(c), escape(t))
}

func (s *svgCanvas) vtext(x, y int, t string, scale int, c color.RGBA) {
	if t == "" {
		return
	}
	bx := x + glyphH*scale/2
	fmt.Fprintf(&s.b, "<text x=\"%d\" y=\"%d\" font-family=\"monospace\" font-size=\"%d\" text-anchor=\"middle\" fill=\"%s\" transform=\"rotate(-90 %d %d)\">%s</text>\n",
		bx, y, fontSize(scale), hex(c), bx, y, escape(t))
}

func (s *svgCanvas) writeTo(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		s.w, s.h, s.w, s.h)
	bw.WriteString(s.b.String())
	bw.WriteString("</svg>\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	return nil
}

// rasterCanvas paints an RGBA image.
type rasterCanvas struct {
	img  *image.RGBA
	font font
}

func newRaster(w, h int) *rasterCanvas {
	return &rasterCanvas{img: image.NewRGBA(image.Rect(0, 0, w, h)), font: newFont()}
}

func (r *rasterCanvas) fillRect(x, y, w, h int, c color.RGBA) {
	rect := image.Rect(x, y, x+w, y+h).Intersect(r.img.Rect)
	for py := rect.Min.Y; py < rect.Max.Y; py++ {
		for px := rect.Min.X; px < rect.Max.X; px++ {
			r.img.SetRGBA(px, py, c)
		}
	}
}

// line draws a one-pixel line (Bresenham).
func (r *rasterCanvas) line(x1, y1, x2, y2 int, c color.RGBA) {
	dx, dy := abs(x2-x1), -abs(y2-y1)
	sx, sy := sign(x2-x1), sign(y2-y1)
	e := dx + dy
	for {
		r.img.SetRGBA(x1, y1, c)
		if x1 == x2 && y1 == y2 {
			return
		}
		if 2*e >= dy {
			e += dy
			x1 += sx
		}
		if 2*e <= dx {
			e += dx
			y1 += sy
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func sign(v int) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}

func (r *rasterCanvas) text(x, y int, t string, scale int, a anchor, c color.RGBA) {
	switch a {
	case anchorMiddle:
		x -= textWidth(t, scale) / 2
	case anchorEnd:
		x -= textWidth(t, scale)
	}
	for i, ch := range []rune(t) {
		g := r.font.get(ch)
		ox := x + i*advance*scale
		for row := range glyphH {
			for col := range glyphW {
				if g.on(col, row) {
					r.fillRect(ox+col*scale, y+row*scale, scale, scale, c)
				}
			}
		}
	}
}

func (r *rasterCanvas) vtext(x, y int, t string, scale int, c color.RGBA) {
	x0 := x - glyphH*scale/2
	y0 := y + textWidth(t, scale)/2
	for i, ch := range []rune(t) {
		g := r.font.get(ch)
		for row := range glyphH {
			for col := range glyphW {
				if g.on(col, row) {
					r.fillRect(x0+row*scale, y0-(i*advance+col+1)*scale, scale, scale, c)
				}
			}
		}
	}
}

func (r *rasterCanvas) encode(w io.Writer) error {
	if err := png.Encode(w, r.img); err != nil {
		return fmt.Errorf("write png: %w", err)
	}
	return nil
}
