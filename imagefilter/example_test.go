package imagefilter_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"

	"github.com/mosaic-edge/mosaic/imagefilter"
)

// Thumbnails of whatever the handler serves: at most 150 pixels wide.
func ExampleNew() {
	var img bytes.Buffer
	_ = png.Encode(&img, image.NewGray(image.Rect(0, 0, 600, 400)))
	files := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(img.Bytes()) })

	h := imagefilter.New(files, imagefilter.Options{
		Mode:   imagefilter.Resize,
		Width:  imagefilter.Num(150),
		Height: imagefilter.Num(imagefilter.Unbounded),
	})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/photo", nil))
	cfg, _ := png.DecodeConfig(rec.Body)
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"), cfg.Width, cfg.Height)
	// Output: 200 image/png 150 100
}

// The size of an image, as "image_filter size" answers it.
func ExampleSizeJSON() {
	var img bytes.Buffer
	_ = png.Encode(&img, image.NewGray(image.Rect(0, 0, 600, 400)))
	fmt.Printf("%q\n", imagefilter.SizeJSON(img.Bytes()))
	// Output: "{ \"img\" : { \"width\": 600, \"height\": 400, \"type\": \"png\" } }\r\n"
}
