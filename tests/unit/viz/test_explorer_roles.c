/* test_explorer_roles.c — the head roles of the explorer's overview (key R)
 * without a window: the five scores of every head computed from maps whose
 * heads are made to play one role each (an induction head and a
 * previous-token head, the numbers worked out by hand), the role, label,
 * best head, hover text and saved CSV of each, r = 0 and a layout that does
 * not match, the key, and the drawing: with roles off it is figure_paint to
 * the byte, with roles on the induction head gets its orange ring. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz_fixtures.h"

#include "explorer/explorer_roles_paint.h"
#include "explorer_state/explorer_keys.h"
#include "explorer_state/explorer_roles.h"
#include "explorer_state/explorer_state.h"

/* "a b c" repeated twice with <bos> per copy: rows 0 <bos>, 1-3 the first
 * copy, 4 <bos>, 5-7 the last copy (pieces i = 0, 1, 2 at rows 5, 6, 7). */
#define N_PIECES 3
#define T_ROWS 8

/* One layer, two heads over the layout above. In the last copy, head 0 is
 * an induction head: piece i reads piece i + 1 of the first copy (row 2 + i),
 * and the last piece, which has no i + 1, reads row 0. Head 1 reads the row
 * before every query. Rows outside the last copy spread evenly over their
 * visible keys. */
static void make_role_maps(AttentionData *d)
{
    RepeatLayout lay;
    SrError err;
    int words[N_PIECES] = {6, 7, 8};
    assert_int_equal(repeat_build(words, N_PIECES, 1, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, 0, &lay, &err), 0);
    assert_int_equal(lay.T, T_ROWS);
    float att[2 * T_ROWS * T_ROWS] = {0};
    for (int h = 0; h < 2; h++)
        for (int q = 0; q < T_ROWS; q++)
            for (int k = 0; k <= q; k++) att[(h * T_ROWS + q) * T_ROWS + k] = q < 5 ? 1.0f / (q + 1) : 0.0f;
    for (int i = 0; i < N_PIECES; i++) {
        int q = lay.last_rows[i];
        att[(0 * T_ROWS + q) * T_ROWS + (i + 1 < N_PIECES ? lay.copy_start[0] + i + 1 : 0)] = 1.0f;
        att[(1 * T_ROWS + q) * T_ROWS + q - 1] = 1.0f;
    }
    const char *tokens[T_ROWS] = {"<bos>", "a", "b", "c", "<bos>", "a", "b", "c"};
    MaskKind plan[1] = {MASK_CAUSAL};
    assert_int_equal(attention_data_init(d, 1, 2, &lay, tokens, att, plan, &err), 0);
    repeat_free(&lay);
}

static void assert_scores(const ExplorerRoles *roles, int head, const double want[HEAD_N_SCORES])
{
    const double *got = explorer_roles_scores(roles, 0, head);
    for (int s = 0; s < HEAD_N_SCORES; s++)
        if (fabs(got[s] - want[s]) > 1e-6)
            fail_msg("head %d, %s: %.6f, expected %.6f", head, head_score_name((HeadScore)s), got[s], want[s]);
}

