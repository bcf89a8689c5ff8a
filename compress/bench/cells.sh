# cells.sh: the cells of ../shared/bench/compress.sh, which
# outside-encoder.sh and faults.sh source.
#
# compress_cells prints compress.sh's 25 cells, its five files at its
# five default levels, as FILE:LEVEL, one a line.
compress_cells() {
	local f l
	for f in jquery.min.js bootstrap.min.css react-dom.development.js api-small.json api-listing.json; do
		for l in 1 4 6 9 11; do echo "$f:$l"; done
	done
}
