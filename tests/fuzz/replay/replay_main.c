/* replay_main.c — a main for the harnesses of tests/fuzz/ without libFuzzer:
 * LLVMFuzzerInitialize when the harness has one, then LLVMFuzzerTestOneInput
 * once on the bytes of each file named on the command line, each in a buffer
 * of exactly its size (so AddressSanitizer sees a read past the end).
 * `make test-fuzz` links every harness with it against the ASan build's
 * library (AddressSanitizer, UBSan, LeakSanitizer at exit) to replay the
 * committed corpora; `make fuzz` keeps libFuzzer's own main. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* The whole of the file at path in a new buffer of *size bytes, or NULL. */
static uint8_t *read_whole(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *data = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = malloc(n > 0 ? (size_t)n : 1);
        if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
            free(data);
            data = NULL;
        }
    }
    fclose(f);
    *size = (size_t)(n > 0 ? n : 0);
    return data;
}

/* Replays every file argument once; exit 2 when one cannot be read. */
int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        size_t size = 0;
        uint8_t *data = read_whole(argv[i], &size);
        if (!data) {
            fprintf(stderr, "replay: %s: cannot be read\n", argv[i]);
            return 2;
        }
        LLVMFuzzerTestOneInput(data, size);
        free(data);
    }
    printf("replayed %d inputs\n", argc - 1);
    return 0;
}
