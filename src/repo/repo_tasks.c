/* repo_tasks.c — the key-value, needle and table tasks of the RePo
 * experiments: vocabulary, spec checks and the example generator. */
#include "repo/repo_tasks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"

/* ---- vocabulary ------------------------------------------------------------ */

void repo_task_word(int id, char *buf, size_t cap)
{
    static const char *const markers[] = {"=", ";", "?", "|"};
    const char *special = tokenizer_special_name(id);
    if (special) snprintf(buf, cap, "%s", special);
    else if (id >= REPO_TOK_EQ && id <= REPO_TOK_BAR) snprintf(buf, cap, "%s", markers[id - REPO_TOK_EQ]);
    else if (id >= REPO_KEY0 && id < REPO_VALUE0) snprintf(buf, cap, "k%d", id - REPO_KEY0);
    else if (id >= REPO_VALUE0 && id < REPO_ROW0) snprintf(buf, cap, "v%d", id - REPO_VALUE0);
    else if (id >= REPO_ROW0 && id < REPO_COL0) snprintf(buf, cap, "r%d", id - REPO_ROW0);
    else if (id >= REPO_COL0 && id < REPO_FILLER0) snprintf(buf, cap, "c%d", id - REPO_COL0);
    else if (id >= REPO_FILLER0 && id < REPO_VOCAB_SIZE) snprintf(buf, cap, "w%d", id - REPO_FILLER0);
    else snprintf(buf, cap, "?");
}

int repo_task_tokenizer(Tokenizer *tok, SrError *err)
{
    static char words[REPO_VOCAB_SIZE][8];
    const char *list[REPO_VOCAB_SIZE];
    for (int id = 0; id < REPO_VOCAB_SIZE; id++) {
        repo_task_word(id, words[id], sizeof words[id]);
        list[id] = words[id];
    }
    return tokenizer_from_words_in(tok, list, REPO_VOCAB_SIZE, 0, "task vocabulary", err);
}

int repo_task_map_vocab(const Tokenizer *tok, int *map)
{
    int missing = 0;
    for (int id = 0; id < REPO_VOCAB_SIZE; id++) {
        char w[16];
        repo_task_word(id, w, sizeof w);
        int found = id < TOK_N_SPECIAL ? id : tokenizer_lookup(tok, w, strlen(w));
        if (found < 0) missing++;
        map[id] = found < 0 ? TOK_UNK : found;
    }
    return missing;
}

void repo_task_write_words(FILE *out, const int *ids, int n)
{
    for (int i = 0; i < n; i++) {
        char w[16];
        repo_task_word(ids[i], w, sizeof w);
        fprintf(out, i ? " %s" : "%s", w);
    }
}

/* ---- specs ------------------------------------------------------------------ */

RepoTaskSpec repo_task_defaults(RepoTaskKind kind, int length)
{
    return (RepoTaskSpec){.kind = kind, .length = length, .depth = -1.0, .n_pairs = 4,
                          .n_rows = 3, .n_cols = 3, .n_queries = 1};
}

int repo_task_parse(const char *text, RepoTaskKind *out)
{
    static const char *const names[] = {"kv", "needle", "table"};
    for (int i = 0; i < 3; i++)
        if (strcmp(text, names[i]) == 0) {
            *out = (RepoTaskKind)i;
            return 0;
        }
    return -1;
}

const char *repo_task_name(RepoTaskKind kind)
{
    switch (kind) {
    case REPO_TASK_KV: return "kv";
    case REPO_TASK_NEEDLE: return "needle";
    case REPO_TASK_TABLE: return "table";
    }
    return "?";
}

/* Tokens of one query: "? k =" or "? r c =". */
static int query_len(const RepoTaskSpec *s)
{
    return s->kind == REPO_TASK_TABLE ? 4 : 3;
}

/* Tokens of the queries and the answers between them. */
static int queries_len(const RepoTaskSpec *s)
{
    return s->n_queries * query_len(s) + (s->n_queries - 1);
}

/* Pairs of a kv or needle spec. */
static int pairs_of(const RepoTaskSpec *s)
{
    return s->kind == REPO_TASK_NEEDLE ? 1 : s->n_pairs;
}

/* Tokens of the table block: header and rows. */
static int table_len(const RepoTaskSpec *s)
{
    return (s->n_cols + 2) + s->n_rows * (s->n_cols + 3);
}

