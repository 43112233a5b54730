/* explorer_roles.c — the head roles the explorer's overview shows: the five
 * scores of every head (theory/heads.h, over the last copy of the maps on
 * screen), the role a head is marked with, its label, colour and hover text,
 * and the best head of each score. Pure: no SDL, no cairo. */
#include "explorer_state/explorer_roles.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The layout d was computed on, checked against d's own: 0, or -1 with err. */
static int matching_layout(const AttentionData *d, int n, int r, RepeatBos bos, RepeatSep sep,
                           RepeatLayout *lay, SrError *err)
{
    if (repeat_build(NULL, n, r, bos, sep, 0, lay, err)) return -1;
    if (lay->T != d->T || memcmp(lay->copy, d->copy, sizeof(int) * (size_t)d->T) != 0) {
        repeat_free(lay);
        return sr_fail(err, "head roles: %d pieces at r = %d do not lay out the %d rows of the maps", n, r, d->T);
    }
    return 0;
}

/* The chance levels of every layer of d into out->chance: a uniform head
 * over the cells d's mask of the layer shows (filtered ones included: the
 * filter hides, the mask does not), scored as the real heads are. 0, or -1
 * with err. */
static int roles_chance(ExplorerRoles *out, const AttentionData *d, const RepeatLayout *lay, SrError *err)
{
    size_t T = (size_t)d->T;
    float *att = malloc(sizeof(float) * T * T);
    HeadScores sums;
    if (!att) return sr_fail(err, "head roles: out of memory");
    if (head_scores_chance_init(&sums, d->n_layers, err)) {
        free(att);
        return -1;
    }
    for (int l = 0; l < d->n_layers; l++) {
        const uint8_t *visible = d->visible + (size_t)d->visible_of[l] * T * T;
        for (size_t t = 0; t < T; t++) {
            int seen = 0;
            for (size_t s = 0; s < T; s++) seen += visible[t * T + s] != ATTENTION_MASKED;
            for (size_t s = 0; s < T; s++) att[t * T + s] = visible[t * T + s] != ATTENTION_MASKED ? 1.0f / seen : 0.0f;
        }
        head_scores_add_layer(&sums, l, att, d->T, lay);
        for (int s = 0; s < HEAD_N_SCORES; s++)
            out->chance[(size_t)l * HEAD_N_SCORES + s] = head_scores_mean(&sums, l, 0, (HeadScore)s);
    }
    head_scores_free(&sums);
    free(att);
    return 0;
}

int explorer_roles_compute(ExplorerRoles *out, const AttentionData *d, int n, int r, RepeatBos bos,
                           RepeatSep sep, SrError *err)
{
    memset(out, 0, sizeof *out);
    RepeatLayout lay;
    HeadScores sums;
    if (matching_layout(d, n, r, bos, sep, &lay, err)) return -1;
    if (head_scores_init(&sums, d->n_layers, d->n_heads, err)) {
        repeat_free(&lay);
        return -1;
    }
    size_t cells = (size_t)d->n_layers * d->n_heads * HEAD_N_SCORES;
    out->score = calloc(cells, sizeof *out->score);
    out->chance = calloc((size_t)d->n_layers * HEAD_N_SCORES, sizeof *out->chance);
    if (!out->score || !out->chance) {
        explorer_roles_free(out);
        head_scores_free(&sums);
        repeat_free(&lay);
        return sr_fail(err, "head roles: out of memory");
    }
    out->n_layers = d->n_layers;
    out->n_heads = d->n_heads;
    out->defined = lay.k >= 2;
    for (int l = 0; out->defined && l < d->n_layers; l++) {
        const float *att = attention_maps_layer(d->maps, l);
        if (!att) {
            explorer_roles_free(out);
            head_scores_free(&sums);
            repeat_free(&lay);
            return sr_fail(err, "head roles: out of memory for the maps of layer %d", l);
        }
        head_scores_add_layer(&sums, l, att, d->T, &lay);
    }
    for (int l = 0; out->defined && l < d->n_layers; l++)
        for (int h = 0; h < d->n_heads; h++)
            for (int s = 0; s < HEAD_N_SCORES; s++)
                out->score[((size_t)l * d->n_heads + h) * HEAD_N_SCORES + s] =
                    head_scores_mean(&sums, l, h, (HeadScore)s);
    head_scores_free(&sums);
    int rc = out->defined ? roles_chance(out, d, &lay, err) : 0;
    repeat_free(&lay);
    if (rc) explorer_roles_free(out);
    return rc;
}

void explorer_roles_free(ExplorerRoles *roles)
{
    free(roles->score);
    free(roles->chance);
    memset(roles, 0, sizeof *roles);
}

const double *explorer_roles_chance(const ExplorerRoles *roles, int layer)
{
    return roles->chance + (size_t)layer * HEAD_N_SCORES;
}

const double *explorer_roles_scores(const ExplorerRoles *roles, int layer, int head)
{
    return roles->score + ((size_t)layer * roles->n_heads + head) * HEAD_N_SCORES;
}

