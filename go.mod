module github.com/mosaic-edge/mosaic

go 1.26.8

require (
	github.com/andybalholm/brotli v1.3.0 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
)
