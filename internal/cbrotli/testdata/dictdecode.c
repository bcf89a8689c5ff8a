/* dictdecode: decodes a brotli stream from standard input to standard
   output with Google's decoder, a raw (prefix) dictionary attached when a
   file is named. Package cbrotli builds it from the C sources of brotli
   1.1.0, the first release whose decoder takes such a dictionary. */
#include <stdio.h>
#include <stdlib.h>
#include <brotli/decode.h>

static unsigned char *slurp(FILE *f, size_t *n) {
  size_t cap = 1 << 16, len = 0;
  unsigned char *b = malloc(cap);
  size_t r;
  while (b && (r = fread(b + len, 1, cap - len, f)) > 0) {
    len += r;
    if (len == cap) b = realloc(b, cap *= 2);
  }
  *n = len;
  return b;
}

int main(int argc, char **argv) {
  size_t dn = 0, in_len = 0;
  unsigned char *dict = NULL, *in = slurp(stdin, &in_len);
  BrotliDecoderState *s = BrotliDecoderCreateInstance(NULL, NULL, NULL);
  if (!in || !s) return 2;
  if (argc > 1) {
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    dict = slurp(f, &dn);
    fclose(f);
    if (!BrotliDecoderAttachDictionary(s, BROTLI_SHARED_DICTIONARY_RAW, dn, dict)) {
      fprintf(stderr, "dictionary refused\n");
      return 2;
    }
  }
  const unsigned char *next_in = in;
  size_t avail_in = in_len;
  unsigned char out[1 << 16];
  for (;;) {
    unsigned char *next_out = out;
    size_t avail_out = sizeof out;
    BrotliDecoderResult r = BrotliDecoderDecompressStream(s, &avail_in, &next_in, &avail_out, &next_out, NULL);
    fwrite(out, 1, sizeof out - avail_out, stdout);
    if (r == BROTLI_DECODER_RESULT_SUCCESS) break;
    if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) continue;
    fprintf(stderr, "%s\n", r == BROTLI_DECODER_RESULT_ERROR
        ? BrotliDecoderErrorString(BrotliDecoderGetErrorCode(s)) : "truncated stream");
    return 1;
  }
  if (avail_in != 0) { fprintf(stderr, "bytes after the stream\n"); return 1; }
  BrotliDecoderDestroyInstance(s);
  return 0;
}