int repo_task_min_length(const RepoTaskSpec *s)
{
    int evidence = s->kind == REPO_TASK_TABLE ? table_len(s) : 4 * pairs_of(s);
    return 1 + evidence + queries_len(s);
}

int repo_task_check(const RepoTaskSpec *s, SrError *err)
{
    const char *name = repo_task_name(s->kind);
    if (s->kind != REPO_TASK_KV && s->kind != REPO_TASK_NEEDLE && s->kind != REPO_TASK_TABLE)
        return sr_fail(err, "unknown task kind %d", (int)s->kind);
    if (!(s->depth <= 1.0))
        return sr_fail(err, "%s depth %g is outside 0..1 (negative = random)", name, s->depth);
    if (s->n_queries < 1) return sr_fail(err, "%s needs at least 1 query, got %d", name, s->n_queries);
    if (s->kind == REPO_TASK_KV) {
        if (s->n_pairs < 1 || s->n_pairs > REPO_N_KEYS)
            return sr_fail(err, "kv pairs %d is outside 1..%d (the task's keys)", s->n_pairs,
                           REPO_N_KEYS);
        if (s->n_queries > s->n_pairs)
            return sr_fail(err, "kv asks %d queries of %d pairs: at most one query per pair",
                           s->n_queries, s->n_pairs);
    } else if (s->kind == REPO_TASK_NEEDLE) {
        if (s->n_queries != 1)
            return sr_fail(err, "needle has one needle, so exactly 1 query, got %d", s->n_queries);
    } else {
        if (s->n_rows < 1 || s->n_rows > REPO_N_ROWS)
            return sr_fail(err, "table rows %d is outside 1..%d (the task's row names)", s->n_rows,
                           REPO_N_ROWS);
        if (s->n_cols < 1 || s->n_cols > REPO_N_COLS)
            return sr_fail(err, "table columns %d is outside 1..%d (the task's column names)",
                           s->n_cols, REPO_N_COLS);
        if (s->n_queries > REPO_N_KEYS)
            return sr_fail(err, "table asks %d queries: at most %d", s->n_queries, REPO_N_KEYS);
    }
    int need = repo_task_min_length(s);
    if (s->length < need) {
        if (s->kind == REPO_TASK_TABLE)
            return sr_fail(err, "table length %d is too short for %d rows x %d columns and %d "
                           "queries: at least %d tokens", s->length, s->n_rows, s->n_cols,
                           s->n_queries, need);
        return sr_fail(err, "%s length %d is too short for %d pair%s and %d quer%s: at least %d "
                       "tokens", name, s->length, pairs_of(s), pairs_of(s) == 1 ? "" : "s",
                       s->n_queries, s->n_queries == 1 ? "y" : "ies", need);
    }
    if (s->length > REPO_TASK_MAX_LENGTH)
        return sr_fail(err, "%s length %d is too long: at most %d tokens (attention memory grows "
                       "with the square of the length)", name, s->length, REPO_TASK_MAX_LENGTH);
    return 0;
}

/* ---- generation ------------------------------------------------------------- */

/* The random stream of example `index`. */
static void example_rng(Rng *rng, uint64_t seed, long index)
{
    uint64_t state = seed * 0x9E3779B97F4A7C15ULL + (uint64_t)index;
    uint64_t mixed = rng_splitmix64(&state);
    rng_seed(rng, mixed ^ (uint64_t)index);
}

/* n distinct integers of 0..range-1 in random order into out (n <= range <= 64). */
static void distinct(Rng *rng, int range, int n, int *out)
{
    int pool[64];
    for (int i = 0; i < range; i++) pool[i] = i;
    for (int i = 0; i < n; i++) {
        int j = i + (int)rng_below(rng, (uint32_t)(range - i));
        int t = pool[i];
        pool[i] = pool[j];
        pool[j] = t;
        out[i] = pool[i];
    }
}

/* A random filler word. */
static int filler(Rng *rng)
{
    return REPO_FILLER0 + (int)rng_below(rng, REPO_N_FILLER);
}

/* Haystack of the needle task: a filler word, or (one time in four) a
 * stray value word, so that the needle's value is not the only value in
 * sight and finding it takes the key. */
static int hay(Rng *rng)
{
    if (rng_below(rng, 4) == 0) return REPO_VALUE0 + (int)rng_below(rng, REPO_N_VALUES);
    return filler(rng);
}

