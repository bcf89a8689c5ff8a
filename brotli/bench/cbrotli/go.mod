module github.com/mosaic-edge/mosaic/brotli/bench/cbrotli

go 1.26.8

require (
	github.com/andybalholm/brotli v1.3.0
	github.com/mosaic-edge/mosaic v0.0.0
)

replace github.com/mosaic-edge/mosaic => ../../..
