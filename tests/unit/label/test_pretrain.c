/* test_pretrain.c — the pre-training loop of train/pretrain.h: windows of a
 * stream and their shifted targets, the masked-LM corruption rates, a few
 * steps lowering the held-out loss (causal and mlm), the same seed giving
 * the same weights bit for bit, the learning-rate schedule in the progress
 * lines, the caller's positions reaching the model, the held-out loss of
 * a range shorter than a window, and resuming: a run stopped after a save
 * and continued from the saved state ends with the weights of one
 * uninterrupted run, bit for bit (causal and mlm, 1 and 2 threads); the
 * call after every step coming before that step's save. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/adamw.h"
#include "engine/model.h"
#include "engine/threads.h"
#include "text/tokenizer.h"
#include "train/pretrain.h"

enum { VOCAB = 16, T = 8, B = 4, STREAM = 400 };

/* A stream (STREAM) that cycles through the words TOK_N_SPECIAL..VOCAB-1:
 * easy to learn, the next word always follows from the last one. */
static void cycle_stream(int *ids)
{
    for (int i = 0; i < STREAM; i++) ids[i] = TOK_N_SPECIAL + i % (VOCAB - TOK_N_SPECIAL);
}

/* A tiny model (2 layers, width 16) for batches of B x T, weights from seed. */
static void tiny_model(Model *m, unsigned long long seed)
{
    ModelConfig c = {.vocab_size = VOCAB, .d_model = 16, .n_layers = 2, .n_heads = 2,
                     .d_ff = 24, .max_seq_len = T, .rope_theta = 10000.0f, .norm_eps = 1e-5f,
                     .tied = 1};
    SrError err;
    if (model_create(m, &c, B, T, &err)) fail_msg("%s", err.msg);
    model_init_weights(m, seed);
}

/* The configuration of the tests: steps steps of B x T at lr 1e-2. */
static PretrainConfig tiny_config(PretrainObjective objective, int steps, uint64_t seed)
{
    return (PretrainConfig){.objective = objective, .steps = steps, .batch = B, .seq_len = T,
                            .warmup = 2, .lr = 1e-2f, .min_lr = 1e-3f, .weight_decay = 0.1f,
                            .clip = 1.0f, .seed = seed, .progress_every = 5};
}

static void test_stream_windows_and_targets(void **state)
{
    (void)state;
    int stream[STREAM], ids[B * T], targets[B * T];
    for (int i = 0; i < STREAM; i++) stream[i] = i;
    PretrainStream s = {stream, 100, 140};
    Rng rng;
    rng_seed(&rng, 3);
    for (int round = 0; round < 20; round++) {
        pretrain_stream_batch(&s, &rng, round + 1, B, T, ids, targets);
        for (int b = 0; b < B; b++) {
            int first = ids[b * T];
            assert_true(first >= 100 && first + T < 140); /* T + 1 tokens inside [lo, hi) */
            for (int t = 0; t < T; t++) {
                assert_int_equal(ids[b * T + t], first + t);
                assert_int_equal(targets[b * T + t], first + t + 1);
            }
        }
    }
}

static void test_mlm_corruption_rates(void **state)
{
    (void)state;
    enum { N = 20000 };
    int *ids = malloc(sizeof(int) * N), *orig = malloc(sizeof(int) * N),
        *targets = malloc(sizeof(int) * N);
    assert_non_null(ids);
    assert_non_null(orig);
    assert_non_null(targets);
    for (int i = 0; i < N; i++) orig[i] = ids[i] = TOK_N_SPECIAL + i % 50;
    Rng rng;
    rng_seed(&rng, 11);
    pretrain_mlm_corrupt(&rng, ids, targets, N, TOK_N_SPECIAL + 50);
    int chosen = 0, masked = 0, kept = 0;
    for (int i = 0; i < N; i++) {
        if (targets[i] < 0) {
            assert_int_equal(ids[i], orig[i]); /* not chosen: untouched */
            continue;
        }
        assert_int_equal(targets[i], orig[i]); /* the target is the token before corruption */
        chosen++;
        masked += ids[i] == TOK_MASK;
        kept += ids[i] == orig[i];
        assert_true(ids[i] == TOK_MASK || (ids[i] >= TOK_N_SPECIAL && ids[i] < TOK_N_SPECIAL + 50));
    }
    assert_true(chosen > 0.13 * N && chosen < 0.17 * N);
    assert_true(masked > 0.76 * chosen && masked < 0.84 * chosen);
    assert_true(kept > 0.07 * chosen && kept < 0.15 * chosen); /* 10% kept, plus random hits */
    free(ids);
    free(orig);
    free(targets);
}

