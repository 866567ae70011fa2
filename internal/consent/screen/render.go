package screen

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"strings"
	"sync"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/mcec/mcec/internal/consent"
)

// Title is the dialog window's title.
const Title = "mcec: an agent asks for access"

// Layout sizes, in pixels.
const (
	width      = 620
	margin     = 20
	lineGap    = 6
	buttonH    = 36
	buttonGap  = 14
	textSize   = 15
	headSize   = 19
	buttonPadX = 16
)

var (
	colBackground = color.RGBA{0xf6, 0xf6, 0xf4, 0xff}
	colText       = color.RGBA{0x20, 0x20, 0x20, 0xff}
	colDim        = color.RGBA{0x90, 0x90, 0x90, 0xff}
	colBorder     = color.RGBA{0x50, 0x50, 0x50, 0xff}
	colDisabled   = color.RGBA{0xe2, 0xe2, 0xe2, 0xff}
	colAllow      = color.RGBA{0xd4, 0xec, 0xd4, 0xff}
	colAllowAll   = color.RGBA{0xf0, 0xe8, 0xc8, 0xff}
	colDeny       = color.RGBA{0xf4, 0xd0, 0xd0, 0xff}
)

// button is one answer's clickable area.
type button struct {
	answer consent.Answer
	label  string
	key    rune // the key that answers the same
	fill   color.RGBA
	rect   image.Rectangle
}

// layout is the dialog's content: its lines, already wrapped, and its buttons.
type layout struct {
	lines   []line
	buttons []button
	size    image.Point
}

type line struct {
	text string
	head bool
	y    int // baseline
}

var fonts struct {
	once       sync.Once
	text, head font.Face
	err        error
}

// faces parses the embedded Go fonts once: the dialog needs no server-side fonts.
func faces() (text, head font.Face, err error) {
	fonts.once.Do(func() {
		reg, err := opentype.Parse(goregular.TTF)
		if err != nil {
			fonts.err = err
			return
		}
		bold, err := opentype.Parse(gobold.TTF)
		if err != nil {
			fonts.err = err
			return
		}
		if fonts.text, err = opentype.NewFace(reg, &opentype.FaceOptions{Size: textSize, DPI: 72, Hinting: font.HintingFull}); err != nil {
			fonts.err = err
			return
		}
		fonts.head, fonts.err = opentype.NewFace(bold, &opentype.FaceOptions{Size: headSize, DPI: 72, Hinting: font.HintingFull})
	})
	return fonts.text, fonts.head, fonts.err
}

// lay out the question. Every text field was neutralized by the broker (no control, format or
// bidi characters); the names and session are neutralized again so nothing else reaches here.
func lay(q consent.Question) (*layout, error) {
	text, head, err := faces()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(q.Commands))
	for i, n := range q.Commands {
		names[i] = consent.Neutralize(n)
	}
	inner := width - 2*margin
	type para struct {
		s    string
		head bool
	}
	var paras []para
	add := func(s string, head bool) { paras = append(paras, para{s, head}) }
	add("An agent asks for access", true)
	add("Commands: "+strings.Join(names, ", "), false)
	add("Reason (the agent's words): "+consent.Neutralize(q.Reason), false)
	if q.Session != "" {
		add("Session: "+consent.Neutralize(q.Session), false)
	}
	add(fmt.Sprintf("Answer by %s (%s from the request). Until then the agent can only observe.",
		q.Deadline.Local().Format("15:04:05"), q.Deadline.Sub(q.Asked).Round(time.Second)), false)
	add("Once: the session's next call that needs it. This session: until the session ends. Allow: every session, "+
		"until mcec exits. All later: every later request passes without asking. Deny refuses this and every later request. "+
		"Only your own mouse or keyboard answers here (keys o, s, y, a, n).", false)

	l := &layout{}
	y := margin
	for i, p := range paras {
		f := text
		if p.head {
			f = head
		}
		m := f.Metrics()
		asc, h := m.Ascent.Ceil(), m.Height.Ceil()
		if i > 0 {
			y += lineGap
		}
		for _, s := range wrap(f, p.s, inner) {
			l.lines = append(l.lines, line{text: s, head: p.head, y: y + asc})
			y += h
		}
	}
	y += 2 * lineGap
	l.buttons = buttons(text, y)
	l.size = image.Pt(width, y+buttonH+margin)
	return l, nil
}