static void test_scores_of_made_heads(void **unused)
{
    (void)unused;
    AttentionData d;
    ExplorerRoles roles;
    SrError err;
    make_role_maps(&d);
    assert_int_equal(explorer_roles_compute(&roles, &d, N_PIECES, 1, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, &err), 0);
    assert_int_equal(roles.defined, 1);
    /* head 0: induction 2 of 2 defined queries, the last piece's row 0 is
     * sink 1 of 3; nothing on the copy, the row before or the last copy */
    assert_scores(&roles, 0, (double[HEAD_N_SCORES]){0, 1, 0, 1.0 / 3, 0});
    /* head 1: always the row before; rows 5 and 6 lie in the last copy, row
     * 4 is its <bos> (not a piece) */
    assert_scores(&roles, 1, (double[HEAD_N_SCORES]){0, 0, 1, 0, 2.0 / 3});
    assert_int_equal(explorer_role_of(explorer_roles_scores(&roles, 0, 0), EXPLORER_ROLE_THRESHOLD), HEAD_INDUCTION);
    assert_int_equal(explorer_role_of(explorer_roles_scores(&roles, 0, 1), EXPLORER_ROLE_THRESHOLD), HEAD_PREVIOUS);

    ExplorerRoleBest best[HEAD_N_SCORES];
    char text[400];
    explorer_roles_best(&roles, best);
    assert_int_equal(best[HEAD_INDUCTION].head, 0);
    assert_int_equal(best[HEAD_PREVIOUS].head, 1);
    assert_int_equal(best[HEAD_OWN_COPY].head, 1);
    assert_int_equal(best[HEAD_COPY].head, 0); /* a tie at 0: the first head */
    explorer_role_best_text(&best[HEAD_SINK], text, sizeof text);
    assert_string_equal(text, "sink       L0 H0  .33");
    explorer_roles_tooltip(&roles, 0, 1, text, sizeof text);
    /* chance, a uniform causal head: the last copy's queries see 6, 7 and 8
     * keys; copy, previous and sink read one each, (1/6 + 1/7 + 1/8) / 3 =
     * 0.144841; induction the first two, (1/6 + 1/7) / 2 = 0.154762; own
     * copy (1/6 + 2/7 + 3/8) / 3 = 0.275794 */
    const double *chance = explorer_roles_chance(&roles, 0);
    const double want[HEAD_N_SCORES] = {(1.0 / 6 + 1.0 / 7 + 1.0 / 8) / 3, (1.0 / 6 + 1.0 / 7) / 2,
                                        (1.0 / 6 + 1.0 / 7 + 1.0 / 8) / 3, (1.0 / 6 + 1.0 / 7 + 1.0 / 8) / 3,
                                        (1.0 / 6 + 2.0 / 7 + 3.0 / 8) / 3};
    for (int s = 0; s < HEAD_N_SCORES; s++) assert_true(fabs(chance[s] - want[s]) < 1e-6);
    assert_string_equal(text, "layer 0, head 1: prev 1.00\n  copy      0.00  (chance 0.14)\n  induction 0.00  (chance 0.15)\n"
                              "  previous  1.00  (chance 0.14)\n  sink      0.00  (chance 0.14)\n"
                              "  own_copy  0.67  (chance 0.28)\nclick: open this map");

    char *csv = explorer_roles_csv(&roles);
    assert_non_null(csv);
    assert_string_equal(csv, "layer,head,copy,induction,previous,sink,own_copy,role,copy_chance,induction_chance,"
                             "previous_chance,sink_chance,own_copy_chance\n"
                             "0,0,0.000000,1.000000,0.000000,0.333333,0.000000,induction,"
                             "0.144841,0.154762,0.144841,0.144841,0.275794\n"
                             "0,1,0.000000,0.000000,1.000000,0.000000,0.666667,previous,"
                             "0.144841,0.154762,0.144841,0.144841,0.275794\n");
    free(csv);
    explorer_roles_free(&roles);
    attention_data_free(&d);
}

static void test_role_and_labels(void **unused)
{
    (void)unused;
    char text[32];
    /* below the threshold everywhere: no role; own_copy is never one */
    assert_int_equal(explorer_role_of((double[HEAD_N_SCORES]){0.1, 0.19, 0.05, 0.0, 0.9}, 0.2), EXPLORER_ROLE_NONE);
    /* the largest wins, the first on a tie */
    assert_int_equal(explorer_role_of((double[HEAD_N_SCORES]){0.3, 0.2, 0.35, 0.1, 0}, 0.2), HEAD_PREVIOUS);
    assert_int_equal(explorer_role_of((double[HEAD_N_SCORES]){0.4, 0.2, 0.1, 0.4, 0}, 0.2), HEAD_COPY);
    explorer_role_label(HEAD_INDUCTION, 0.372, text, sizeof text);
    assert_string_equal(text, "ind .37");
    explorer_role_value_text(0.999, text, sizeof text);
    assert_string_equal(text, "1.00");
    explorer_role_value_text(0.05, text, sizeof text);
    assert_string_equal(text, ".05");
    assert_string_equal(explorer_role_short_name(HEAD_SINK), "sink");
}