/* Train a tiny model for steps steps under objective and return the held-out
 * loss before and after (on the last 100 tokens). */
static void loss_before_after(PretrainObjective objective, int steps, float *before, float *after)
{
    int stream[STREAM];
    cycle_stream(stream);
    Model m = {0};
    tiny_model(&m, 7);
    PretrainConfig c = tiny_config(objective, steps, 1);
    SrError err;
    assert_int_equal(pretrain_eval_loss(&m, &c, NULL, stream, 300, STREAM, 10, before, &err), 0);
    PretrainStream s = {stream, 0, 300};
    PretrainResult r;
    if (pretrain_run(&m, &c, NULL, pretrain_stream_batch, &s, NULL, &r, &err)) fail_msg("%s", err.msg);
    assert_true(isfinite(r.final_loss) && r.final_loss > 0.0f);
    assert_true(r.seconds >= 0.0);
    assert_int_equal(pretrain_eval_loss(&m, &c, NULL, stream, 300, STREAM, 10, after, &err), 0);
    model_free(&m);
}

static void test_causal_steps_lower_the_loss(void **state)
{
    (void)state;
    float before, after;
    loss_before_after(PRETRAIN_CAUSAL, 40, &before, &after);
    assert_true(before > 2.0f);        /* about ln 16 for a fresh model */
    assert_true(after < 0.5f * before);
}

static void test_mlm_steps_lower_the_loss(void **state)
{
    (void)state;
    float before, after;
    loss_before_after(PRETRAIN_MLM, 40, &before, &after);
    assert_true(after < before);
}

/* The weights (n_params) of a tiny model after `steps` steps with seed. */
static float *trained_weights(PretrainObjective objective, uint64_t seed, size_t *n)
{
    int stream[STREAM];
    cycle_stream(stream);
    Model m = {0};
    tiny_model(&m, 7);
    PretrainConfig c = tiny_config(objective, 6, seed);
    PretrainStream s = {stream, 0, 300};
    PretrainResult r;
    SrError err;
    if (pretrain_run(&m, &c, NULL, pretrain_stream_batch, &s, NULL, &r, &err)) fail_msg("%s", err.msg);
    float *w = malloc(sizeof(float) * m.n_params);
    assert_non_null(w);
    memcpy(w, m.params, sizeof(float) * m.n_params);
    *n = m.n_params;
    model_free(&m);
    return w;
}

static void test_same_seed_same_weights(void **state)
{
    (void)state;
    for (int objective = PRETRAIN_CAUSAL; objective <= PRETRAIN_MLM; objective++) {
        size_t n1, n2, n3;
        float *a = trained_weights((PretrainObjective)objective, 5, &n1);
        float *b = trained_weights((PretrainObjective)objective, 5, &n2);
        float *c = trained_weights((PretrainObjective)objective, 6, &n3);
        assert_int_equal(n1, n2);
        assert_memory_equal(a, b, sizeof(float) * n1);             /* bit for bit */
        assert_true(memcmp(a, c, sizeof(float) * n1) != 0);        /* another seed, other windows */
        free(a);
        free(b);
        free(c);
    }
}

static void test_the_objective_decides_the_loss(void **state)
{
    (void)state;
    int stream[STREAM];
    cycle_stream(stream);
    Model m = {0};
    tiny_model(&m, 7);
    PretrainConfig causal = tiny_config(PRETRAIN_CAUSAL, 1, 1), mlm = tiny_config(PRETRAIN_MLM, 1, 1);
    float lc, lm, lm2;
    SrError err;
    assert_int_equal(pretrain_eval_loss(&m, &causal, NULL, stream, 0, STREAM, 4, &lc, &err), 0);
    assert_int_equal(pretrain_eval_loss(&m, &mlm, NULL, stream, 0, STREAM, 4, &lm, &err), 0);
    assert_int_equal(pretrain_eval_loss(&m, &mlm, NULL, stream, 0, STREAM, 4, &lm2, &err), 0);
    assert_true(lc != lm);
    assert_true(lm == lm2); /* the same corruption on every call */
    model_free(&m);
}

