package web

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
)

// appIcon draws the installed app's icon at size×size: the logo's three bars of decreasing
// length, white on the brand blue, with room around them for maskable crops. Drawn at start-up
// so there is no binary file to keep in step with the SVG.
func appIcon(size int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	blue := color.RGBA{0x25, 0x63, 0xeb, 0xff}
	white := color.RGBA{0xff, 0xff, 0xff, 0xff}
	fill := func(x0, y0, x1, y1 int, c color.RGBA) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				img.SetRGBA(x, y, c)
			}
		}
	}
	fill(0, 0, size, size, blue)
	u := size / 16 // the SVG's 16-unit grid, inside a 20% safe margin
	m := size / 5
	span := size - 2*m
	for i, w := range []int{14, 9, 5} {
		y := m + i*span/3 + u/2
		fill(m, y, m+w*span/14, y+span/5, white)
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}
