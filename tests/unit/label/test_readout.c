/* test_readout.c — pieces, repeated layouts and read-out rows (readout.h),
 * checked by hand, and features gathered from a real forward pass. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "engine/model.h"
#include "label/readout.h"
#include "label/readout_prefix.h"
#include "text/tokenizer.h"

/* specials, then the words of the tests */
static const char *VOCAB[] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>",
                              "ann", "u", ".", "s", "went", "home"};
enum { ID_ANN = 6, ID_U = 7, ID_DOT = 8, ID_S = 9, ID_WENT = 10, ID_HOME = 11 };

static void make_tokenizer(Tokenizer *tok)
{
    SrError err;
    assert_int_equal(tokenizer_from_words(tok, VOCAB, 12, 1, &err), 0);
}

/* Data set: line 1 "Ann U.S. went" (U.S. = 4 pieces: u . s .), line 5 "home". */
static void make_data(Dataset *d)
{
    SrError err;
    memset(d, 0, sizeof *d);
    d->source = strdup("toy.conll");
    const char *w1[] = {"Ann", "U.S.", "went"}, *t1[] = {"B-PER", "B-LOC", "O"};
    const char *w2[] = {"home"}, *t2[] = {"O"};
    assert_int_equal(dataset_add(d, w1, t1, 3, 1, &err), 0);
    assert_int_equal(dataset_add(d, w2, t2, 1, 5, &err), 0);
}

/* The tokenizer, the two sentences and their pieces most tests start from. */
static void open_toy(Tokenizer *tok, Dataset *d, PiecedData *pd)
{
    SrError err;
    make_tokenizer(tok);
    make_data(d);
    if (readout_prepare(pd, d, tok, &err)) fail_msg("%s", err.msg);
}

/* Release what open_toy made. */
static void close_toy(Tokenizer *tok, Dataset *d, PiecedData *pd)
{
    pieced_data_free(pd);
    dataset_free(d);
    tokenizer_free(tok);
}

/* Pieces: "Ann" -> [ann], "U.S." -> [u][.][s][.], "went" -> [went];
 * first pieces at 0, 1, 5; 6 tokens in all. */
static void test_pieces(void **state)
{
    (void)state;
    Tokenizer tok;
    Dataset d;
    PiecedData pd;
    open_toy(&tok, &d, &pd);
    assert_int_equal(pd.n_sents, 2);
    assert_int_equal(pd.n_words, 4);
    assert_int_equal(pd.max_pieces, 6);
    const PiecedSentence *s = &pd.sents[0];
    int expect[] = {ID_ANN, ID_U, ID_DOT, ID_S, ID_DOT, ID_WENT};
    assert_int_equal(s->n_pieces, 6);
    for (int i = 0; i < 6; i++) assert_int_equal(s->pieces[i], expect[i]);
    assert_int_equal(s->first_piece[0], 0);
    assert_int_equal(s->first_piece[1], 1);
    assert_int_equal(s->first_piece[2], 5);
    assert_int_equal(s->line, 1);
    assert_int_equal(pd.word_start[0], 0);
    assert_int_equal(pd.word_start[1], 3);
    close_toy(&tok, &d, &pd);
}