static void test_schedule_in_the_progress_lines(void **state)
{
    (void)state;
    int stream[STREAM];
    cycle_stream(stream);
    Model m = {0};
    tiny_model(&m, 7);
    PretrainConfig c = tiny_config(PRETRAIN_CAUSAL, 10, 1);
    PretrainStream s = {stream, 0, 300};
    PretrainResult r;
    SrError err;
    FILE *log = tmpfile();
    assert_non_null(log);
    assert_int_equal(pretrain_run(&m, &c, NULL, pretrain_stream_batch, &s, log, &r, &err), 0);
    rewind(log);
    char line[256];
    int seen[3] = {1, 5, 10}, n_seen = 0;
    while (fgets(line, sizeof line, log)) {
        int step, total;
        float loss, lr;
        if (sscanf(line, "step %d/%d loss %f lr %e", &step, &total, &loss, &lr) != 4) continue;
        assert_true(n_seen < 3);
        assert_int_equal(step, seen[n_seen++]); /* steps 1, every 5th, and the last */
        assert_int_equal(total, 10);
        float want = lr_schedule(step, c.warmup, c.steps, c.lr, c.min_lr);
        assert_true(test_rel_diff(lr, want, 1e-9) < 1e-2);
    }
    assert_int_equal(n_seen, 3);
    fclose(log);
    model_free(&m);
}

static void test_positions_reach_the_model(void **state)
{
    (void)state;
    int stream[STREAM];
    cycle_stream(stream);
    Model m = {0};
    tiny_model(&m, 7);
    PretrainConfig c = tiny_config(PRETRAIN_CAUSAL, 1, 1);
    PosKind none[2] = {POS_NONE, POS_NONE}, rope[2] = {POS_ROPE, POS_ROPE};
    PretrainPositions nope = {none, NULL}, integer = {rope, NULL};
    float l_default, l_rope, l_nope;
    SrError err;
    assert_int_equal(pretrain_eval_loss(&m, &c, NULL, stream, 0, STREAM, 4, &l_default, &err), 0);
    assert_int_equal(pretrain_eval_loss(&m, &c, &integer, stream, 0, STREAM, 4, &l_rope, &err), 0);
    assert_int_equal(pretrain_eval_loss(&m, &c, &nope, stream, 0, STREAM, 4, &l_nope, &err), 0);
    assert_true(l_default == l_rope); /* no plan is RoPE everywhere */
    assert_true(l_nope != l_rope);
    model_free(&m);
}

static void test_short_range_has_no_loss(void **state)
{
    (void)state;
    int stream[STREAM];
    cycle_stream(stream);
    Model m = {0};
    tiny_model(&m, 7);
    PretrainConfig c = tiny_config(PRETRAIN_CAUSAL, 1, 1);
    float loss = 0.0f;
    SrError err;
    assert_int_equal(pretrain_eval_loss(&m, &c, NULL, stream, 0, T, 4, &loss, &err), 0);
    assert_true(loss == -1.0f); /* T tokens: no window of T + 1 */
    assert_int_equal(pretrain_eval_loss(&m, &c, NULL, stream, 0, T + 1, 4, &loss, &err), 0);
    assert_true(loss > 0.0f);
    model_free(&m);
}

/* What the saves of a run keep: the last state with copies of the weights
 * and moments, how many saves came, and when to ask the run to stop. */
typedef struct {
    PretrainState st;
    float *params, *m1, *m2;
    size_t n;
    int saves, stop_at, fail_at;
    volatile sig_atomic_t stop;
} SaveLog;

/* PretrainSaveFn keeping a copy in the SaveLog ctx; at step stop_at it asks
 * the run to stop, at fail_at it fails. */
static int keep_save(void *ctx, const Model *m, const PretrainState *st, SrError *err)
{
    SaveLog *log = ctx;
    if (st->step == log->fail_at) return sr_fail(err, "disk full at step %d", st->step);
    log->saves++;
    log->st = *st;
    log->n = m->n_params;
    float **copies[3] = {&log->params, &log->m1, &log->m2};
    const float *from[3] = {m->params, m->m1, m->m2};
    for (int i = 0; i < 3; i++) {
        free(*copies[i]);
        *copies[i] = malloc(sizeof(float) * m->n_params);
        assert_non_null(*copies[i]);
        memcpy(*copies[i], from[i], sizeof(float) * m->n_params);
    }
    if (st->step == log->stop_at) log->stop = 1;
    return 0;
}

/* Release the copies of a SaveLog. */
static void save_log_free(SaveLog *log)
{
    free(log->params);
    free(log->m1);
    free(log->m2);
}

/* Run 12 steps of objective saving every 4 (stopping after the save at
 * stop_at, 0 = never), resumed from *from when not NULL; the weights go to
 * log's copies through the saves (the last save is the last step's). */