/* Write `count` key-value pairs (keys[i], values[i]) into ids[start ..
 * start+len), spread out by filler gaps of random sizes (each filler token
 * goes to one of the count+1 gaps uniformly). */
static void place_pairs(Rng *rng, int *ids, int start, int len, const int *keys,
                        const int *values, int count, int haystack)
{
    int gaps[REPO_N_KEYS + 1] = {0};
    int free_tokens = len - 4 * count;
    for (int f = 0; f < free_tokens; f++) gaps[rng_below(rng, (uint32_t)(count + 1))]++;
    int pos = start;
    for (int i = 0; i <= count; i++) {
        for (int g = 0; g < gaps[i]; g++) ids[pos++] = haystack ? hay(rng) : filler(rng);
        if (i == count) break;
        ids[pos++] = REPO_KEY0 + keys[i];
        ids[pos++] = REPO_TOK_EQ;
        ids[pos++] = REPO_VALUE0 + values[i];
        ids[pos++] = REPO_TOK_SEMI;
    }
}

/* Context of a kv or needle example in ids[1 .. 1+ctx): the queried pair at
 * offset s (as close to `want` as the other pairs allow), the rest of the
 * pairs left and right of it. Fills keys (n, the queried one at *target)
 * and values, and returns the offset s. */
static int make_pairs(Rng *rng, int *ids, int ctx, int n, double want, int *keys, int *values,
                      int *target, int haystack)
{
    distinct(rng, REPO_N_KEYS, n, keys);
    for (int i = 0; i < n; i++) values[i] = (int)rng_below(rng, REPO_N_VALUES);
    int span = ctx - 4; /* last possible start */
    int s = (int)lround(want * span);
    /* the nearest start that leaves room for the other n-1 pairs */
    for (int d = 0; d <= span; d++) {
        int cand[2] = {s - d, s + d};
        int found = -1;
        for (int c = 0; c < 2 && found < 0; c++)
            if (cand[c] >= 0 && cand[c] <= span && cand[c] / 4 + (ctx - cand[c] - 4) / 4 >= n - 1)
                found = cand[c];
        if (found >= 0) {
            s = found;
            break;
        }
    }
    int cap_left = s / 4, cap_right = (ctx - s - 4) / 4;
    int lo = n - 1 - cap_right > 0 ? n - 1 - cap_right : 0;
    int hi = n - 1 < cap_left ? n - 1 : cap_left;
    /* each other pair goes left with probability s / span (proportional to the room) */
    int n_left = 0;
    double p_left = span > 0 ? (double)s / span : 0.0;
    for (int i = 0; i < n - 1; i++) n_left += rng_uniform(rng) < p_left;
    if (n_left < lo) n_left = lo;
    if (n_left > hi) n_left = hi;
    place_pairs(rng, ids, 1, s, keys, values, n_left, haystack);
    ids[1 + s] = REPO_KEY0 + keys[n_left];
    ids[2 + s] = REPO_TOK_EQ;
    ids[3 + s] = REPO_VALUE0 + values[n_left];
    ids[4 + s] = REPO_TOK_SEMI;
    place_pairs(rng, ids, 5 + s, ctx - s - 4, keys + n_left + 1, values + n_left + 1,
                n - 1 - n_left, haystack);
    *target = n_left;
    return s;
}

/* Context of a table example in ids[1 .. 1+ctx): filler, header, rows,
 * filler. The queried row q is the one whose start comes nearest to offset
 * `want` (random among the rows that reach it exactly). Fills row names
 * (n_rows) and cells (n_rows x n_cols); returns the queried row's offset. */
