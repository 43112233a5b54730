/* timeline_data.c — the timeline figure's numbers from a snapshot series
 * and the heads measures of its snapshots. */
#include "series/timeline_data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "base/text_file.h"
#include "base/text_append.h"
#include "results/flow_data.h"
#include "results/heads_data.h"
#include "results/layers_data.h"
#include "series/series_read.h"

/* The measure whose manifests hold the in-context learning numbers. */
static const char *const ICL_MEASURE = "heads-random";

int timeline_what_parse(const char *text, TimelineWhat *out, SrError *err)
{
    if (strcmp(text, "heads") == 0) *out = TIMELINE_HEADS;
    else if (strcmp(text, "loss") == 0) *out = TIMELINE_LOSS;
    else if (strcmp(text, "f1") == 0) *out = TIMELINE_F1;
    else if (strcmp(text, "flow") == 0) *out = TIMELINE_FLOW;
    else if (strcmp(text, "probe") == 0) *out = TIMELINE_PROBE;
    else return sr_fail(err, "--what must be heads, loss, f1, flow or probe, got '%s'", text);
    return 0;
}

const char *timeline_what_name(TimelineWhat what)
{
    return what == TIMELINE_LOSS    ? "loss"
           : what == TIMELINE_F1    ? "f1"
           : what == TIMELINE_FLOW  ? "flow"
           : what == TIMELINE_PROBE ? "probe"
                                    : "heads";
}

int timeline_measure_check(const char *text, SrError *err)
{
    if (strcmp(text, "heads-random") != 0 && strcmp(text, "heads-data") != 0)
        return sr_fail(err, "--measure must be heads-random or heads-data, got '%s'", text);
    return 0;
}

const char *timeline_flow_name(TimelineFlowShare share, FlowCategory category)
{
    if (share == TIMELINE_FLOW_CUE) return "cue";
    if (share == TIMELINE_FLOW_NON_CUE) return "non_cue";
    return attnflow_category_name(category);
}

double timeline_value(const TimelineData *d, int i, int layer, int head)
{
    return d->value[((size_t)i * d->n_layers + layer) * d->n_heads + head];
}

void timeline_head_label(int layer, int head, char *out, size_t cap)
{
    snprintf(out, cap, "L%dH%d", layer, head);
}

int timeline_per_layer(const TimelineData *d)
{
    return d->what == TIMELINE_FLOW || d->what == TIMELINE_PROBE;
}

void timeline_line_label(const TimelineData *d, int layer, int head, char *out, size_t cap)
{
    if (timeline_per_layer(d)) snprintf(out, cap, "layer %d", layer);
    else timeline_head_label(layer, head, out, cap);
}

/* The measure folder flow shares are read from (examples/series_flow.sh). */
static const char *const FLOW_MEASURE = "flow";

/* The file name of a path (after its last '/'). */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Read the score of step index i from its CSV (path) into d->value; the
 * first step sets the shape, later ones must match it (first_path names
 * the first file). */
static int read_step(TimelineData *d, int i, const char *path, const char *first_path, const char *dir,
                     SrError *err)
{
    if (access(path, F_OK) != 0)
        return sr_fail(err, "%s: missing (no %s measure of step %d of %s/series.json)", path, d->measure,
                       d->step[i], dir);
    HeadsData h;
    if (heads_data_load(&h, path, &d->score, 1, NULL, err)) return -1;
    int rc = 0;
    if (i == 0) {
        d->n_layers = h.n_layers;
        d->n_heads = h.n_heads;
        d->value = malloc(sizeof(double) * (size_t)d->n_steps * h.n_layers * h.n_heads);
        if (!d->value) rc = sr_fail(err, "%s: out of memory", path);
    } else if (h.n_layers != d->n_layers || h.n_heads != d->n_heads) {
        rc = sr_fail(err, "%s: %d layers x %d heads, but %s has %d x %d (another model?)", path, h.n_layers,
                     h.n_heads, base_name(first_path), d->n_layers, d->n_heads);
    }
    for (int l = 0; l < d->n_layers && rc == 0; l++)
        for (int hd = 0; hd < d->n_heads; hd++)
            d->value[((size_t)i * d->n_layers + l) * d->n_heads + hd] = heads_value(&h, 0, l, hd);
    heads_data_free(&h);
    return rc;
}