/* Rows of sentence 0 (6 pieces, first pieces 0, 1, 5) for several layouts. */
static void test_rows_by_hand(void **state)
{
    (void)state;
    Tokenizer tok;
    Dataset d;
    PiecedData pd;
    ReadoutBatch b = {0};
    SrError err;
    open_toy(&tok, &d, &pd);
    int first_sentence = 0;

    /* paper layout, r = 2: B a u . s . w | B a u . s . w | B a u . s . w
     * rows of copy c start at 7c + 1; T = 21; last copy starts at 15:
     * last rows 15, 16, 20; first rows 1, 2, 6 */
    assert_int_equal(readout_batch_build(&b, &pd, &first_sentence, 1, readout_layout_paper(2), 0, &err), 0);
    assert_int_equal(b.B, 1);
    assert_int_equal(b.T, 21);
    assert_int_equal(b.lengths[0], 21);
    assert_int_equal(b.n_words, 3);
    int last2[] = {15, 16, 20}, first2[] = {1, 2, 6};
    for (int w = 0; w < 3; w++) {
        assert_int_equal(b.last_rows[w], last2[w]);
        assert_int_equal(b.first_rows[w], first2[w]);
    }
    int ids2[] = {2, ID_ANN, ID_U, ID_DOT, ID_S, ID_DOT, ID_WENT};
    for (int t = 0; t < 21; t++) {
        assert_int_equal(b.ids[t], ids2[t % 7]);
        assert_int_equal(b.positions[t], t); /* positions run on across copies */
    }
    assert_int_equal(b.tokens, 21);

    /* the same with --copy-positions restart: ids and rows unchanged, each
     * copy (its <bos> and 6 pieces) numbered 0..6 again */
    ReadoutLayout restart = readout_layout_paper(2);
    restart.copy_positions = REPEAT_POSITIONS_RESTART;
    ReadoutBatch rb = {0};
    assert_int_equal(readout_batch_build(&rb, &pd, &first_sentence, 1, restart, 0, &err), 0);
    assert_int_equal(rb.T, 21);
    assert_memory_equal(rb.ids, b.ids, sizeof(int) * 21);
    assert_memory_equal(rb.last_rows, b.last_rows, sizeof(int) * 3);
    for (int t = 0; t < 21; t++) assert_int_equal(rb.positions[t], t % 7);
    readout_batch_free(&rb);

    /* no <bos>, r = 1: a u . s . w | a u . s . w ; T = 12; last rows 6, 7, 11 */
    ReadoutLayout none = {1, REPEAT_BOS_NONE, REPEAT_SEP_NONE, REPEAT_POSITIONS_RUN};
    assert_int_equal(readout_batch_build(&b, &pd, &first_sentence, 1, none, 0, &err), 0);
    assert_int_equal(b.T, 12);
    int last_none[] = {6, 7, 11}, first_none[] = {0, 1, 5};
    for (int w = 0; w < 3; w++) {
        assert_int_equal(b.last_rows[w], last_none[w]);
        assert_int_equal(b.first_rows[w], first_none[w]);
    }

    /* one <bos>, r = 1: B a u . s . w | a u . s . w ; T = 13; last rows 7, 8, 12 */
    ReadoutLayout once = {1, REPEAT_BOS_ONCE, REPEAT_SEP_NONE, REPEAT_POSITIONS_RUN};
    assert_int_equal(readout_batch_build(&b, &pd, &first_sentence, 1, once, 0, &err), 0);
    assert_int_equal(b.T, 13);
    int last_once[] = {7, 8, 12};
    for (int w = 0; w < 3; w++) assert_int_equal(b.last_rows[w], last_once[w]);

    /* r = 0, paper: B a u . s . w ; last rows = first rows = 1, 2, 6 */
    assert_int_equal(readout_batch_build(&b, &pd, &first_sentence, 1, readout_layout_paper(0), 0, &err), 0);
    assert_int_equal(b.T, 7);
    for (int w = 0; w < 3; w++) assert_int_equal(b.last_rows[w], b.first_rows[w]);
    assert_int_equal(b.last_rows[2], 6);

    readout_batch_free(&b);
    close_toy(&tok, &d, &pd);
}

/* Two sentences in one batch, r = 1, paper layout:
 *   row 0: B a u . s . w B a u . s . w   (14 tokens)
 *   row 1: B home B home <pad> x 10      (4 tokens)
 * flat rows: sentence 0 words 8, 9, 13; sentence 1 word: 14 + 3 = 17. */
