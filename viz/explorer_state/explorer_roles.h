/* explorer_roles.h — the role of every attention head on the sentence the
 * explorer shows (the `R` key of the overview).
 *
 * The five scores of theory/heads.h (copy, induction, previous, sink,
 * own_copy; docs/theory.md section 7) of each layer and head, each the mean
 * over the queries of the last copy of the attention maps on screen; the
 * role a head is marked with (the strongest of copy, induction, previous and
 * sink when it reaches EXPLORER_ROLE_THRESHOLD), its label ("ind .37") and
 * colour, the list "heads by role" (the best head of each score) and the
 * hover text. With one copy (r = 0) there is no copy before: copy and
 * induction are undefined, and the explorer says "roles need r >= 1"
 * instead of showing zeros. Beside each score, its chance level: what a
 * uniform head scores on the same sentence under the layer's own mask (its
 * visible cells; theory/chance.h), in the hover text, the list and the CSV.
 * Pure: no SDL, no cairo, so it is unit-tested. */
#ifndef SEQREP_VIZ_EXPLORER_ROLES_H
#define SEQREP_VIZ_EXPLORER_ROLES_H

#include <stddef.h>

#include "attention/attention_data.h"
#include "base/status.h"
#include "draw/colormap.h"
#include "repeat/repeat.h"
#include "theory/heads.h"

/* A head is marked with its strongest role when that score reaches this. */
#define EXPLORER_ROLE_THRESHOLD 0.2
/* No role: every candidate score is below the threshold. */
#define EXPLORER_ROLE_NONE (-1)
/* The roles a head can be marked with: copy, induction, previous, sink. */
#define EXPLORER_N_ROLES 4

typedef struct {
    int n_layers, n_heads;
    int defined;   /* 1 with a copy before the last (r >= 1), 0 at r = 0   */
    double *score; /* (L, H, HEAD_N_SCORES) the mean of each score over the
                      last copy's queries (0 where undefined)              */
    double *chance; /* (L, HEAD_N_SCORES) the same of a uniform head under
                       layer l's mask: the chance level                     */
} ExplorerRoles;

/* The five chance levels of layer l, indexed by HeadScore. */
const double *explorer_roles_chance(const ExplorerRoles *roles, int layer);

/* The scores of every head of d's maps: the sentence of n pieces repeated
 * r times with bos and sep (the layout d was computed on; its T must be
 * d->T). At r = 0, out->defined is 0. 0, or -1 with err (out of memory, a
 * layout that does not match the maps). Free with explorer_roles_free. */
int explorer_roles_compute(ExplorerRoles *out, const AttentionData *d, int n, int r, RepeatBos bos,
                           RepeatSep sep, SrError *err);

void explorer_roles_free(ExplorerRoles *roles);

/* The five scores of (layer, head), indexed by HeadScore. */
const double *explorer_roles_scores(const ExplorerRoles *roles, int layer, int head);

/* The role of a head with these five scores: the largest of copy,
 * induction, previous and sink (the first of them on a tie) when it is at
 * least threshold, else EXPLORER_ROLE_NONE. */
int explorer_role_of(const double score[HEAD_N_SCORES], double threshold);

/* A role's short name for labels: "copy", "ind", "prev", "sink", "own". */
const char *explorer_role_short_name(HeadScore role);

/* The colour of a role's outline and legend entry, from the Okabe-Ito set:
 * copy sky blue, induction orange, previous bluish green, sink reddish
 * purple (vermillion frames the selected map; yellow does not read on a
 * light page). own_copy, never a mark, is the palette's black. */
Rgb explorer_role_colour(HeadScore role);

/* A score for labels, two decimals without the leading zero: ".37", ".05",
 * "1.00". */
void explorer_role_value_text(double value, char *out, size_t cap);

/* The label of a marked head: "ind .37". */
void explorer_role_label(HeadScore role, double value, char *out, size_t cap);

/* One line of the list "heads by role": the head with the largest mean of
 * a score (the first in layer-then-head order on a tie) and that mean. */
typedef struct {
    HeadScore score;
    int layer, head;
    double value;
} ExplorerRoleBest;

/* The best head of each of the five scores, in HeadScore order. */
void explorer_roles_best(const ExplorerRoles *roles, ExplorerRoleBest best[HEAD_N_SCORES]);

/* A line of the list as text: "induction  L2 H1  .37". */
void explorer_role_best_text(const ExplorerRoleBest *best, char *out, size_t cap);

/* The hover text of the overview panel of (layer, head) with roles shown:
 * "layer 2, head 1: ind .37" (or "no role"), the five scores one a line,
 * and "click: open this map"; at r = 0 "roles need r >= 1" instead of the
 * scores. */
void explorer_roles_tooltip(const ExplorerRoles *roles, int layer, int head, char *out, size_t cap);

/* The roles as the CSV the explorer saves beside a frame: the columns and
 * number format of `seqrep heads --out` (layer,head,copy,induction,previous,
 * sink,own_copy, six decimals), one row per layer and head, plus "role": the
 * score name the head is marked with, or "none". A new string (caller
 * frees), or NULL when out of memory or the roles are undefined (r = 0). */
char *explorer_roles_csv(const ExplorerRoles *roles);

#endif