/* The score of every head at every step. */
static int read_heads(TimelineData *d, const char *dir, SrError *err)
{
    char *first = series_measure_path(dir, d->measure, d->step[0], ".csv");
    int rc = first ? 0 : sr_fail(err, "out of memory");
    for (int i = 0; i < d->n_steps && rc == 0; i++) {
        char *path = series_measure_path(dir, d->measure, d->step[i], ".csv");
        rc = path ? read_step(d, i, path, first, dir, err) : sr_fail(err, "out of memory");
        free(path);
    }
    free(first);
    return rc;
}

/* The chance level of the share d draws, layer l of f; NAN when f has none. */
static double flow_chance(const TimelineData *d, const FlowData *f, int l)
{
    if (!f->has_chance) return NAN;
    if (d->share == TIMELINE_FLOW_CATEGORY) return f->chance[l * FLOW_N_CATEGORIES + d->category];
    const double *v = d->share == TIMELINE_FLOW_CUE ? f->cue_chance : f->non_cue_chance;
    return v ? v[l] : NAN;
}

/* The flow share of every layer (mean over heads) at every step, and its
 * chance level when every step's file has it. */
static int read_flow(TimelineData *d, const char *dir, SrError *err)
{
    int rc = 0;
    d->n_heads = 1;
    d->has_chance = 1;
    for (int i = 0; i < d->n_steps && rc == 0; i++) {
        char *path = series_measure_path(dir, FLOW_MEASURE, d->step[i], ".csv");
        if (!path) return sr_fail(err, "out of memory");
        FlowData f;
        memset(&f, 0, sizeof f);
        if (access(path, F_OK) != 0)
            rc = sr_fail(err, "%s: missing (no flow measure of step %d of %s/series.json)", path, d->step[i], dir);
        if (rc == 0) rc = flow_data_load(&f, path, -1, err);
        if (rc == 0 && d->share != TIMELINE_FLOW_CATEGORY && !f.has_cues)
            rc = sr_fail(err, "%s: no columns cue and non_cue (measure the series with attnflow --cues: "
                              "examples/series_flow.sh with CUES)", path);
        if (rc == 0 && i == 0) {
            d->n_layers = f.n_layers;
            d->value = malloc(sizeof(double) * (size_t)d->n_steps * f.n_layers);
            d->chance = malloc(sizeof(double) * (size_t)d->n_steps * f.n_layers);
            if (!d->value || !d->chance) rc = sr_fail(err, "%s: out of memory", path);
        } else if (rc == 0 && f.n_layers != d->n_layers) {
            rc = sr_fail(err, "%s: %d layers, but step %d has %d (another model?)", path, f.n_layers, d->step[0],
                         d->n_layers);
        }
        for (int l = 0; l < d->n_layers && rc == 0; l++)
            d->value[(size_t)i * d->n_layers + l] = d->share == TIMELINE_FLOW_CUE       ? f.cue[l]
                                                    : d->share == TIMELINE_FLOW_NON_CUE ? f.non_cue[l]
                                                    : f.share[l * FLOW_N_CATEGORIES + d->category];
        for (int l = 0; l < d->n_layers && rc == 0; l++) {
            d->chance[(size_t)i * d->n_layers + l] = flow_chance(d, &f, l);
            if (isnan(d->chance[(size_t)i * d->n_layers + l])) d->has_chance = 0;
        }
        flow_data_free(&f);
        free(path);
    }
    return rc;
}

/* The measure folder probe F1 is read from (examples/series_probe.sh). */
static const char *const PROBE_MEASURE = "probe";

