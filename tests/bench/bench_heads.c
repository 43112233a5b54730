/* bench_heads.c — how long `seqrep heads` takes to measure the head roles of
 * 619 NLU++ sentences at r = 1 (see bench.h; issue 29's targets: under 30 s
 * on the house LM, under 5 minutes on a SmolLM2-135M-shaped folder).
 *
 * What is timed is what the command runs after loading (theory/head_roles.h:
 * head_roles_measure): every sentence repeated k = 2 times with <bos> per
 * copy, no <sep>, positions running on (the command's defaults), one forward
 * each that keeps every layer's attention maps, then theory/heads.h's scores
 * of every layer and head. No logits (that is --random's ICL score). Random
 * weights: the time does not depend on what they know. Creating the model
 * and drawing its weights are not timed; the peak RSS is the whole child's.
 *
 * The sentences: NLU++ test (results/data/nlupp/test.conll, made by
 * `seqrep import-nlupp`) when the file is there, one piece per CoNLL word
 * (its id an FNV-1a hash of the word into the 8,000 house ids: the bench has
 * no tokenizer; the house BPE cuts a few words into more pieces); else
 * synthetic sentences of exactly NLU++ test's word counts (the table below),
 * in an order and with ids drawn with a fixed seed. Either way the repeated
 * inputs have the same lengths, so the times are comparable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fnv1a.h"
#include "base/rng.h"
#include "bench.h"
#include "engine/memory_floor.h"
#include "engine/threads.h"
#include "text/words.h"
#include "theory/head_roles.h"
#include "theory/repeated_forward.h"

static const char *NLUPP_TEST = "results/data/nlupp/test.conll";

enum { HOUSE_IDS = 8000, SYNTHETIC_SEED = 29 };

/* NLU++ test by words per sentence ({words, sentences}): 619 sentences,
 * 5,953 words (counted in results/data/nlupp/test.conll). */
static const int NLUPP_TEST_LENGTHS[][2] = {
    {1, 2},   {2, 21},  {3, 23},  {4, 28},  {5, 37},  {6, 52},  {7, 56},  {8, 64},
    {9, 60},  {10, 62}, {11, 34}, {12, 33}, {13, 31}, {14, 28}, {15, 21}, {16, 14},
    {17, 14}, {18, 12}, {19, 5},  {20, 5},  {21, 5},  {22, 5},  {23, 1},  {27, 1},
    {29, 2},  {30, 2},  {31, 1},
};
enum { N_LENGTHS = (int)(sizeof NLUPP_TEST_LENGTHS / sizeof NLUPP_TEST_LENGTHS[0]) };

/* The piece id of one word: a hash into the house's plain ids. */
static int word_piece(const char *word, size_t len)
{
    return TOK_N_SPECIAL + (int)(fnv1a_bytes(word, len) % (uint64_t)(HOUSE_IDS - TOK_N_SPECIAL));
}

/* The sentences of path, one piece per space-separated word, into *out.
 * 0, or -1 when the file cannot be read (out is then empty). */
static int nlupp_sentences(const char *path, PieceSentences *out)
{
    PieceSentences text;
    SrError err;
    memset(out, 0, sizeof *out);
    if (piece_sentences_read(path, 0, 0, &text, &err)) return -1;
    int rc = 0;
    for (int s = 0; rc == 0 && s < text.n; s++) {
        const char *p = text.items[s].text;
        int n = 0, *ids = malloc(sizeof(int) * (strlen(p) / 2 + 1));
        while (ids && *p) {
            size_t len = strcspn(p, " ");
            if (len) ids[n++] = word_piece(p, len);
            p += len + (p[len] == ' ');
        }
        rc = !ids || piece_sentences_add(out, ids, n, text.items[s].line, &err) ? -1 : 0;
        free(ids);
    }
    piece_sentences_free(&text);
    if (rc) piece_sentences_free(out);
    return rc;
}

/* Synthetic sentences with NLU++ test's word counts (NLUPP_TEST_LENGTHS),
 * shuffled, of uniform random plain house ids, into *out. 0 or -1. */
static int synthetic_sentences(PieceSentences *out)
{
    int n_sentences = 0;
    for (int i = 0; i < N_LENGTHS; i++) n_sentences += NLUPP_TEST_LENGTHS[i][1];
    int *lengths = malloc(sizeof(int) * (size_t)n_sentences), ids[64], k = 0;
    if (!lengths) return -1;
    for (int i = 0; i < N_LENGTHS; i++)
        for (int j = 0; j < NLUPP_TEST_LENGTHS[i][1]; j++) lengths[k++] = NLUPP_TEST_LENGTHS[i][0];
    Rng rng;
    rng_seed(&rng, SYNTHETIC_SEED);
    for (int i = n_sentences - 1; i > 0; i--) {
        int j = (int)rng_below(&rng, (uint32_t)(i + 1)), t = lengths[i];
        lengths[i] = lengths[j], lengths[j] = t;
    }
    memset(out, 0, sizeof *out);
    SrError err;
    int rc = 0;
    for (int s = 0; rc == 0 && s < n_sentences; s++) {
        for (int j = 0; j < lengths[s]; j++)
            ids[j] = TOK_N_SPECIAL + (int)rng_below(&rng, HOUSE_IDS - TOK_N_SPECIAL);
        rc = piece_sentences_add(out, ids, lengths[s], s + 1, &err);
    }
    free(lengths);
    return rc;
}