int explorer_role_of(const double score[HEAD_N_SCORES], double threshold)
{
    int best = EXPLORER_ROLE_NONE;
    for (int s = 0; s < EXPLORER_N_ROLES; s++)
        if (score[s] >= threshold && (best == EXPLORER_ROLE_NONE || score[s] > score[best])) best = s;
    return best;
}

const char *explorer_role_short_name(HeadScore role)
{
    static const char *const names[HEAD_N_SCORES] = {"copy", "ind", "prev", "sink", "own"};
    return role >= 0 && role < HEAD_N_SCORES ? names[role] : "?";
}

Rgb explorer_role_colour(HeadScore role)
{
    static const int colours[HEAD_N_SCORES] = {OKABE_SKY_BLUE, OKABE_ORANGE, OKABE_GREEN, OKABE_PURPLE,
                                               OKABE_BLACK};
    return palette_okabe_ito(role >= 0 && role < HEAD_N_SCORES ? colours[role] : OKABE_BLACK);
}

void explorer_role_value_text(double value, char *out, size_t cap)
{
    long hundredths = lround(fmax(0, value) * 100);
    if (hundredths >= 100) snprintf(out, cap, "%.2f", hundredths / 100.0);
    else snprintf(out, cap, ".%02ld", hundredths);
}

void explorer_role_label(HeadScore role, double value, char *out, size_t cap)
{
    char v[16];
    explorer_role_value_text(value, v, sizeof v);
    snprintf(out, cap, "%s %s", explorer_role_short_name(role), v);
}

void explorer_roles_best(const ExplorerRoles *roles, ExplorerRoleBest best[HEAD_N_SCORES])
{
    for (int s = 0; s < HEAD_N_SCORES; s++) {
        best[s] = (ExplorerRoleBest){.score = (HeadScore)s, .layer = 0, .head = 0,
                                     .value = explorer_roles_scores(roles, 0, 0)[s]};
        for (int l = 0; l < roles->n_layers; l++)
            for (int h = 0; h < roles->n_heads; h++) {
                double v = explorer_roles_scores(roles, l, h)[s];
                if (v > best[s].value) best[s] = (ExplorerRoleBest){.score = (HeadScore)s, .layer = l, .head = h,
                                                                    .value = v};
            }
    }
}

void explorer_role_best_text(const ExplorerRoleBest *best, char *out, size_t cap)
{
    char v[16];
    explorer_role_value_text(best->value, v, sizeof v);
    snprintf(out, cap, "%-9s  L%d H%d  %s", head_score_name(best->score), best->layer, best->head, v);
}

void explorer_roles_tooltip(const ExplorerRoles *roles, int layer, int head, char *out, size_t cap)
{
    if (!roles->defined) {
        snprintf(out, cap, "layer %d, head %d\nroles need r >= 1\nclick: open this map", layer, head);
        return;
    }
    const double *score = explorer_roles_scores(roles, layer, head);
    int role = explorer_role_of(score, EXPLORER_ROLE_THRESHOLD);
    char label[32];
    if (role == EXPLORER_ROLE_NONE) snprintf(label, sizeof label, "no role");
    else explorer_role_label((HeadScore)role, score[role], label, sizeof label);
    int len = snprintf(out, cap, "layer %d, head %d: %s", layer, head, label);
    const double *chance = explorer_roles_chance(roles, layer);
    for (int s = 0; s < HEAD_N_SCORES && len >= 0 && (size_t)len < cap; s++)
        len += snprintf(out + len, cap - (size_t)len, "\n  %-9s %.2f  (chance %.2f)", head_score_name((HeadScore)s),
                        score[s], chance[s]);
    if (len >= 0 && (size_t)len < cap) snprintf(out + len, cap - (size_t)len, "\nclick: open this map");
}

char *explorer_roles_csv(const ExplorerRoles *roles)
{
    if (!roles->defined) return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return NULL;
    fprintf(mem, "layer,head");
    for (int s = 0; s < HEAD_N_SCORES; s++) fprintf(mem, ",%s", head_score_name((HeadScore)s));
    fprintf(mem, ",role");
    for (int s = 0; s < HEAD_N_SCORES; s++) fprintf(mem, ",%s_chance", head_score_name((HeadScore)s));
    fprintf(mem, "\n");
    for (int l = 0; l < roles->n_layers; l++)
        for (int h = 0; h < roles->n_heads; h++) {
            const double *score = explorer_roles_scores(roles, l, h);
            int role = explorer_role_of(score, EXPLORER_ROLE_THRESHOLD);
            fprintf(mem, "%d,%d", l, h);
            for (int s = 0; s < HEAD_N_SCORES; s++) fprintf(mem, ",%.6f", score[s]);
            fprintf(mem, ",%s", role == EXPLORER_ROLE_NONE ? "none" : head_score_name((HeadScore)role));
            for (int s = 0; s < HEAD_N_SCORES; s++) fprintf(mem, ",%.6f", explorer_roles_chance(roles, l)[s]);
            fprintf(mem, "\n");
        }
    if (fclose(mem) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