/* From the probe CSV at path (rows of `split`), the last-copy read-out of
 * the most repetitions into row i of d->value (its F1 per layer, in %): the
 * first step sets the layers and r, later ones must match. 0 or -1. */
static int read_probe_step(TimelineData *d, int i, const char *path, SrError *err)
{
    LayersData p;
    const char *paths[1] = {path};
    if (layers_data_load(&p, paths, 1, d->split, NULL, 0, err)) return -1;
    const LayersSeries *best = NULL;
    for (int k = 0; k < p.n_series; k++)
        if (p.series[k].copy == COPY_LAST && (!best || p.series[k].r > best->r)) best = &p.series[k];
    int rc = 0;
    if (!best) rc = sr_fail(err, "%s: no last-copy read-out of split %s", path, d->split);
    else if (i == 0) {
        d->n_layers = best->n;
        d->probe_r = best->r;
        d->value = malloc(sizeof(double) * (size_t)d->n_steps * best->n);
        if (!d->value) rc = sr_fail(err, "%s: out of memory", path);
    } else if (best->n != d->n_layers || best->r != d->probe_r) {
        rc = sr_fail(err, "%s: %d layers at r = %d, but step %d has %d at r = %d (another model or run?)", path,
                     best->n, best->r, d->step[0], d->n_layers, d->probe_r);
    }
    for (int l = 0; l < d->n_layers && rc == 0; l++) {
        if (best->layer[l] != l) rc = sr_fail(err, "%s: layer %d missing", path, l);
        else d->value[(size_t)i * d->n_layers + l] = best->mean[l];
    }
    layers_data_free(&p);
    return rc;
}

/* The probe's F1 per layer at every step (series_probe.sh's CSVs). */
static int read_probe(TimelineData *d, const char *dir, SrError *err)
{
    int rc = 0;
    d->n_heads = 1;
    for (int i = 0; i < d->n_steps && rc == 0; i++) {
        char *path = series_measure_path(dir, PROBE_MEASURE, d->step[i], ".csv");
        if (!path) return sr_fail(err, "out of memory");
        if (access(path, F_OK) != 0)
            rc = sr_fail(err, "%s: missing (no probe measure of step %d of %s/series.json: "
                              "examples/series_probe.sh)", path, d->step[i], dir);
        else rc = read_probe_step(d, i, path, err);
        free(path);
    }
    return rc;
}

/* The heads with the largest values at the last step, largest first (the
 * first in layer, head order on a tie), at most top of them. */
static void pick_top(TimelineData *d, int top)
{
    int cells = d->n_layers * d->n_heads, last = d->n_steps - 1;
    d->n_top = top < cells ? top : cells;
    for (int k = 0; k < d->n_top; k++) {
        int best = -1;
        for (int c = 0; c < cells; c++) {
            int taken = 0;
            for (int j = 0; j < k; j++) taken |= d->top_layer[j] * d->n_heads + d->top_head[j] == c;
            if (taken) continue;
            if (best < 0 || timeline_value(d, last, c / d->n_heads, c % d->n_heads) >
                                timeline_value(d, last, best / d->n_heads, best % d->n_heads))
                best = c;
        }
        d->top_layer[k] = best / d->n_heads;
        d->top_head[k] = best % d->n_heads;
    }
}

/* The number `key` of a manifest (read from path) into *out. */
static int manifest_number(const cJSON *m, const char *key, const char *path, double *out, SrError *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) return sr_fail(err, "%s: no number '%s'", path, key);
    *out = v->valuedouble;
    return 0;
}