typedef struct {
    const char *name;
    ModelConfig cfg;
    double target_s;
    const PieceSentences *sentences;
    int threads;
} HeadsJob;

typedef struct {
    double seconds, n_params, positions, n_sentences;
} HeadsSpeed;

/* How `heads` runs a sentence by default: r = 1, <bos> per copy, no <sep>,
 * positions running on, the house ids of <bos> and <sep>, causal. */
static RepeatedForward heads_setup(void)
{
    return (RepeatedForward){.r = 1, .bos = REPEAT_BOS_PER_COPY, .sep = REPEAT_SEP_NONE,
                             .copy_positions = REPEAT_POSITIONS_RUN, .ids = repeat_ids_house()};
}

/* In the child: the time of head_roles_measure over every sentence, and the
 * mean repeated length. Checks that the scores are over every last-copy
 * piece. 0 or -1. */
static int time_heads(const void *arg, void *result)
{
    const HeadsJob *job = arg;
    HeadsSpeed *out = result;
    threads_set(job->threads);
    RepeatedForward setup = heads_setup();
    RepeatedFit fit;
    repeated_forward_fit(job->sentences, &setup, job->cfg.max_seq_len, &fit);
    Model m;
    HeadRoles roles;
    SrError err;
    if (fit.n_fit != job->sentences->n ||
        model_create(&m, &job->cfg, 1, fit.max_T, &err)) {
        fprintf(stderr, "bench: heads %s: %s\n", job->name,
                fit.n_fit != job->sentences->n ? "a sentence does not fit" : err.msg);
        return -1;
    }
    model_init_weights(&m, 1);
    int rc = head_roles_init(&roles, job->cfg.n_layers, job->cfg.n_heads, 0, &err);
    double start = bench_now();
    if (rc == 0)
        rc = head_roles_measure(&m, &setup, job->sentences, fit.max_n, "bench", &roles, &err);
    out->seconds = bench_now() - start;
    long long pieces = 0, positions = 0;
    for (int s = 0; s < job->sentences->n; s++) {
        pieces += job->sentences->items[s].n;
        positions += repeat_length(job->sentences->items[s].n, setup.r, setup.bos, setup.sep);
    }
    if (rc == 0 && head_scores_count(&roles.scores, job->cfg.n_layers - 1, 0, HEAD_OWN_COPY) != pieces)
        rc = sr_fail(&err, "scores over %lld queries, not the %lld last-copy pieces",
                     (long long)head_scores_count(&roles.scores, job->cfg.n_layers - 1, 0,
                                                  HEAD_OWN_COPY), pieces);
    if (rc) fprintf(stderr, "bench: heads %s: %s\n", job->name, err.msg);
    out->n_params = (double)m.n_params;
    out->positions = (double)positions / job->sentences->n;
    out->n_sentences = job->sentences->n;
    head_roles_free(&roles), model_free(&m);
    return rc;
}

/* "within target" or "over target by X s (Y x)" into out. */
static void verdict(double seconds, double target_s, char *out, size_t size)
{
    if (seconds <= target_s) snprintf(out, size, "within target");
    else snprintf(out, size, "over target by %.1f s (%.2fx)", seconds - target_s, seconds / target_s);
}

int bench_heads_table(int threads)
{
    PieceSentences sentences;
    const char *source = "NLU++ test (results/data/nlupp/test.conll), one piece per word";
    if (nlupp_sentences(NLUPP_TEST, &sentences)) {
        source = "synthetic: NLU++ test's word counts, random ids (seed 29)";
        if (synthetic_sentences(&sentences)) return 1;
    }
    const HeadsJob jobs[] = {
        {.name = "house", .cfg = bench_house_shape(), .target_s = 30.0, .sentences = &sentences,
         .threads = threads},
        {.name = "smollm2-135m", .cfg = bench_smollm2_shape(), .target_s = 300.0,
         .sentences = &sentences, .threads = threads},
    };
    printf("heads: head roles at r = 1 (<bos> per copy; forward with attention maps + scores), "
           "random weights\nsentences: %s\n", source);
    printf("%-13s %6s %9s %8s %9s %8s %9s %7s  %s\n", "shape", "params", "sentences", "pos/sent",
           "seconds", "sent/s", "RSS MiB", "target", "");
    int failed = 0;
    for (int j = 0; j < (int)(sizeof jobs / sizeof jobs[0]); j++) {
        HeadsSpeed sp;
        double rss;
        if (bench_in_child(time_heads, &jobs[j], &sp, sizeof sp, &rss)) {
            failed = 1;
            continue;
        }
        char said[64];
        verdict(sp.seconds, jobs[j].target_s, said, sizeof said);
        printf("%-13s %5.1fM %9.0f %8.1f %9.2f %8.1f %9.0f %6.0fs  %s\n", jobs[j].name,
               sp.n_params / 1e6, sp.n_sentences, sp.positions, sp.seconds,
               sp.n_sentences / sp.seconds, bytes_to_mib(rss), jobs[j].target_s, said);
        fflush(stdout);
    }
    printf("pos/sent: mean tokens of the repeated input (2 copies of the pieces, a <bos> each)\n\n");
    piece_sentences_free(&sentences);
    return failed;
}
