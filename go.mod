module github.com/mosaic-edge/mosaic

go 1.26.8

require (
	github.com/andybalholm/brotli v1.3.0
	github.com/dlclark/regexp2/v2 v2.13.0
	github.com/klauspost/compress v1.20.4
	github.com/maypok86/otter/v2 v2.4.0
	github.com/redis/rueidis v1.0.79
	golang.org/x/crypto v0.56.0
	golang.org/x/sys v0.47.0
)

require golang.org/x/image v0.44.0

require (
	golang.org/x/net v0.57.0
	golang.org/x/text v0.41.0 // indirect
)