/* The ICL numbers of step index i from its heads-random manifest. */
static int read_icl_step(TimelineData *d, int i, const char *dir, SrError *err)
{
    char *path = series_measure_path(dir, ICL_MEASURE, d->step[i], ".manifest.json"), *text = NULL;
    size_t len;
    if (!path) return sr_fail(err, "out of memory");
    int rc = 0;
    if (access(path, F_OK) != 0)
        rc = sr_fail(err, "%s: missing (no %s measure of step %d of %s/series.json)", path, ICL_MEASURE,
                     d->step[i], dir);
    if (rc == 0) rc = text_read_file(path, &text, &len, err);
    cJSON *m = rc == 0 ? cJSON_Parse(text) : NULL;
    if (rc == 0 && !cJSON_IsObject(m)) rc = sr_fail(err, "%s: not a JSON object", path);
    if (rc == 0) rc = manifest_number(m, "loss_first_copy", path, &d->loss_first[i], err);
    if (rc == 0) rc = manifest_number(m, "loss_last_copy", path, &d->loss_last[i], err);
    if (rc == 0) rc = manifest_number(m, "icl_score", path, &d->icl[i], err);
    cJSON_Delete(m);
    free(text);
    free(path);
    return rc;
}

/* The ICL numbers of every step, when the series has a heads-random measure. */
static int read_icl(TimelineData *d, const char *dir, SrError *err)
{
    if (!series_has_measure(dir, ICL_MEASURE)) return 0;
    size_t n = (size_t)d->n_steps;
    d->loss_first = malloc(sizeof(double) * n);
    d->loss_last = malloc(sizeof(double) * n);
    d->icl = malloc(sizeof(double) * n);
    if (!d->loss_first || !d->loss_last || !d->icl) return sr_fail(err, "out of memory");
    for (int i = 0; i < d->n_steps; i++)
        if (read_icl_step(d, i, dir, err)) return -1;
    d->has_icl = 1;
    return 0;
}