static void test_batch_padding_and_flat_rows(void **state)
{
    (void)state;
    Tokenizer tok;
    Dataset d;
    PiecedData pd;
    ReadoutBatch b = {0};
    SrError err;
    open_toy(&tok, &d, &pd);
    int sents[] = {0, 1};
    assert_int_equal(readout_batch_build(&b, &pd, sents, 2, readout_layout_paper(1), 0, &err), 0);
    assert_int_equal(b.B, 2);
    assert_int_equal(b.T, 14);
    assert_int_equal(b.lengths[0], 14);
    assert_int_equal(b.lengths[1], 4);
    assert_int_equal(b.n_words, 4);
    assert_int_equal(b.word_start[1], 3);
    int last[] = {8, 9, 13, 17}, first[] = {1, 2, 6, 15};
    for (int w = 0; w < 4; w++) {
        assert_int_equal(b.last_rows[w], last[w]);
        assert_int_equal(b.first_rows[w], first[w]);
    }
    int row1[] = {2, ID_HOME, 2, ID_HOME};
    for (int t = 0; t < 14; t++) assert_int_equal(b.ids[14 + t], t < 4 ? row1[t] : TOK_PAD);
    assert_int_equal(b.tokens, 18);
    ModelInput in = readout_model_input(&b, NULL, NULL, 2);
    assert_int_equal(in.B, 2);
    assert_int_equal(in.T, 14);
    assert_ptr_equal(in.lengths, b.lengths);
    assert_int_equal(in.n_run, 2);

    /* gather from fake hidden states: value = flat row * 100 + channel */
    int C = 3;
    float hidden[2 * 14 * 3], out[4 * 3];
    for (int i = 0; i < 2 * 14; i++)
        for (int c = 0; c < C; c++) hidden[i * C + c] = (float)(i * 100 + c);
    readout_gather(&b, hidden, C, READ_LAST_COPY, out);
    for (int w = 0; w < 4; w++)
        for (int c = 0; c < C; c++) assert_true(out[w * C + c] == (float)(last[w] * 100 + c));
    readout_gather(&b, hidden, C, READ_FIRST_COPY, out);
    for (int w = 0; w < 4; w++) assert_true(out[w * C] == (float)(first[w] * 100));

    readout_batch_free(&b);
    close_toy(&tok, &d, &pd);
}

/* A sentence that does not fit after repetition is an error naming file and line. */
static void test_too_long(void **state)
{
    (void)state;
    Tokenizer tok;
    Dataset d;
    PiecedData pd;
    ReadoutBatch b = {0};
    SrError err;
    open_toy(&tok, &d, &pd);
    /* r = 2 gives 21 tokens for sentence 0 (line 1) */
    assert_int_equal(readout_max_length(&pd, readout_layout_paper(2)), 21);
    assert_int_equal(readout_check_fits(&pd, readout_layout_paper(2), 21, &err), 0);
    assert_int_equal(readout_check_fits(&pd, readout_layout_paper(2), 20, &err), -1);
    assert_non_null(strstr(err.msg, "toy.conll:1:"));
    assert_non_null(strstr(err.msg, "21 tokens"));
    int s0 = 0;
    assert_int_equal(readout_batch_build(&b, &pd, &s0, 1, readout_layout_paper(2), 20, &err), -1);
    assert_non_null(strstr(err.msg, "toy.conll:1:"));
    assert_int_equal(readout_check_fits(&pd, readout_layout_paper(-1), 100, &err), -1);
    readout_batch_free(&b);
    close_toy(&tok, &d, &pd);
}

static void make_model(Model *m, int max_batch, int max_T)
{
    ModelConfig cfg = {.vocab_size = 12, .d_model = 16, .n_layers = 2, .n_heads = 2, .d_ff = 24,
                       .max_seq_len = 64, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = 1};
    SrError err;
    if (model_create(m, &cfg, max_batch, max_T, &err)) fail_msg("%s", err.msg);
    model_init_weights(m, 7);
    /* larger weights than the 0.02 init so that layers mix tokens visibly */
    for (size_t i = 0; i < m->n_params; i++) m->params[i] *= 10.0f;
    for (int c = 0; c < 16; c++) m->p.lnfw[c] = 1.0f;
    for (int l = 0; l < 2 * 16; l++) m->p.ln1w[l] = m->p.ln2w[l] = 1.0f;
}

/* readout_collect over a padded batch gives the same features as running
 * each sentence alone, for every layer, under causal and bidirectional plans. */