static void run_saving(PretrainObjective objective, int stop_at, const SaveLog *from, SaveLog *log,
                       PretrainResult *r)
{
    int stream[STREAM];
    cycle_stream(stream);
    Model m = {0};
    tiny_model(&m, 7);
    PretrainConfig c = tiny_config(objective, 12, 3);
    PretrainStream s = {stream, 0, 300};
    SrError err;
    log->stop_at = stop_at;
    PretrainSaving saving = {.every = 4, .save = keep_save, .ctx = log, .stop = &log->stop};
    if (from) {
        assert_int_equal(adamw_create(&m, &err), 0);
        memcpy(m.params, from->params, sizeof(float) * from->n);
        memcpy(m.m1, from->m1, sizeof(float) * from->n);
        memcpy(m.m2, from->m2, sizeof(float) * from->n);
        saving.from = &from->st;
    }
    if (pretrain_run_saving(&m, &c, NULL, pretrain_stream_batch, &s, &saving, NULL, r, &err))
        fail_msg("%s", err.msg);
    model_free(&m);
}

static void test_stopped_and_resumed_is_uninterrupted(void **state)
{
    (void)state;
    for (int threads = 1; threads <= 2; threads++) {
        threads_set(threads);
        for (int objective = PRETRAIN_CAUSAL; objective <= PRETRAIN_MLM; objective++) {
            SaveLog whole = {0}, first = {0}, rest = {0};
            PretrainResult r;
            run_saving((PretrainObjective)objective, 0, NULL, &whole, &r);
            assert_int_equal(whole.saves, 3); /* steps 4, 8 and 12 */
            assert_int_equal(r.steps_done, 12);
            run_saving((PretrainObjective)objective, 4, NULL, &first, &r);
            assert_int_equal(r.steps_done, 5); /* stopped after step 5, with a save */
            assert_int_equal(first.st.step, 5);
            run_saving((PretrainObjective)objective, 0, &first, &rest, &r);
            assert_int_equal(r.steps_done, 12);
            assert_int_equal(rest.st.step, 12);
            assert_true(r.final_loss == whole.st.loss);
            assert_memory_equal(rest.params, whole.params, sizeof(float) * whole.n);
            assert_memory_equal(rest.m1, whole.m1, sizeof(float) * whole.n);
            assert_memory_equal(rest.m2, whole.m2, sizeof(float) * whole.n);
            assert_memory_equal(&rest.st.rng, &whole.st.rng, sizeof(Rng));
            save_log_free(&whole);
            save_log_free(&first);
            save_log_free(&rest);
        }
    }
    threads_set(1);
}

static void test_without_saving_nothing_changes(void **state)
{
    (void)state;
    size_t n;
    float *plain = trained_weights(PRETRAIN_MLM, 5, &n);
    int stream[STREAM];
    cycle_stream(stream);
    Model m = {0};
    tiny_model(&m, 7);
    PretrainConfig c = tiny_config(PRETRAIN_MLM, 6, 5);
    PretrainStream s = {stream, 0, 300};
    PretrainResult r;
    SrError err;
    SaveLog log = {0};
    PretrainSaving saving = {.every = 0, .save = keep_save, .ctx = &log};
    assert_int_equal(pretrain_run_saving(&m, &c, NULL, pretrain_stream_batch, &s, &saving, NULL,
                                         &r, &err), 0);
    assert_int_equal(log.saves, 0);
    assert_memory_equal(m.params, plain, sizeof(float) * n);
    free(plain);
    model_free(&m);
}

static void test_failed_save_stops_the_run(void **state)
{
    (void)state;
    int stream[STREAM];
    cycle_stream(stream);
    Model m = {0};
    tiny_model(&m, 7);
    PretrainConfig c = tiny_config(PRETRAIN_CAUSAL, 12, 5);
    PretrainStream s = {stream, 0, 300};
    PretrainResult r;
    SrError err;
    SaveLog log = {.fail_at = 8};
    PretrainSaving saving = {.every = 4, .save = keep_save, .ctx = &log};
    assert_int_equal(pretrain_run_saving(&m, &c, NULL, pretrain_stream_batch, &s, &saving, NULL,
                                         &r, &err), -1);
    assert_string_equal(err.msg, "disk full at step 8");
    assert_int_equal(log.saves, 1);
    assert_int_equal(r.steps_done, 8);
    save_log_free(&log);
    model_free(&m);
}