/* Title and caption: what the lines are, the coloured heads, the files. */
static void write_meta(TimelineData *d, const char *dir)
{
    char *c = d->meta.caption;
    size_t cap = sizeof d->meta.caption, used = 0;
    int last = d->n_steps - 1;
    if (d->what == TIMELINE_HEADS) {
        snprintf(d->meta.title, sizeof d->meta.title, "When the heads learn their roles: %s score per step",
                 head_score_label(d->score));
        text_append(c, cap, &used, "The %s score (mean share of attention, seqrep heads, %s) of every head at %d "
               "snapshots, one line per layer x head; coloured: the %d largest at step %d (",
               head_score_label(d->score), d->measure, d->n_steps, d->n_top, d->step[last]);
        for (int k = 0; k < d->n_top; k++)
            text_append(c, cap, &used, "%sL%dH%d %.3f", k ? ", " : "", d->top_layer[k], d->top_head[k],
                   timeline_value(d, last, d->top_layer[k], d->top_head[k]));
        text_append(c, cap, &used, ").");
        if (d->has_icl)
            text_append(c, cap, &used, " Below: the in-context learning score, loss on the first copy of random "
                                  "sequences minus loss on the last (%.3f at step %d).", d->icl[last], d->step[last]);
        else
            text_append(c, cap, &used, " No heads-random measure: no in-context learning score.");
    } else if (d->what == TIMELINE_FLOW) {
        const char *name = timeline_flow_name(d->share, d->category);
        snprintf(d->meta.title, sizeof d->meta.title, "Where the last copy attends, by %s: %s",
                 d->epochs ? "epoch" : "step", name);
        if (d->share == TIMELINE_FLOW_CATEGORY)
            text_append(c, cap, &used, "Share of the attention of last-copy words that goes to %s", name);
        else
            text_append(c, cap, &used, "Share of the attention of ambiguous entity words of the last copy that goes to "
                   "%s in the earlier copies", d->share == TIMELINE_FLOW_CUE ? "their cue word"
                                                                               : "one other word on the cue's side");
        text_append(c, cap, &used, " (seqrep attnflow%s, the mean over heads) of every layer at %d %s; coloured: the "
               "%d largest at %s %d (", d->share == TIMELINE_FLOW_CATEGORY ? "" : " --cues", d->n_steps,
               d->epochs ? "epochs" : "snapshots", d->n_top, d->epochs ? "epoch" : "step", d->step[last]);
        for (int k = 0; k < d->n_top; k++)
            text_append(c, cap, &used, "%slayer %d %.3f", k ? ", " : "", d->top_layer[k],
                   timeline_value(d, last, d->top_layer[k], 0));
        text_append(c, cap, &used, ").");
        if (d->has_chance)
            text_append(c, cap, &used, " Dashed, in the layer's colour: its chance level, the share of a uniform "
                                       "head (each query's weight spread evenly over the keys its mask lets it see).");
    } else if (d->what == TIMELINE_PROBE) {
        snprintf(d->meta.title, sizeof d->meta.title, "What each layer holds, by %s: probe F1",
                 d->epochs ? "epoch" : "step");
        text_append(c, cap, &used, "Strict span F1 (%%, %s) of a linear probe on each layer's last-copy features at "
               "r = %d (seqrep probe) at %d %s; coloured: the %d best at %s %d (", d->split, d->probe_r, d->n_steps,
               d->epochs ? "epochs" : "snapshots", d->n_top, d->epochs ? "epoch" : "step", d->step[last]);
        for (int k = 0; k < d->n_top; k++)
            text_append(c, cap, &used, "%slayer %d %.1f", k ? ", " : "", d->top_layer[k],
                   timeline_value(d, last, d->top_layer[k], 0));
        text_append(c, cap, &used, ").");
    } else if (d->what == TIMELINE_F1) {
        snprintf(d->meta.title, sizeof d->meta.title, "Dev and test F1 by fine-tuning epoch");
        text_append(c, cap, &used, "Strict span F1 (%%) of dev and test after each of %d epochs (epoch 0: before "
               "training), from the series of finetune --save-epochs: %.2f and %.2f at epoch %d.", d->step[last],
               d->dev_f1[last], d->test_f1[last], d->step[last]);
    } else {
        snprintf(d->meta.title, sizeof d->meta.title, d->epochs ? "Fine-tuning loss by epoch"
                                                               : "Pre-training loss and the loss on repeated random sequences");
        text_append(c, cap, &used, "Training loss of the batch at each of %d snapshots (series.json)", d->n_steps);
        if (d->has_icl)
            text_append(c, cap, &used, "; loss on the first and the last copy of random sequences (seqrep heads "
                                  "--random, heads-random measure): they part when the model copies in context.");
        else
            text_append(c, cap, &used, ". No heads-random measure: no losses on random sequences.");
    }
    text_append(c, cap, &used, " From %s.", dir);
}

int timeline_data_load(TimelineData *d, const TimelineRequest *q, SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    d->what = q->what;
    d->score = q->score;
    d->share = q->share;
    d->category = q->category;
    snprintf(d->measure, sizeof d->measure, "%s", q->measure ? q->measure : ICL_MEASURE);
    snprintf(d->split, sizeof d->split, "%s", q->split ? q->split : "test");
    if (q->top < 1 || q->top > TIMELINE_MAX_TOP) return sr_fail(err, "--top must be 1..%d", TIMELINE_MAX_TOP);
    SeriesSteps s;
    if (series_read(q->dir, &s, err)) return -1;
    d->n_steps = s.n;
    d->step = s.step;
    d->train_loss = s.train_loss;
    d->epochs = s.epochs;
    d->dev_f1 = s.dev_f1;
    d->test_f1 = s.test_f1;
    int rc = 0;
    if (d->what == TIMELINE_HEADS) rc = read_heads(d, q->dir, err);
    if (d->what == TIMELINE_FLOW) rc = read_flow(d, q->dir, err);
    if (d->what == TIMELINE_PROBE) rc = read_probe(d, q->dir, err);
    if (d->what == TIMELINE_F1 && isnan(d->dev_f1[s.n - 1]))
        rc = sr_fail(err, "%s/series.json: no dev_f1 at the last snapshot (--what f1 draws a series of "
                          "finetune --save-epochs)", q->dir);
    if (rc == 0 && (d->what == TIMELINE_HEADS || d->what == TIMELINE_LOSS)) rc = read_icl(d, q->dir, err);
    if (rc) {
        timeline_data_free(d);
        return -1;
    }
    if (d->what == TIMELINE_HEADS || timeline_per_layer(d)) pick_top(d, q->top);
    write_meta(d, q->dir);
    return 0;
}