static void test_collect_matches_single_runs(void **state)
{
    (void)state;
    Tokenizer tok;
    Dataset d;
    PiecedData pd;
    SrError err;
    open_toy(&tok, &d, &pd);
    Model m;
    make_model(&m, 2, 32);
    const int C = 16, L = 2;
    MaskKind plans[2][2] = {{MASK_CAUSAL, MASK_CAUSAL}, {MASK_BIDIRECTIONAL, MASK_BIDIRECTIONAL}};
    for (int p = 0; p < 2; p++) {
        ReadoutLayout lay = readout_layout_paper(1);
        float *last = malloc(sizeof(float) * (L + 1) * 4 * C);
        float *first = malloc(sizeof(float) * (L + 1) * 4 * C);
        assert_int_equal(readout_collect(&m, &pd, lay, plans[p], NULL, 2, last, first, &err), 0);
        ReadoutBatch b = {0};
        for (int s = 0; s < 2; s++) {
            assert_int_equal(readout_batch_build(&b, &pd, &s, 1, lay, 0, &err), 0);
            ModelInput in = readout_model_input(&b, plans[p], NULL, 0);
            assert_int_equal(model_forward(&m, &in, &err), 0);
            float one[3 * 16];
            for (int l = 0; l <= L; l++) {
                readout_gather(&b, model_hidden(&m, l), C, READ_LAST_COPY, one);
                for (int w = 0; w < b.n_words; w++)
                    for (int c = 0; c < C; c++) {
                        float got = last[((size_t)l * 4 + pd.word_start[s] + w) * C + c];
                        assert_true(fabsf(got - one[w * C + c]) <= 1e-4f * (1.0f + fabsf(got)));
                    }
                readout_gather(&b, model_hidden(&m, l), C, READ_FIRST_COPY, one);
                for (int c = 0; c < C; c++) {
                    float got = first[((size_t)l * 4 + pd.word_start[s]) * C + c];
                    assert_true(fabsf(got - one[c]) <= 1e-4f * (1.0f + fabsf(got)));
                }
            }
        }
        readout_batch_free(&b);
        free(last);
        free(first);
    }
    model_free(&m);
    close_toy(&tok, &d, &pd);
}

/* Sorting by laid-out length: "home" (1 piece) before "Ann U.S. went" (6);
 * equal lengths keep the smaller index first. */
static void test_sort_by_length(void **state)
{
    (void)state;
    Tokenizer tok;
    Dataset d;
    PiecedData pd;
    SrError err;
    open_toy(&tok, &d, &pd);
    int idx[4] = {0, 1, 1, 0};
    assert_int_equal(readout_sort_by_length(&pd, readout_layout_paper(2), idx, 4, &err), 0);
    int expect[4] = {1, 1, 0, 0};
    for (int i = 0; i < 4; i++) assert_int_equal(idx[i], expect[i]);
    int one = 0;
    assert_int_equal(readout_sort_by_length(&pd, readout_layout_paper(0), &one, 1, &err), 0);
    assert_int_equal(one, 0);
    close_toy(&tok, &d, &pd);
}

/* One pass of the largest r gives, for r = 0, 1, 2, 4, the same last-copy
 * features (and the same first-copy ones) as one readout_collect per r, to
 * float rounding (a longer batch changes the order of some sums),
 * with positions running on, restarting and induction-aligned, <bos> per
 * copy and once. */