static void test_save_lines_in_the_progress(void **state)
{
    (void)state;
    int stream[STREAM];
    cycle_stream(stream);
    Model m = {0};
    tiny_model(&m, 7);
    PretrainConfig c = tiny_config(PRETRAIN_CAUSAL, 10, 1);
    PretrainStream s = {stream, 0, 300};
    PretrainResult r;
    SrError err;
    SaveLog log = {0};
    PretrainSaving saving = {.every = 4, .save = keep_save, .ctx = &log};
    FILE *out = tmpfile();
    assert_non_null(out);
    assert_int_equal(pretrain_run_saving(&m, &c, NULL, pretrain_stream_batch, &s, &saving, out,
                                         &r, &err), 0);
    rewind(out);
    char line[256];
    int saved[3] = {4, 8, 10}, n_saved = 0;
    while (fgets(line, sizeof line, out)) {
        int step, total;
        if (sscanf(line, "saved at step %d/%d", &step, &total) != 2) continue;
        assert_true(n_saved < 3);
        assert_int_equal(step, saved[n_saved++]);
        assert_int_equal(total, 10);
    }
    assert_int_equal(n_saved, 3);
    fclose(out);
    save_log_free(&log);
    model_free(&m);
}

/* The order of the calls of a run: "a3" after step 3, "s4" the save of step 4. */
typedef struct {
    char events[256];
    int fail_after; /* after_step fails at this step (0: never) */
} CallOrder;

/* PretrainSaveFn recording a save. */
static int record_save(void *ctx, const Model *m, const PretrainState *st, SrError *err)
{
    (void)m;
    (void)err;
    CallOrder *order = ctx;
    size_t len = strlen(order->events);
    snprintf(order->events + len, sizeof order->events - len, "s%d ", st->step);
    return 0;
}

/* PretrainSaveFn after every step: recorded, or failing at fail_after. */
static int record_step(void *ctx, const Model *m, const PretrainState *st, SrError *err)
{
    (void)m;
    CallOrder *order = ctx;
    if (st->step == order->fail_after) return sr_fail(err, "no snapshot at step %d", st->step);
    size_t len = strlen(order->events);
    snprintf(order->events + len, sizeof order->events - len, "a%d ", st->step);
    return 0;
}

static void test_after_step_comes_before_each_save(void **state)
{
    (void)state;
    int stream[STREAM];
    cycle_stream(stream);
    Model m = {0};
    tiny_model(&m, 7);
    PretrainConfig c = tiny_config(PRETRAIN_CAUSAL, 10, 1);
    PretrainStream s = {stream, 0, 300};
    PretrainResult r;
    SrError err;
    CallOrder order = {.events = ""};
    PretrainSaving saving = {.every = 4, .save = record_save, .ctx = &order,
                             .after_step = record_step};
    assert_int_equal(pretrain_run_saving(&m, &c, NULL, pretrain_stream_batch, &s, &saving, NULL,
                                         &r, &err), 0);
    assert_string_equal(order.events, "a1 a2 a3 a4 s4 a5 a6 a7 a8 s8 a9 a10 s10 ");
    /* a failure after a step stops the run there, before that step's save */
    order = (CallOrder){.events = "", .fail_after = 8};
    assert_int_equal(pretrain_run_saving(&m, &c, NULL, pretrain_stream_batch, &s, &saving, NULL,
                                         &r, &err), -1);
    assert_string_equal(err.msg, "no snapshot at step 8");
    assert_string_equal(order.events, "a1 a2 a3 a4 s4 a5 a6 a7 ");
    model_free(&m);
}

int main(void)
{
    threads_set(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_windows_and_targets),
        cmocka_unit_test(test_mlm_corruption_rates),
        cmocka_unit_test(test_causal_steps_lower_the_loss),
        cmocka_unit_test(test_mlm_steps_lower_the_loss),
        cmocka_unit_test(test_same_seed_same_weights),
        cmocka_unit_test(test_the_objective_decides_the_loss),
        cmocka_unit_test(test_schedule_in_the_progress_lines),
        cmocka_unit_test(test_positions_reach_the_model),
        cmocka_unit_test(test_short_range_has_no_loss),
        cmocka_unit_test(test_stopped_and_resumed_is_uninterrupted),
        cmocka_unit_test(test_without_saving_nothing_changes),
        cmocka_unit_test(test_failed_save_stops_the_run),
        cmocka_unit_test(test_save_lines_in_the_progress),
        cmocka_unit_test(test_after_step_comes_before_each_save),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