// buttons lays out the answer buttons in a row at y.
func buttons(f font.Face, y int) []button {
	var out []button
	x := margin
	for _, b := range []button{
		{answer: consent.GrantOnce, label: "Once (o)", key: 'o', fill: colAllow},
		{answer: consent.GrantSession, label: "This session (s)", key: 's', fill: colAllow},
		{answer: consent.Grant, label: "Allow (y)", key: 'y', fill: colAllow},
		{answer: consent.GrantAnyLater, label: "All later (a)", key: 'a', fill: colAllowAll},
		{answer: consent.Deny, label: "Deny (n)", key: 'n', fill: colDeny},
	} {
		w := font.MeasureString(f, b.label).Ceil() + 2*buttonPadX
		b.rect = image.Rect(x, y, x+w, y+buttonH)
		x += w + buttonGap
		out = append(out, b)
	}
	return out
}

// ButtonRects are the answer buttons of a dialog window height pixels tall, in window
// coordinates: the bottom row, whatever the question's text.
func ButtonRects(height int) (map[consent.Answer]image.Rectangle, error) {
	text, _, err := faces()
	if err != nil {
		return nil, err
	}
	out := map[consent.Answer]image.Rectangle{}
	for _, b := range buttons(text, height-margin-buttonH) {
		out[b.answer] = b.rect
	}
	return out, nil
}

// wrap breaks s into lines no wider than w, at spaces, and inside words longer than a line.
func wrap(f font.Face, s string, w int) []string {
	limit := fixed.I(w)
	var out []string
	cur := ""
	for _, word := range strings.Fields(s) {
		try := word
		if cur != "" {
			try = cur + " " + word
		}
		if font.MeasureString(f, try) <= limit {
			cur = try
			continue
		}
		if cur != "" {
			out = append(out, cur)
			cur = ""
		}
		for font.MeasureString(f, word) > limit {
			n := fit(f, word, limit)
			out = append(out, word[:n])
			word = word[n:]
		}
		cur = word
	}
	if cur != "" || len(out) == 0 {
		out = append(out, cur)
	}
	return out
}

// fit is how many bytes of s (whole runes, at least one) fit in limit.
func fit(f font.Face, s string, limit fixed.Int26_6) int {
	n := 0
	for i, r := range s {
		end := i + len(string(r))
		if n > 0 && font.MeasureString(f, s[:end]) > limit {
			break
		}
		n = end
	}
	return n
}

// draw renders the layout; until armed the buttons are greyed (input does not count yet).
func (l *layout) draw(armed bool) *image.RGBA {
	text, head, _ := faces()
	img := image.NewRGBA(image.Rectangle{Max: l.size})
	draw.Draw(img, img.Bounds(), image.NewUniform(colBackground), image.Point{}, draw.Src)
	for _, ln := range l.lines {
		f := text
		if ln.head {
			f = head
		}
		d := font.Drawer{Dst: img, Src: image.NewUniform(colText), Face: f, Dot: fixed.P(margin, ln.y)}
		d.DrawString(ln.text)
	}
	asc := text.Metrics().Ascent.Ceil()
	capH := (text.Metrics().Ascent - text.Metrics().Descent).Ceil()
	for _, b := range l.buttons {
		fill, ink := b.fill, colText
		if !armed {
			fill, ink = colDisabled, colDim
		}
		draw.Draw(img, b.rect, image.NewUniform(colBorder), image.Point{}, draw.Src)
		draw.Draw(img, b.rect.Inset(1), image.NewUniform(fill), image.Point{}, draw.Src)
		base := b.rect.Min.Y + (buttonH-capH)/2 + asc - 1
		d := font.Drawer{Dst: img, Src: image.NewUniform(ink), Face: text, Dot: fixed.P(b.rect.Min.X+buttonPadX, base)}
		d.DrawString(b.label)
	}
	return img
}

// hit is the button at p, if any.
func (l *layout) hit(p image.Point) (button, bool) {
	for _, b := range l.buttons {
		if p.In(b.rect) {
			return b, true
		}
	}
	return button{}, false
}

// bgrx converts rows [y0, y1) of img to the 32-bit little-endian TrueColor pixels of a depth-24
// X visual (blue, green, red, pad).
func bgrx(img *image.RGBA, y0, y1 int) []byte {
	w := img.Bounds().Dx()
	out := make([]byte, 0, w*(y1-y0)*4)
	for y := y0; y < y1; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+w*4]
		for i := 0; i < len(row); i += 4 {
			out = append(out, row[i+2], row[i+1], row[i], 0)
		}
	}
	return out
}