static void test_prefixes_equal_per_r_passes(void **state)
{
    (void)state;
    Tokenizer tok;
    Dataset d;
    PiecedData pd;
    SrError err;
    open_toy(&tok, &d, &pd);
    Model m;
    make_model(&m, 2, 40);
    const int C = 16, L = 2, r_values[4] = {0, 1, 2, 4};
    const size_t n = (size_t)(L + 1) * 4 * C;
    RepeatBos bos[2] = {REPEAT_BOS_PER_COPY, REPEAT_BOS_ONCE};
    RepeatPositions positions[3] = {REPEAT_POSITIONS_RUN, REPEAT_POSITIONS_RESTART,
                                    REPEAT_POSITIONS_INDUCTION};
    for (int v = 0; v < 6; v++) {
        ReadoutLayout lay = {0, bos[v % 2], REPEAT_SEP_NONE, positions[v / 2]};
        float *last[4], *first = malloc(sizeof(float) * n), *one = malloc(sizeof(float) * n),
              *one_first = malloc(sizeof(float) * n);
        for (int ri = 0; ri < 4; ri++) last[ri] = malloc(sizeof(float) * n);
        assert_int_equal(readout_collect_prefixes(&m, &pd, lay, r_values, 4, NULL, NULL, 2, last, first, &err), 0);
        for (int ri = 0; ri < 4; ri++) {
            lay.r = r_values[ri];
            assert_int_equal(readout_collect(&m, &pd, lay, NULL, NULL, 2, one, one_first, &err), 0);
            for (size_t i = 0; i < n; i++) {
                assert_true(fabsf(last[ri][i] - one[i]) <= 1e-5f * (1.0f + fabsf(one[i])));
                assert_true(fabsf(first[i] - one_first[i]) <= 1e-5f * (1.0f + fabsf(one_first[i])));
            }
        }
        for (int ri = 0; ri < 4; ri++) free(last[ri]);
        free(first);
        free(one);
        free(one_first);
    }
    MaskKind middle[2] = {MASK_CAUSAL, MASK_BIDIRECTIONAL};
    assert_false(readout_prefix_applies(middle, 2));
    assert_true(readout_prefix_applies(NULL, 2));
    float *dummy[1] = {NULL};
    assert_int_equal(readout_collect_prefixes(&m, &pd, readout_layout_paper(0), r_values, 1, middle, NULL, 2, dummy,
                                              NULL, &err), -1);
    model_free(&m);
    close_toy(&tok, &d, &pd);
}

/* What repetition is for: under the causal mask the last-copy feature of the
 * FIRST word depends on the LAST word when r >= 1, never when r = 0; the
 * first-copy feature never does. */
static void test_last_copy_sees_the_future(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    make_tokenizer(&tok);
    Model m;
    make_model(&m, 1, 32);
    const char *w_a[] = {"ann", "went", "home"}, *w_b[] = {"ann", "went", "s"};
    const char *tags[] = {"O", "O", "O"};
    for (int r = 0; r <= 1; r++) {
        float feat[2][2][16]; /* [sentence][copy][C] of word 0 at the top layer */
        for (int v = 0; v < 2; v++) {
            Dataset d = {0};
            PiecedData pd;
            ReadoutBatch b = {0};
            assert_int_equal(dataset_add(&d, v ? w_b : w_a, tags, 3, 1, &err), 0);
            assert_int_equal(readout_prepare(&pd, &d, &tok, &err), 0);
            int s0 = 0;
            assert_int_equal(readout_batch_build(&b, &pd, &s0, 1, readout_layout_paper(r), 0, &err), 0);
            ModelInput in = readout_model_input(&b, NULL, NULL, 0);
            assert_int_equal(model_forward(&m, &in, &err), 0);
            float all[3 * 16];
            readout_gather(&b, model_hidden(&m, 2), 16, READ_LAST_COPY, all);
            memcpy(feat[v][0], all, sizeof feat[v][0]);
            readout_gather(&b, model_hidden(&m, 2), 16, READ_FIRST_COPY, all);
            memcpy(feat[v][1], all, sizeof feat[v][1]);
            readout_batch_free(&b);
            pieced_data_free(&pd);
            dataset_free(&d);
        }
        double diff_last = 0.0, diff_first = 0.0;
        for (int c = 0; c < 16; c++) {
            diff_last += fabs(feat[0][0][c] - feat[1][0][c]);
            diff_first += fabs(feat[0][1][c] - feat[1][1][c]);
        }
        assert_true(diff_first == 0.0);
        if (r == 0) assert_true(diff_last == 0.0);
        else assert_true(diff_last > 1e-3);
    }
    model_free(&m);
    tokenizer_free(&tok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pieces),
        cmocka_unit_test(test_rows_by_hand),
        cmocka_unit_test(test_batch_padding_and_flat_rows),
        cmocka_unit_test(test_too_long),
        cmocka_unit_test(test_collect_matches_single_runs),
        cmocka_unit_test(test_sort_by_length),
        cmocka_unit_test(test_prefixes_equal_per_r_passes),
        cmocka_unit_test(test_last_copy_sees_the_future),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
