// cstream encodes FILE N times through libbrotlienc's streaming API the
// way ngx_brotli's filter does for each response: an instance created,
// QUALITY and LGWIN set, one BrotliEncoderCompressStream with
// BROTLI_OPERATION_FINISH over the whole body, the output taken, the
// instance destroyed. Run under valgrind at N and 1, the difference over
// N-1 is what one response's compression costs NGINX's side, to set
// against the Go encoder's BenchmarkServerEncoder (compress README, *The
// encoder against C's streaming API, and the filter*).
//
//	gcc -O2 -o /tmp/cstream cstream.c -lbrotlienc
//	/tmp/cstream ../../../../shared/corpus/api-small.json 1 11 1000
//
// ngx_brotli takes the smallest window from 10 bits up that holds a body
// of known length: 11 for the 2 KB JSON. With a fifth argument glibc
// keeps freed memory, as cbrotli's runs do.
#include <brotli/encode.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

static uint8_t in[16 << 20];

int main(int argc, char **argv) {
	if (argc < 5) {
		fprintf(stderr, "usage: cstream FILE QUALITY LGWIN N [keep]\n");
		return 2;
	}
	int q = atoi(argv[2]), lgwin = atoi(argv[3]), n = atoi(argv[4]);
	if (argc > 5) {
		mallopt(M_MMAP_MAX, 0);
		mallopt(M_TRIM_THRESHOLD, 0x7fffffff);
	}
	FILE *f = fopen(argv[1], "rb");
	if (f == NULL) {
		perror(argv[1]);
		return 1;
	}
	size_t len = fread(in, 1, sizeof in, f);
	fclose(f);
	size_t total = 0;
	for (int i = 0; i < n; i++) {
		BrotliEncoderState *s = BrotliEncoderCreateInstance(NULL, NULL, NULL);
		if (s == NULL || !BrotliEncoderSetParameter(s, BROTLI_PARAM_QUALITY, q) ||
		    !BrotliEncoderSetParameter(s, BROTLI_PARAM_LGWIN, lgwin)) {
			fprintf(stderr, "cstream: cannot set up an encoder\n");
			return 1;
		}
		size_t avail = len, outAvail = 0;
		const uint8_t *next = in;
		while (!BrotliEncoderIsFinished(s)) {
			if (!BrotliEncoderCompressStream(s, BROTLI_OPERATION_FINISH, &avail, &next, &outAvail, NULL, NULL)) {
				fprintf(stderr, "cstream: compression failed\n");
				return 1;
			}
			size_t got;
			BrotliEncoderTakeOutput(s, &got);
			total += got;
		}
		BrotliEncoderDestroyInstance(s);
	}
	printf("%zu bytes a call\n", n ? total / n : 0);
	return 0;
}