static int make_table(Rng *rng, const RepoTaskSpec *sp, int *ids, int ctx, double want,
                      int *rows, int *cells, int *q_out)
{
    int nr = sp->n_rows, nc = sp->n_cols, head = nc + 2, row_len = nc + 3;
    int free_tokens = ctx - table_len(sp);
    distinct(rng, REPO_N_ROWS, nr, rows);
    for (int i = 0; i < nr * nc; i++) cells[i] = (int)rng_below(rng, REPO_N_VALUES);
    int target = (int)lround(want * (ctx - row_len));
    int exact[REPO_N_ROWS], n_exact = 0, best_q = 0, best_miss = -1, best_before = 0;
    for (int q = 0; q < nr; q++) {
        int before = target - head - q * row_len; /* filler before the table */
        int clamped = before < 0 ? 0 : before > free_tokens ? free_tokens : before;
        int miss = abs(clamped - before);
        if (miss == 0) exact[n_exact++] = q;
        if (best_miss < 0 || miss < best_miss) {
            best_miss = miss;
            best_q = q;
            best_before = clamped;
        }
    }
    int q = best_q, before = best_before;
    if (n_exact > 0) {
        q = exact[rng_below(rng, (uint32_t)n_exact)];
        before = target - head - q * row_len;
    }
    int pos = 1;
    for (int f = 0; f < before; f++) ids[pos++] = filler(rng);
    ids[pos++] = REPO_TOK_BAR;
    for (int c = 0; c < nc; c++) ids[pos++] = REPO_COL0 + c;
    ids[pos++] = REPO_TOK_SEMI;
    for (int r = 0; r < nr; r++) {
        ids[pos++] = REPO_ROW0 + rows[r];
        ids[pos++] = REPO_TOK_BAR;
        for (int c = 0; c < nc; c++) ids[pos++] = REPO_VALUE0 + cells[r * nc + c];
        ids[pos++] = REPO_TOK_SEMI;
    }
    for (int f = 0; f < free_tokens - before; f++) ids[pos++] = filler(rng);
    *q_out = q;
    return before + head + q * row_len;
}

void repo_task_example(const RepoTaskSpec *s, uint64_t seed, long index, int *ids, int *targets,
                       RepoExample *info)
{
    Rng rng;
    example_rng(&rng, seed, index);
    int T = s->length;
    int ctx = T - 1 - queries_len(s);
    for (int t = 0; t < T; t++) targets[t] = -1;
    ids[0] = TOK_BOS;
    double want = s->depth >= 0.0 ? s->depth : rng_uniform(&rng);
    RepoExample ex = {0};
    ex.context_start = 1;
    ex.context_len = ctx;
    int pos = 1 + ctx;
    if (s->kind == REPO_TASK_TABLE) {
        int rows[REPO_N_ROWS], cells[REPO_N_ROWS * REPO_N_COLS], q;
        int offset = make_table(&rng, s, ids, ctx, want, rows, cells, &q);
        ex.evidence_start = 1 + offset;
        ex.evidence_len = s->n_cols + 3;
        for (int k = 0; k < s->n_queries; k++) {
            int r = k == 0 ? q : (int)rng_below(&rng, (uint32_t)s->n_rows);
            int c = (int)rng_below(&rng, (uint32_t)s->n_cols);
            int answer = REPO_VALUE0 + cells[r * s->n_cols + c];
            if (k > 0) { /* the previous query's answer */
                ids[pos] = targets[pos - 1];
                pos++;
            }
            ids[pos++] = REPO_TOK_QUERY;
            ids[pos++] = REPO_ROW0 + rows[r];
            ids[pos++] = REPO_COL0 + c;
            ids[pos++] = REPO_TOK_EQ;
            targets[pos - 1] = answer;
            if (k == 0) {
                ex.answer_pos = pos - 1;
                ex.answer = answer;
            }
        }
    } else {
        int n = pairs_of(s), keys[REPO_N_KEYS], values[REPO_N_KEYS], target;
        int offset = make_pairs(&rng, ids, ctx, n, want, keys, values, &target,
                                s->kind == REPO_TASK_NEEDLE);
        ex.evidence_start = 1 + offset;
        ex.evidence_len = 4;
        /* the first query asks the placed pair, the others distinct other pairs */
        int order[REPO_N_KEYS];
        distinct(&rng, n, n, order);
        int next = 0;
        for (int k = 0; k < s->n_queries; k++) {
            int p = target;
            if (k > 0) {
                while (order[next] == target) next++;
                p = order[next++];
            }
            if (k > 0) { /* the previous query's answer */
                ids[pos] = targets[pos - 1];
                pos++;
            }
            ids[pos++] = REPO_TOK_QUERY;
            ids[pos++] = REPO_KEY0 + keys[p];
            ids[pos++] = REPO_TOK_EQ;
            targets[pos - 1] = REPO_VALUE0 + values[p];
            if (k == 0) {
                ex.answer_pos = pos - 1;
                ex.answer = REPO_VALUE0 + values[p];
            }
        }
    }
    int room = ctx - ex.evidence_len;
    ex.depth = room > 0 ? (double)(ex.evidence_start - 1) / room : 0.0;
    ex.n_targets = s->n_queries;
    if (info) *info = ex;
}
