/* test_repo_eval.c — the RePo experiment library: accuracy counted on
 * hand-made logits and on a hand-built model whose answer is known, position
 * plans, const = nope bit for bit, attention mass on the needle of a model
 * that attends uniformly, the copy statistics of a repeated sentence, weight
 * copying for continued pre-training, the error for RePo asked of a
 * checkpoint without RePo weights, and the figure data read back by the
 * painters of viz/repo/paint_repo.h (quartile clipping, tables, drawing). */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cairo.h>

#include "engine/model.h"
#include "engine/threads.h"
#include "formats/checkpoint.h"
#include "repeat/repeat.h"
#include "repo/paint_repo.h"
#include "repo/repo_eval.h"
#include "repo/repo_tasks.h"

/* fontconfig (under cairo's text, drawn by the painters) keeps allocations it
 * never frees; tell LeakSanitizer (ASan builds) that they are not ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libfontconfig.so\n";
}

/* A tiny model on the task vocabulary (weights Normal(0, 0.02) from seed). */
static void tiny_model(Model *m, RepoMethod method, int layers, int max_batch, int max_T,
                       unsigned long long seed)
{
    ModelConfig c = {.vocab_size = REPO_VOCAB_SIZE, .d_model = 16, .n_layers = layers,
                     .n_heads = 2, .d_ff = 24, .max_seq_len = max_T, .rope_theta = 10000.0f,
                     .norm_eps = 1e-5f, .tied = 1};
    SrError err;
    assert_int_equal(repo_method_config(method, -1, &c, &err), 0);
    if (model_create(m, &c, max_batch, max_T, &err)) fail_msg("%s", err.msg);
    model_init_weights(m, seed);
}

static void test_count_correct_on_hand_made_logits(void **state)
{
    (void)state;
    /* B = 3 rows, T = 2, V = 4; the answer is read at position 1 of rows 0 and 2, 0 of row 1 */
    float logits[3 * 2 * 4] = {
        9, 9, 9, 9,   0, 0, 5, 1,   /* row 0: argmax at t=1 is 2 */
        1, 3, 3, 0,   7, 0, 0, 0,   /* row 1: at t=0 a tie of 1 and 2: the first (1) wins */
        0, 0, 0, 0,   -1, -2, -3, -0.5f, /* row 2: at t=1 argmax 3 */
    };
    int pos[3] = {1, 0, 1};
    int right[3] = {2, 1, 3}, wrong[3] = {3, 2, 0}, mixed[3] = {2, 2, 3};
    assert_int_equal(repo_count_correct(logits, 3, 2, 4, pos, right), 3);
    assert_int_equal(repo_count_correct(logits, 3, 2, 4, pos, wrong), 0);
    assert_int_equal(repo_count_correct(logits, 3, 2, 4, pos, mixed), 2);
    int unknown[3] = {-1, 1, -1}; /* answers the vocabulary lacks never count */
    assert_int_equal(repo_count_correct(logits, 3, 2, 4, pos, unknown), 1);
}

/* A model that, after "=", always says value `v`: every matrix zero, so the
 * residual stream is the embedding; the embedding of "=" points along e0 and
 * value v along 2 e0, value w along e0 (less), every other word is zero. */
static void fixed_answer_model(Model *m, RepoMethod method, int v, int w)
{
    tiny_model(m, method, 2, 4, 48, 1);
    for (int id = 0; id < PARAM_COUNT; id++) /* every weight zero but the norms */
        if (!param_spec((ParamId)id)->norm && id != PARAM_WLM)
            memset(*param_view(&m->p, (ParamId)id), 0,
                   param_floats(&m->cfg, (ParamId)id, 0) * sizeof(float));
    int C = m->cfg.d_model;
    m->p.wte[(size_t)REPO_TOK_EQ * C] = 1.0f;
    m->p.wte[(size_t)(REPO_VALUE0 + v) * C] = 2.0f;
    m->p.wte[(size_t)(REPO_VALUE0 + w) * C] = 1.0f;
}