static void test_no_roles_at_r0_or_other_layout(void **unused)
{
    (void)unused;
    AttentionData d;
    ExplorerRoles roles;
    SrError err;
    make_role_maps(&d);
    /* 4 pieces at r = 1 do not lay out these 8 rows */
    assert_int_equal(explorer_roles_compute(&roles, &d, 4, 1, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, &err), -1);
    assert_non_null(strstr(err.msg, "do not lay out the 8 rows"));
    attention_data_free(&d);

    make_attention_sized(&d, 3, 0);
    assert_int_equal(explorer_roles_compute(&roles, &d, 3, 0, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, &err), 0);
    assert_int_equal(roles.defined, 0);
    assert_null(explorer_roles_csv(&roles));
    char text[200];
    explorer_roles_tooltip(&roles, 1, 0, text, sizeof text);
    assert_non_null(strstr(text, "roles need r >= 1"));
    explorer_roles_free(&roles);
    attention_data_free(&d);
}

static void test_roles_key(void **unused)
{
    (void)unused;
    int n_tokens[1] = {3};
    ExplorerState s;
    explorer_state_init(&s, 2, 2, 1, n_tokens, 64, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE);
    assert_int_equal(s.show_roles, 0);
    /* from the attention view R opens the overview with roles */
    assert_int_equal(explorer_apply_key(&s, 'R'), EXPLORER_REDRAW);
    assert_int_equal(s.view, explorer_view_named("overview"));
    assert_int_equal(s.show_roles, 1);
    assert_non_null(strstr(s.message, "head roles"));
    /* on the overview R turns them off and stays */
    explorer_apply_key(&s, 'R');
    assert_int_equal(s.view, explorer_view_named("overview"));
    assert_int_equal(s.show_roles, 0);
    assert_string_equal(s.message, "head roles off");
    explorer_apply_key(&s, 'R');
    explorer_apply_key(&s, '0');
    explorer_apply_key(&s, 'R');
    explorer_apply_key(&s, 'R');
    assert_non_null(strstr(s.message, "need r >= 1"));
    assert_non_null(strstr(explorer_help_text(), "R       head roles"));
}

/* Paint with explorer_paint_figure into a new w x h surface (caller destroys). */
static cairo_surface_t *render_roles(const Figure *f, const ExplorerRoles *roles, int w, int h)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cairo_t *cr = cairo_create(s);
    assert_int_equal(explorer_paint_figure(cr, f, f->data, roles, w, h), 0);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    return s;
}

static int same_pixels(cairo_surface_t *a, cairo_surface_t *b)
{
    int h = cairo_image_surface_get_height(a), stride = cairo_image_surface_get_stride(a);
    return memcmp(cairo_image_surface_get_data(a), cairo_image_surface_get_data(b), (size_t)h * stride) == 0;
}

static void test_painting(void **unused)
{
    (void)unused;
    Figure f;
    new_figure(&f, "attention");
    AttentionData *d = f.data;
    make_role_maps(d);
    d->overview = 1;
    ExplorerRoles roles;
    SrError err;
    assert_int_equal(explorer_roles_compute(&roles, d, N_PIECES, 1, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE,
                                            &err), 0);
    const int w = 900, h = 640;
    cairo_surface_t *plain = render(&f, w, h), *off = render_roles(&f, NULL, w, h);
    cairo_surface_t *on = render_roles(&f, &roles, w, h);
    assert_true(same_pixels(plain, off)); /* roles off: figure_paint itself */
    assert_false(same_pixels(plain, on));
    /* the ring of the induction head: orange just outside its panel's left edge */
    cairo_t *cr = cairo_create(on);
    AttentionOverviewLayout L;
    attention_overview_layout_room(cr, d, w, h, explorer_roles_room(cr, d, &roles, w, h), &L);
    cairo_destroy(cr);
    FigureRect p0 = attention_overview_panel(&L, d, 0, 0), p1 = attention_overview_panel(&L, d, 0, 1);
    double u = figure_unit(w, h), ring = explorer_role_ring_width(u);
    assert_colour(on, p0.x - ring / 2, p0.y + p0.h / 2, explorer_role_colour(HEAD_INDUCTION));
    assert_colour(on, p1.x - ring / 2, p1.y + p1.h / 2, explorer_role_colour(HEAD_PREVIOUS));
    cairo_surface_destroy(plain);
    cairo_surface_destroy(off);
    cairo_surface_destroy(on);
    explorer_roles_free(&roles);
    figure_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scores_of_made_heads),
        cmocka_unit_test(test_role_and_labels),
        cmocka_unit_test(test_no_roles_at_r0_or_other_layout),
        cmocka_unit_test(test_roles_key),
        cmocka_unit_test(test_painting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
