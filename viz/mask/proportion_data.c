/* proportion_data.c — the counted and closed-form shares of full blocks. */
#include <stdlib.h>
#include <string.h>

#include "mask/proportion_data.h"
#include "results/results_csv.h"
#include "theory/blocks.h"

double proportion_closed_form(double r)
{
    return r / (r + 2.0);
}

/* Allocate n points; 0 or -1. */
static int alloc_points(ProportionData *d, int n, SrError *err)
{
    d->n_points = n;
    d->r = calloc((size_t)n, sizeof *d->r);
    d->full = calloc((size_t)n, sizeof *d->full);
    d->causal = calloc((size_t)n, sizeof *d->causal);
    d->counted = calloc((size_t)n, sizeof *d->counted);
    if (!d->r || !d->full || !d->causal || !d->counted) {
        proportion_data_free(d);
        return sr_fail(err, "proportion figure: out of memory");
    }
    return 0;
}

/* Sort the points by r, check r is unique and sample the curve. */
static int finish_points(ProportionData *d, const char *source, SrError *err)
{
    for (int i = 1; i < d->n_points; i++)
        for (int j = i; j > 0 && d->r[j - 1] > d->r[j]; j--) {
            int tr = d->r[j]; d->r[j] = d->r[j - 1]; d->r[j - 1] = tr;
            long long tf = d->full[j]; d->full[j] = d->full[j - 1]; d->full[j - 1] = tf;
            long long tc = d->causal[j]; d->causal[j] = d->causal[j - 1]; d->causal[j - 1] = tc;
            double ts = d->counted[j]; d->counted[j] = d->counted[j - 1]; d->counted[j - 1] = ts;
        }
    for (int i = 1; i < d->n_points; i++)
        if (d->r[i] == d->r[i - 1]) {
            int r = d->r[i];
            proportion_data_free(d);
            return sr_fail(err, "%s: r = %d appears twice", source, r);
        }
    double r_max = d->r[d->n_points - 1] > 1 ? d->r[d->n_points - 1] : 1;
    for (int i = 0; i < PROPORTION_CURVE_SAMPLES; i++) {
        d->curve_r[i] = r_max * i / (PROPORTION_CURVE_SAMPLES - 1);
        d->curve_share[i] = proportion_closed_form(d->curve_r[i]);
    }
    return 0;
}

/* Title and caption for a sentence of n tokens and the given options. */
static void describe(ProportionData *d, int n, const char *bos, const char *sep, const char *from)
{
    snprintf(d->meta.title, sizeof d->meta.title, "Share of full blocks grows with repetitions r");
    snprintf(d->meta.caption, sizeof d->meta.caption,
             "Proportion: share of full blocks full / (full + causal) among the visible n x n blocks "
             "of the causal mask over k = r + 1 copies; points counted from the model's mask (%s) "
             "for n = %d tokens, bos %s, sep %s; curve: the closed form (k-1)/(k+1) = r/(r+2). "
             "No model, data or seed involved.",
             from, n, bos, sep);
}

int proportion_data_count(ProportionData *d, int n, const int *r_values, int n_r, RepeatBos bos,
                          RepeatSep sep, SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    if (n_r < 1) return sr_fail(err, "proportion figure: no r values");
    if (alloc_points(d, n_r, err)) return -1;
    for (int i = 0; i < n_r; i++) {
        RepeatLayout lay;
        BlockFigures f;
        if (blocks_check_size(repeat_length(n, r_values[i], bos, sep), err) ||
            repeat_build(NULL, n, r_values[i], bos, sep, 0, &lay, err)) {
            proportion_data_free(d);
            return -1;
        }
        int rc = blocks_count(&lay, 0, &f, err);
        repeat_free(&lay);
        if (rc) {
            proportion_data_free(d);
            return -1;
        }
        d->r[i] = r_values[i];
        d->full[i] = f.full_blocks;
        d->causal[i] = f.causal_blocks;
        d->counted[i] = share_value(blocks_full_share(&f));
        blocks_free(&f);
    }
    describe(d, n, repeat_bos_name(bos), repeat_sep_name(sep), "blocks_count");
    return finish_points(d, "proportion figure", err);
}

int proportion_data_load(ProportionData *d, const char *path, SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    CsvTable t;
    if (csv_read(path, &t, err)) return -1;
    static const char *const cols[] = {"n", "r", "bos", "sep", "full_blocks", "causal_blocks"};
    int idx[6];
    if (csv_require(&t, cols, 6, idx, err) || alloc_points(d, t.n_rows, err)) {
        csv_free(&t);
        return -1;
    }
    int n0 = 0;
    for (int i = 0; i < t.n_rows; i++) {
        int n, r;
        double full, causal;
        if (csv_int(&t, i, idx[0], &n, err) || csv_int(&t, i, idx[1], &r, err) ||
            csv_number(&t, i, idx[4], &full, err) || csv_number(&t, i, idx[5], &causal, err)) {
            csv_free(&t);
            proportion_data_free(d);
            return -1;
        }
        if (i == 0) n0 = n;
        int same = n == n0 && strcmp(csv_cell(&t, i, idx[2]), csv_cell(&t, 0, idx[2])) == 0 &&
                   strcmp(csv_cell(&t, i, idx[3]), csv_cell(&t, 0, idx[3])) == 0;
        if (!same || r < 0 || full < 0 || causal < 1) {
            sr_fail(err, "%s:%d: %s", path, t.line[i],
                    !same ? "every row must have the same n, bos and sep as the first"
                          : "r, full_blocks or causal_blocks out of range");
            csv_free(&t);
            proportion_data_free(d);
            return -1;
        }
        d->r[i] = r;
        d->full[i] = (long long)full;
        d->causal[i] = (long long)causal;
        d->counted[i] = full / (full + causal);
    }
    char from[300];
    snprintf(from, sizeof from, "seqrep blocks, %s", path);
    describe(d, n0, csv_cell(&t, 0, idx[2]), csv_cell(&t, 0, idx[3]), from);
    csv_free(&t);
    return finish_points(d, path, err);
}

void proportion_data_free(ProportionData *d)
{
    free(d->r);
    free(d->full);
    free(d->causal);
    free(d->counted);
    d->r = NULL;
    d->full = d->causal = NULL;
    d->counted = NULL;
    d->n_points = 0;
}

void proportion_data_write_csv(const ProportionData *d, FILE *out)
{
    fprintf(out, "r,k,full_blocks,causal_blocks,counted_share,closed_form_share\n");
    for (int i = 0; i < d->n_points; i++)
        fprintf(out, "%d,%d,%lld,%lld,%.9g,%.9g\n", d->r[i], d->r[i] + 1, d->full[i], d->causal[i],
                d->counted[i], proportion_closed_form(d->r[i]));
}