static void test_accuracy_of_a_model_with_a_known_answer(void **state)
{
    (void)state;
    RepoTaskSpec s = repo_task_defaults(REPO_TASK_KV, 48);
    s.n_pairs = 4;
    int n = 200, expected = 0, ids[48], targets[48];
    for (long i = 0; i < n; i++) {
        RepoExample ex;
        repo_task_example(&s, 5, i, ids, targets, &ex);
        expected += ex.answer == REPO_VALUE0 + 3;
    }
    assert_true(expected > 0 && expected < n); /* the case says something */
    RepoMethod methods[] = {REPO_METHOD_ROPE, REPO_METHOD_NOPE, REPO_METHOD_CONST,
                            REPO_METHOD_HYBRID, REPO_METHOD_REPO};
    for (int k = 0; k < 5; k++) {
        Model m;
        fixed_answer_model(&m, methods[k], 3, 9);
        long correct = -1;
        SrError err;
        assert_int_equal(repo_evaluate(&m, methods[k], &s, 5, n, NULL, &correct, &err), 0);
        assert_int_equal(correct, expected);
        /* through a map that lacks v3, nothing is right any more */
        int map[REPO_VOCAB_SIZE];
        for (int id = 0; id < REPO_VOCAB_SIZE; id++) map[id] = id;
        map[REPO_VALUE0 + 3] = TOK_UNK;
        assert_int_equal(repo_evaluate(&m, methods[k], &s, 5, n, map, &correct, &err), 0);
        assert_int_equal(correct, 0);
        model_free(&m);
    }
}