void timeline_data_free(TimelineData *d)
{
    free(d->step);
    free(d->train_loss);
    free(d->value);
    free(d->chance);
    free(d->loss_first);
    free(d->loss_last);
    free(d->icl);
    free(d->dev_f1);
    free(d->test_f1);
    d->step = NULL;
    d->train_loss = d->value = d->chance = d->loss_first = d->loss_last = d->icl = d->dev_f1 = d->test_f1 = NULL;
    d->n_steps = d->n_layers = d->n_heads = d->n_top = d->has_icl = d->has_chance = 0;
}

/* One row of a series without layer and head. */
static void write_plain(FILE *out, int step, const char *series, double v)
{
    fprintf(out, "%d,%s,,,%.6f\n", step, series, v);
}

void timeline_data_write_csv(const TimelineData *d, FILE *out)
{
    fprintf(out, "step,series,layer,head,value\n");
    if (d->what == TIMELINE_HEADS) {
        for (int i = 0; i < d->n_steps; i++)
            for (int l = 0; l < d->n_layers; l++)
                for (int h = 0; h < d->n_heads; h++)
                    fprintf(out, "%d,%s/%s,%d,%d,%.6f\n", d->step[i], d->measure, head_score_name(d->score), l, h,
                            timeline_value(d, i, l, h));
        for (int i = 0; i < d->n_steps && d->has_icl; i++) write_plain(out, d->step[i], "icl_score", d->icl[i]);
        return;
    }
    if (d->what == TIMELINE_FLOW) {
        for (int i = 0; i < d->n_steps; i++)
            for (int l = 0; l < d->n_layers; l++)
                fprintf(out, "%d,flow/%s,%d,,%.6f\n", d->step[i], timeline_flow_name(d->share, d->category), l,
                        timeline_value(d, i, l, 0));
        for (int i = 0; i < d->n_steps && d->has_chance; i++)
            for (int l = 0; l < d->n_layers; l++)
                fprintf(out, "%d,flow/%s_chance,%d,,%.6f\n", d->step[i], timeline_flow_name(d->share, d->category),
                        l, d->chance[(size_t)i * d->n_layers + l]);
        return;
    }
    if (d->what == TIMELINE_PROBE) {
        for (int i = 0; i < d->n_steps; i++)
            for (int l = 0; l < d->n_layers; l++)
                fprintf(out, "%d,probe/%s/r%d,%d,,%.6f\n", d->step[i], d->split, d->probe_r, l,
                        timeline_value(d, i, l, 0));
        return;
    }
    if (d->what == TIMELINE_F1) {
        for (int i = 0; i < d->n_steps; i++)
            if (!isnan(d->dev_f1[i])) write_plain(out, d->step[i], "dev_f1", d->dev_f1[i]);
        for (int i = 0; i < d->n_steps; i++)
            if (!isnan(d->test_f1[i])) write_plain(out, d->step[i], "test_f1", d->test_f1[i]);
        return;
    }
    for (int i = 0; i < d->n_steps; i++)
        if (!isnan(d->train_loss[i])) write_plain(out, d->step[i], "train_loss", d->train_loss[i]);
    for (int i = 0; i < d->n_steps && d->has_icl; i++)
        write_plain(out, d->step[i], "loss_first_copy", d->loss_first[i]);
    for (int i = 0; i < d->n_steps && d->has_icl; i++)
        write_plain(out, d->step[i], "loss_last_copy", d->loss_last[i]);
}
