/* fuzz_sweep.c — results read back into a sweep table
 * (sweep_table_merge_file: a sweep CSV, or a `seqrep finetune` run CSV and
 * the manifest beside it) on any bytes. The input is CSV [NUL MANIFEST]:
 * the bytes after the first NUL, when there is one, are the run's
 * RUN.manifest.json. Property: a table read in writes (sweep_table_csv) a
 * CSV that reads back to the same text. */
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "runs/sweep/sweep_read.h"

/* The table written, read back and written again: the same CSV. */
static void round_trip(const SweepTable *t)
{
    char *text = sweep_table_csv(t);
    FUZZ_CHECK(text != NULL);
    char path[600];
    fuzz_file(path, sizeof path, "again.csv", text, strlen(text));
    SweepTable back = {0};
    int n_added = 0;
    SrError err;
    FUZZ_OK(sweep_table_read(path, &back, &n_added, &err), err);
    FUZZ_CHECK(back.n == t->n && n_added == t->n);
    char *again = sweep_table_csv(&back);
    FUZZ_CHECK(again != NULL);
    /* numbers are rounded on writing, so compare the second writing with a
     * third: a table read back from its own CSV must be stable */
    fuzz_file(path, sizeof path, "again.csv", again, strlen(again));
    SweepTable third = {0};
    FUZZ_OK(sweep_table_read(path, &third, &n_added, &err), err);
    char *last = sweep_table_csv(&third);
    FUZZ_CHECK(last != NULL && strcmp(last, again) == 0);
    free(last);
    sweep_table_free(&third);
    free(again);
    free(text);
    sweep_table_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *manifest;
    size_t manifest_size;
    size_t csv_size = fuzz_split(data, size, 0, &manifest, &manifest_size);
    char path[600], mpath[600];
    fuzz_file(path, sizeof path, "run.csv", data, csv_size);
    fuzz_path(mpath, sizeof mpath, "run.manifest.json");
    if (manifest) fuzz_write(mpath, manifest, manifest_size);
    else remove(mpath);

    SweepTable t = {0};
    int n_rows = 0, n_added = 0;
    SrError err;
    if (sweep_table_merge_file(&t, path, &n_rows, &n_added, &err) == 0) {
        FUZZ_CHECK(n_added == t.n && n_added <= n_rows);
        round_trip(&t);
    }
    sweep_table_free(&t);
    return 0;
}