static void test_plans_of_the_methods(void **state)
{
    (void)state;
    ModelConfig c = {.n_layers = 6};
    PosKind plan[6];
    SrError err;
    assert_int_equal(repo_default_from(4), 2);
    assert_int_equal(repo_default_from(6), 2);
    assert_int_equal(repo_default_from(7), 3);
    assert_int_equal(repo_default_from(1), 0);
    repo_method_plan(REPO_METHOD_HYBRID, &c, plan);
    for (int l = 0; l < 6; l++) assert_int_equal(plan[l], l % 2 ? POS_NONE : POS_ROPE);
    repo_method_plan(REPO_METHOD_NOPE, &c, plan);
    for (int l = 0; l < 6; l++) assert_int_equal(plan[l], POS_NONE);
    repo_method_plan(REPO_METHOD_CONST, &c, plan);
    for (int l = 0; l < 6; l++) assert_int_equal(plan[l], POS_ROPE);
    assert_true(repo_method_zero_positions(REPO_METHOD_CONST));
    assert_false(repo_method_zero_positions(REPO_METHOD_ROPE));
    assert_int_equal(repo_method_config(REPO_METHOD_REPO, -1, &c, &err), 0);
    assert_int_equal(c.repo, 1);
    assert_int_equal(c.repo_from, 2);
    repo_method_plan(REPO_METHOD_REPO, &c, plan);
    for (int l = 0; l < 6; l++) assert_int_equal(plan[l], l >= 2 ? POS_REPO : POS_ROPE);
    assert_int_equal(repo_method_config(REPO_METHOD_REPO, 5, &c, &err), 0);
    assert_int_equal(c.repo_from, 5);
    assert_int_equal(repo_method_config(REPO_METHOD_REPO, 6, &c, &err), -1);
    assert_non_null(strstr(err.msg, "repo-from 6 is outside 0..5"));
    assert_int_equal(repo_method_config(REPO_METHOD_ROPE, -1, &c, &err), 0);
    assert_int_equal(c.repo, 0);

    RepoMethod list[REPO_N_METHODS];
    int n;
    assert_int_equal(repo_method_list_parse("rope,repo,nope", list, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(list[1], REPO_METHOD_REPO);
    assert_int_equal(repo_method_list_parse("rope,rope", list, &n, &err), -1);
    assert_non_null(strstr(err.msg, "'rope' twice"));
    assert_int_equal(repo_method_list_parse("rope,alibi", list, &n, &err), -1);
    assert_non_null(strstr(err.msg, "unknown method 'alibi'"));
    assert_int_equal(repo_method_list_parse("rope,", list, &n, &err), -1);
}

static void test_const_is_nope_bit_for_bit(void **state)
{
    (void)state;
    Model m;
    tiny_model(&m, REPO_METHOD_ROPE, 2, 2, 30, 3);
    for (size_t i = 0; i < m.n_params; i++) m.params[i] *= 20.0f; /* attention far from uniform */
    RepoTaskSpec s = repo_task_defaults(REPO_TASK_KV, 30);
    s.n_pairs = 4;
    int ids[60], targets[60];
    repo_task_example(&s, 1, 0, ids, targets, NULL);
    repo_task_example(&s, 1, 1, ids + 30, targets + 30, NULL);
    size_t n_logits = (size_t)2 * 30 * REPO_VOCAB_SIZE;
    float *logits[3];
    RepoMethod methods[3] = {REPO_METHOD_NOPE, REPO_METHOD_CONST, REPO_METHOD_ROPE};
    for (int k = 0; k < 3; k++) {
        RepoRun run;
        SrError err;
        assert_int_equal(repo_run_init(&run, methods[k], &m, &err), 0);
        ModelInput in = {.B = 2, .T = 30, .ids = ids, .want_logits = 1};
        repo_run_apply(&run, &in);
        assert_int_equal(model_forward(&m, &in, &err), 0);
        logits[k] = malloc(n_logits * sizeof(float));
        memcpy(logits[k], m.a.logits, n_logits * sizeof(float));
        repo_run_free(&run);
    }
    assert_memory_equal(logits[0], logits[1], n_logits * sizeof(float));
    assert_true(memcmp(logits[0], logits[2], n_logits * sizeof(float)) != 0); /* RoPE differs */
    for (int k = 0; k < 3; k++) free(logits[k]);
    model_free(&m);
}

static void test_needle_attention_of_a_uniform_model(void **state)
{
    (void)state;
    /* all-zero projections: every score is 0, so attention is uniform over the
     * visible keys and the mass on any span is its length / (query + 1) */
    Model m;
    fixed_answer_model(&m, REPO_METHOD_REPO, 1, 2);
    RepoTaskSpec s = repo_task_defaults(REPO_TASK_NEEDLE, 40);
    s.depth = 0.5;
    double needle[2], near[2], near_tokens;
    SrError err;
    assert_int_equal(repo_needle_attention(&m, REPO_METHOD_REPO, &s, 3, 5, 4, NULL, needle, near,
                                           &near_tokens, &err), 0);
    for (int l = 0; l < 2; l++) {
        assert_true(fabs(needle[l] - 4.0 / 40.0) < 1e-6);
        assert_true(fabs(near[l] - 8.0 / 40.0) < 1e-6);
    }
    assert_true(fabs(near_tokens - 8.0) < 1e-12);
    /* at depth 0 the needle has no left neighbours: 4 on the right only */
    s.depth = 0.0;
    assert_int_equal(repo_needle_attention(&m, REPO_METHOD_ROPE, &s, 3, 5, 4, NULL, needle, near,
                                           &near_tokens, &err), 0);
    assert_true(fabs(near_tokens - 4.0) < 1e-12);
    assert_true(fabs(near[1] - 4.0 / 40.0) < 1e-6);
    model_free(&m);
}

static void test_repeat_stats_of_integer_positions(void **state)
{
    (void)state;
    int words[3] = {10, 11, 12};
    RepeatLayout lay;
    SrError err;
    assert_int_equal(repeat_build(words, 3, 2, REPEAT_BOS_NONE, REPEAT_SEP_NONE, 0, &lay, &err), 0);
    RepoRepeatStats st;
    repo_repeat_stats_index(&lay, &st); /* positions 0..8, copies 3 apart */
    assert_true(fabs(st.same_word_gap - 4.0) < 1e-12); /* (3 + 6 + 3) / 3 */
    assert_true(fabs(st.first_gap - 4.5) < 1e-12);     /* (3 + 6) / 2 */
    assert_true(fabs(st.later_gap - 3.0) < 1e-12);
    assert_true(fabs(st.copy_shift - 3.0) < 1e-12);
    assert_true(fabs(st.copy_extent - 2.0) < 1e-12);
    assert_true(fabs(st.overlap) < 1e-12);
    assert_true(fabs(st.z_spread - sqrt(60.0 / 9.0)) < 1e-12);
    repeat_free(&lay);
}

static void test_z_range_and_repeat_stats_read_the_model(void **state)
{
    (void)state;
    Model m;
    tiny_model(&m, REPO_METHOD_REPO, 2, 1, 20, 4);
    for (size_t i = 0; i < m.n_params; i++) m.params[i] *= 50.0f;
    int words[4] = {REPO_KEY0, REPO_KEY0 + 1, REPO_TOK_EQ, REPO_VALUE0};
    RepeatLayout lay;
    SrError err;
    assert_int_equal(repeat_build(words, 4, 2, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, 20, &lay,
                                  &err), 0);
    ModelInput in = {.B = 1, .T = lay.T, .ids = lay.ids, .positions = lay.positions};
    assert_int_equal(model_forward(&m, &in, &err), 0);
    double range[2], most[2];
    repo_z_range(&m, range, most);
    assert_true(isnan(range[0]) && isnan(most[0])); /* layer 0 is a RoPE layer */
    const float *z = model_repo_positions(&m, 1);
    double r_sum = 0.0, r_max = 0.0;
    for (int h = 0; h < 2; h++) {
        float lo = z[h], hi = z[h];
        for (int t = 0; t < lay.T; t++) {
            lo = fminf(lo, z[t * 2 + h]);
            hi = fmaxf(hi, z[t * 2 + h]);
        }
        r_sum += hi - lo;
        r_max = fmax(r_max, hi - lo);
    }
    assert_true(range[1] > 0.0);
    assert_true(fabs(range[1] - r_sum / 2) < 1e-6);
    assert_true(fabs(most[1] - r_max) < 1e-6);
    RepoRepeatStats st;
    repo_repeat_stats(&m, 1, 1, &lay, &st);
    double gap = 0.0;
    for (int i = 0; i < 4; i++)
        for (int a = 0; a < 3; a++)
            for (int b = a + 1; b < 3; b++)
                gap += fabsf(z[(lay.copy_start[b] + i) * 2 + 1] - z[(lay.copy_start[a] + i) * 2 + 1]);
    assert_true(test_rel_diff(st.same_word_gap, gap / 12.0, 1e-6) < 1e-5);
    assert_true(st.z_spread > 0.0 && st.overlap >= 0.0 && st.overlap <= 1.0);

    /* the z CSV has a header and one line per RePo layer, head and token */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    Tokenizer tok;
    assert_int_equal(repo_task_tokenizer(&tok, &err), 0);
    repo_write_z_csv(f, &m, 0, lay.ids, lay.T, &tok, &lay, 1);
    fclose(f);
    int lines = 0;
    for (char *c = text; *c; c++) lines += *c == '\n';
    assert_int_equal(lines, 1 + 2 * lay.T);
    assert_non_null(strstr(text, "layer,head,index,token,copy,word,z\n1,0,0,<bos>,-1,-1,"));
    assert_non_null(strstr(text, "\n1,0,1,k0,0,0,"));
    free(text);
    tokenizer_free(&tok);
    repeat_free(&lay);
    model_free(&m);
}

static void test_training_lowers_the_answer_loss(void **state)
{
    (void)state;
    Model m;
    tiny_model(&m, REPO_METHOD_REPO, 1, 4, 24, 6);
    RepoTaskSpec s = repo_task_defaults(REPO_TASK_KV, 24);
    s.n_pairs = 2;
    s.n_queries = 2;
    RepoTrainOptions o = repo_train_defaults();
    o.steps = 1;
    o.batch = 4;
    o.warmup = 0;
    float first, last;
    SrError err;
    assert_int_equal(repo_train(&m, REPO_METHOD_REPO, &s, &o, NULL, &first, &err), 0);
    assert_true(fabsf(first - logf(REPO_VOCAB_SIZE)) < 0.2f); /* untrained: about uniform */
    o.steps = 40;
    o.lr = 1e-2f;
    assert_int_equal(repo_train(&m, REPO_METHOD_REPO, &s, &o, NULL, &last, &err), 0);
    assert_true(last < first - 0.5f); /* on its way to: answers are values (ln 64 = 4.16) */
    /* too long for the model, or the wrong vocabulary: one clear line */
    s.length = 25;
    assert_int_equal(repo_train(&m, REPO_METHOD_REPO, &s, &o, NULL, &last, &err), -1);
    assert_non_null(strstr(err.msg, "kv length 25 is too long for the model: it was sized for 24"));
    model_free(&m);
}

static void test_copy_shared_weights_and_resize(void **state)
{
    (void)state;
    Model rope, repo, big;
    SrError err;
    tiny_model(&rope, REPO_METHOD_ROPE, 3, 1, 16, 7);
    tiny_model(&repo, REPO_METHOD_REPO, 3, 1, 16, 8);
    size_t shared = rope.n_params;
    float *repo_before = malloc((repo.n_params - shared) * sizeof(float));
    memcpy(repo_before, repo.params + shared, (repo.n_params - shared) * sizeof(float));
    assert_int_equal(repo_copy_shared_weights(&repo, &rope, &err), 0);
    assert_memory_equal(repo.params, rope.params, shared * sizeof(float));
    assert_memory_equal(repo.params + shared, repo_before, (repo.n_params - shared) * sizeof(float));
    free(repo_before);
    assert_int_equal(repo_model_resize(&repo, 2, 64, &big, &err), 0);
    assert_int_equal(big.cfg.max_seq_len, 64);
    assert_int_equal(big.cfg.repo_from, repo.cfg.repo_from);
    assert_memory_equal(big.params, repo.params, repo.n_params * sizeof(float));
    Model other;
    tiny_model(&other, REPO_METHOD_ROPE, 2, 1, 16, 9);
    assert_int_equal(repo_copy_shared_weights(&repo, &other, &err), -1);
    assert_non_null(strstr(err.msg, "layers 3 vs 2"));
    model_free(&other);
    model_free(&big);
    model_free(&repo);
    model_free(&rope);
}

static void test_repo_of_a_checkpoint_without_repo_weights(void **state)
{
    (void)state;
    Model m;
    tiny_model(&m, REPO_METHOD_ROPE, 2, 1, 16, 10);
    Tokenizer tok;
    SrError err;
    assert_int_equal(repo_task_tokenizer(&tok, &err), 0);
    char path[96];
    snprintf(path, sizeof path, "/tmp/repo_eval_test_%d.safetensors", (int)getpid());
    assert_int_equal(checkpoint_save(path, &m, (const char *const *)tok.words, tok.n_words,
                                     "{\"positions\":\"rope\"}", &err), 0);
    Model loaded;
    Tokenizer loaded_tok;
    int trained_len = 0;
    assert_int_equal(repo_load_model(path, REPO_METHOD_REPO, 2, 100, &loaded, &loaded_tok, NULL,
                                     &err), -1);
    assert_non_null(strstr(err.msg, "has no RePo weights"));
    assert_non_null(strstr(err.msg, path));
    /* the same checkpoint under RoPE loads, sized for longer inputs than it was made for */
    assert_int_equal(repo_load_model(path, REPO_METHOD_ROPE, 2, 100, &loaded, &loaded_tok,
                                     &trained_len, &err), 0);
    assert_int_equal(trained_len, 16);
    assert_int_equal(loaded.max_T, 100);
    assert_int_equal(loaded_tok.n_words, REPO_VOCAB_SIZE);
    assert_memory_equal(loaded.params, m.params, m.n_params * sizeof(float));
    model_free(&loaded);
    tokenizer_free(&loaded_tok);
    remove(path);
    tokenizer_free(&tok);
    model_free(&m);
}

static void test_accuracy_csv(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    repo_acc_write_header(f);
    RepoAccRow row = {"kv", "repo", 64, 128, 0.25, 40, 30};
    repo_acc_write_row(f, &row);
    fclose(f);
    assert_string_equal(text, "task,method,train_length,length,depth,n,correct,accuracy\n"
                              "kv,repo,64,128,0.25,40,30,0.7500\n");
    free(text);
}


/* Write text to a new file in /tmp (not the source tree, should a test fail
 * before removing it); its name into path. */
static void write_temp(char *path, size_t cap, const char *stem, const char *text)
{
    snprintf(path, cap, "/tmp/%s_%d.csv", stem, (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Paint with painter p on a small image surface; returns its status. */
static int paint_on_image(int (*p)(cairo_t *, const void *, double, double), const void *d)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 400, 250);
    cairo_t *cr = cairo_create(s);
    int rc = p(cr, d, 400, 250);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    cairo_debug_reset_static_data();
    return rc;
}

static int paint_z(cairo_t *cr, const void *d, double w, double h) { return paint_repo_z(cr, d, w, h); }
static int paint_rep(cairo_t *cr, const void *d, double w, double h) { return paint_repo_repeat(cr, d, w, h); }
static int paint_range(cairo_t *cr, const void *d, double w, double h) { return paint_repo_range(cr, d, w, h); }
static int paint_needle(cairo_t *cr, const void *d, double w, double h) { return paint_repo_needle(cr, d, w, h); }

static void test_z_figure_clips_beyond_the_iqr_fences(void **state)
{
    (void)state;
    double v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, q1, q3;
    repo_quartiles(v, 8, &q1, &q3);
    assert_true(fabs(q1 - 2.75) < 1e-12 && fabs(q3 - 6.25) < 1e-12);
    /* layer 3 head 1: nine tokens near 0..8 and one far outlier; other rows are noise */
    char path[96], text[2048] = "layer,head,index,token,copy,word,z\n2,0,0,<bos>,-1,-1,99\n";
    size_t len = strlen(text);
    for (int t = 0; t < 10; t++)
        len += (size_t)snprintf(text + len, sizeof text - len, "3,1,%d,\"w,%d\",%d,%d,%g\n", t, t,
                                t < 5 ? 0 : 1, t % 5, t == 7 ? 1000.0 : (double)t);
    write_temp(path, sizeof path, "repo_z", text);
    RepoZData d;
    SrError err;
    assert_int_equal(repo_z_data_load(&d, path, -1, 1, &err), 0); /* -1: the last layer */
    assert_int_equal(d.layer, 3);
    assert_int_equal(d.n, 10);
    assert_int_equal(d.n_copies, 2);
    assert_string_equal(d.token[4], "w,4");
    assert_int_equal(d.n_clipped, 1);
    assert_true(d.z[7] == 1000.0 && d.shown[7] == d.hi_fence);
    assert_true(d.hi_fence < 20.0 && d.shown[6] == 6.0);
    assert_int_equal(paint_on_image(paint_z, &d), 0);
    assert_int_equal(paint_on_image(paint_rep, &d), 0);
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    repo_z_data_write_csv(&d, f);
    fclose(f);
    assert_non_null(strstr(out, "index,token,copy,word,z,shown,clipped\n0,\"w,0\",0,0,0,0,0\n"));
    assert_non_null(strstr(out, "\n4,\"w,4\",0,4,4,4,0\n"));
    free(out);
    repo_z_data_free(&d);
    assert_int_equal(repo_z_data_load(&d, path, 3, 5, &err), -1);
    assert_non_null(strstr(err.msg, "no rows for layer 3, head 5 (layers 2..3, heads 0..1)"));
    remove(path);
}

static void test_range_and_needle_figures_read_their_csv(void **state)
{
    (void)state;
    char path[96];
    write_temp(path, sizeof path, "repo_range",
               "task,method,layer,length,z_range_mean,z_range_max,index_range\n"
               "kv,repo,3,64,2.5,4,63\nkv,repo,2,64,1.5,2,63\nkv,repo,2,128,1.75,3,127\n");
    RepoRangeData r;
    SrError err;
    assert_int_equal(repo_range_data_load(&r, path, &err), 0);
    assert_int_equal(r.n_layers, 2);
    assert_int_equal(r.n_lengths, 2);
    assert_int_equal(r.layer[0], 2);
    assert_int_equal(r.length[1], 128);
    assert_true(r.range[0] == 1.5 && r.range[1] == 1.75 && r.range[2] == 2.5 && isnan(r.range[3]));
    assert_int_equal(r.index_range[1], 127);
    assert_int_equal(paint_on_image(paint_range, &r), 0);
    repo_range_data_free(&r);
    remove(path);

    write_temp(path, sizeof path, "repo_needle",
               "task,method,layer,length,needle_mass,needle_tokens,near_mass,near_tokens\n"
               "needle,rope,0,64,0.2,4,0.4,8\nneedle,rope,1,64,0.4,4,0.2,8\n"
               "needle,repo,0,64,0.8,4,0.1,8\nneedle,repo,1,64,0.6,4,0.2,8\n"
               "needle,repo,1,32,0.9,4,0.1,8\n");
    RepoNeedleData nd;
    assert_int_equal(repo_needle_data_load(&nd, path, 0, &err), 0); /* the longest: 64 */
    assert_int_equal(nd.length, 64);
    assert_int_equal(nd.n_methods, 2);
    assert_string_equal(nd.method[1], "repo");
    assert_true(fabs(nd.needle[2] - 0.2) < 1e-12 && fabs(nd.near[2] - 0.0125) < 1e-12);
    assert_int_equal(paint_on_image(paint_needle, &nd), 0);
    repo_needle_data_free(&nd);
    /* empty data draws a notice instead of failing */
    RepoZData ez;
    memset(&ez, 0, sizeof ez);
    ez.meta = figure_meta_default();
    assert_int_equal(paint_on_image(paint_z, &ez), 0);
    assert_int_equal(paint_on_image(paint_rep, &ez), 0);
    RepoRangeData er;
    memset(&er, 0, sizeof er);
    er.meta = figure_meta_default();
    assert_int_equal(paint_on_image(paint_range, &er), 0);
    RepoNeedleData en;
    memset(&en, 0, sizeof en);
    en.meta = figure_meta_default();
    assert_int_equal(paint_on_image(paint_needle, &en), 0);
    assert_int_equal(repo_needle_data_load(&nd, path, 32, &err), -1); /* layer 0 lacks length 32 */
    assert_non_null(strstr(err.msg, "1 of the 2 (method, layer) pairs at length 32 are missing"));
    assert_int_equal(repo_needle_data_load(&nd, path, 16, &err), -1);
    assert_non_null(strstr(err.msg, "no rows at length 16"));
    remove(path);
}

int main(void)
{
    threads_set(1); /* tiny shapes: one thread is fastest and immune to a busy machine */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_correct_on_hand_made_logits),
        cmocka_unit_test(test_accuracy_of_a_model_with_a_known_answer),
        cmocka_unit_test(test_plans_of_the_methods),
        cmocka_unit_test(test_const_is_nope_bit_for_bit),
        cmocka_unit_test(test_needle_attention_of_a_uniform_model),
        cmocka_unit_test(test_repeat_stats_of_integer_positions),
        cmocka_unit_test(test_z_range_and_repeat_stats_read_the_model),
        cmocka_unit_test(test_training_lowers_the_answer_loss),
        cmocka_unit_test(test_copy_shared_weights_and_resize),
        cmocka_unit_test(test_repo_of_a_checkpoint_without_repo_weights),
        cmocka_unit_test(test_accuracy_csv),
        cmocka_unit_test(test_z_figure_clips_beyond_the_iqr_fences),
        cmocka_unit_test(test_range_and_needle_figures_read_their_csv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
